// Issue 15: `npm run seed` writes its store with COPY, beside the domain's write path, so nothing
// but this test says that a generated store is one the domain could have made. Each store is
// seeded as the CLI seeds it (seedIfEmpty into an empty, migrated database of this file's own), and
// every derived value is recomputed from the stored rows through the domain's own functions:
// counters, statuses, amounts, customer statistics, stock moves, catalogue rules, slugs, display
// numbers, row counts and whole-second timestamps.
import 'reflect-metadata';
import { type EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { ormConfig } from '../mikro-orm.config.js';
import { wholeSeconds } from '../src/clock.js';
import { checkRules } from '../src/domain/collection-edit.js';
import { refreshCustomerStatistics } from '../src/domain/customer-statistics.js';
import type { FieldError } from '../src/domain/errors.js';
import { stockMove } from '../src/domain/fulfilment.js';
import { countersFromRecords } from '../src/domain/line-counters.js';
import { countQuery } from '../src/domain/listing.js';
import { toCents } from '../src/domain/money.js';
import { cartCents, totalCents } from '../src/domain/order-amounts.js';
import { displayNumber, orderNumberFormat } from '../src/domain/order-number.js';
import { orderWhere } from '../src/domain/order-search.js';
import { deriveStatus } from '../src/domain/order-status.js';
import { checkTags, checkTextareas } from '../src/domain/product-relations.js';
import { planVariants } from '../src/domain/product-variants.js';
import { firstFreeSlug, SLUG, slugBase } from '../src/domain/slug.js';
import { OptionThumbnail } from '../src/entities/option-thumbnail.entity.js';
import { Order } from '../src/entities/order.entity.js';
import { Product } from '../src/entities/product.entity.js';
import { ProductOption } from '../src/entities/product-option.entity.js';
import { ProductTextarea } from '../src/entities/product-textarea.entity.js';
import { ProductVariant } from '../src/entities/product-variant.entity.js';
import type { CollectionRuleInput } from '../src/schema/inputs/collection.inputs.js';
import type { ProductPatch } from '../src/schema/inputs/product.inputs.js';
import { seedIfEmpty } from '../src/seed/seed-store.js';
import type { StoreSize } from '../src/seed/store-generator.js';
import { createDatabase } from './support/harness.js';

const STORES: [string, StoreSize][] = [
  ['10k orders', { products: 1000, customers: 2500, orders: 10_000, warehouses: 3, seed: 15 }],
  // An edge of the generator's options: a store without warehouses has no stock to take (the seed
  // once fulfilled tracked units from no warehouse here).
  ['no warehouses', { products: 12, customers: 5, orders: 48, warehouses: 0, seed: 2 }],
];

/** Grouped by a key, in order. */
function groupBy<T, K>(rows: readonly T[], key: (row: T) => K): Map<K, T[]> {
  const groups = new Map<K, T[]>();
  for (const row of rows) {
    const group = groups.get(key(row));
    if (group) group.push(row);
    else groups.set(key(row), [row]);
  }
  return groups;
}

describe.each(STORES)('a store seeded with %s', (_name, size) => {
  let orm: MikroORM;
  let em: EntityManager;
  const sql = <T>(text: string, params: unknown[] = []) => em.getConnection().execute<T[]>(text, params);

  beforeAll(async () => {
    orm = await MikroORM.init(ormConfig(await createDatabase('empty')));
    await orm.migrator.up();
    expect(await seedIfEmpty(orm, size)).toBe(true);
    em = orm.em.fork();
  }, 120_000);
  afterAll(() => orm?.close());

  it('holds the records asked for', async () => {
    const [counts] = await sql<{ products: number; customers: number; orders: number; warehouses: number }>(
      'select (select count(*)::int from product) as products, ' +
        '(select count(*)::int from customer) as customers, (select count(*)::int from orders) as orders, ' +
        '(select count(*)::int from warehouse) as warehouses',
    );
    expect(counts).toEqual({
      products: size.products,
      customers: size.customers,
      orders: size.orders,
      warehouses: size.warehouses,
    });
  });

  interface LineRow {
    id: number;
    order_id: number;
    quantity: number;
    not_fulfilled: number;
    fulfilled: number;
    shipped: number;
    restocked: number;
    price: string;
    in_fulfilments: number;
    in_shipments: number;
    in_restocks: number;
  }
  /** Every line with the units its records hold (read once: several rules look at them). */
  let linesRead: Promise<LineRow[]> | undefined;
  const lines = () =>
    (linesRead ??=
      sql<LineRow>(`select l.id, l.order_id, l.quantity, l.not_fulfilled, l.fulfilled, l.shipped, l.restocked, l.price,
        coalesce(f.units, 0) as in_fulfilments, coalesce(s.units, 0) as in_shipments,
          coalesce(r.units, 0) as in_restocks
      from line_item l
      left join (select line_item_id, sum(quantity)::int as units
        from fulfilment_item group by 1) f on f.line_item_id = l.id
      left join (select line_item_id, sum(quantity)::int as units
        from shipment_item group by 1) s on s.line_item_id = l.id
      left join (select line_item_id, sum(quantity)::int as units
        from restock_item group by 1) r on r.line_item_id = l.id
      order by l.id`));

  it("every line's counters are what its fulfilments, shipments and restocks make them", async () => {
    const wrong = (await lines()).filter((line) => {
      const made = countersFromRecords(line.quantity, {
        inFulfilments: line.in_fulfilments,
        inShipments: line.in_shipments,
        restocked: line.in_restocks,
      });
      const stored = {
        quantity: line.quantity,
        notFulfilled: line.not_fulfilled,
        fulfilled: line.fulfilled,
        shipped: line.shipped,
        restocked: line.restocked,
      };
      return JSON.stringify(made) !== JSON.stringify(stored);
    });
    expect(wrong).toEqual([]);
  });

  it('every shipment carries units of its own fulfilment, at most what that fulfilment holds', async () => {
    const overShipped = await sql<{
      fulfilment_id: number;
      line_item_id: number;
      held: number | null;
      shipped: number;
    }>(
      `select s.fulfilment_id, si.line_item_id, fi.quantity as held, sum(si.quantity)::int as shipped
       from shipment_item si join shipment s on s.id = si.shipment_id
       left join fulfilment_item fi on fi.fulfilment_id = s.fulfilment_id and fi.line_item_id = si.line_item_id
       group by s.fulfilment_id, si.line_item_id, fi.quantity
       having fi.quantity is null or sum(si.quantity) > fi.quantity`,
    );
    expect(overShipped).toEqual([]);
  });

  it(
    "every order's status is the one its counters derive, " + 'and an order whose units moved was stamped updated',
    async () => {
      const byOrder = groupBy(await lines(), (line) => line.order_id);
      const orders = await sql<{ id: number; status: number; updated_at: Date | null; moved: boolean }>(
        'select o.id, o.status, o.updated_at, exists (select 1 from fulfilment f where f.order_id = o.id) as moved ' +
          'from orders o order by o.id',
      );
      const wrong = orders.filter((order) => {
        const counters = (byOrder.get(order.id) ?? []).map((l) => ({
          quantity: l.quantity,
          notFulfilled: l.not_fulfilled,
          fulfilled: l.fulfilled,
          shipped: l.shipped,
          restocked: l.restocked,
        }));
        return deriveStatus(counters) !== order.status || (order.moved && order.updated_at === null);
      });
      expect(wrong).toEqual([]);
    },
  );

  it("every order's cart price is Σ price × quantity of its lines and its total cart + shipping + tax", async () => {
    const byOrder = groupBy(await lines(), (line) => line.order_id);
    const orders = await sql<{ id: number; cart_price: string; shipping_price: string; tax: string; total: string }>(
      'select id, cart_price, shipping_price, tax, total from orders order by id',
    );
    const wrong = orders.filter((order) => {
      const cart = cartCents(byOrder.get(order.id) ?? []);
      return (
        cart !== toCents(order.cart_price) || totalCents(cart, order.shipping_price, order.tax) !== toCents(order.total)
      );
    });
    expect(wrong).toEqual([]);
  });

  it("every customer's statistics are what the domain's refresh makes of their orders", async () => {
    const read = () =>
      sql<{ id: number; order_count: number; lifetime_spent: string; last_purchase: Date | null }>(
        'select id, order_count, lifetime_spent, last_purchase from customer order by id',
      );
    const stored = await read();
    const tx = em.fork();
    await tx.begin();
    let refreshed: typeof stored;
    try {
      await refreshCustomerStatistics(
        tx,
        stored.map((c) => c.id),
      );
      refreshed = await tx
        .getConnection()
        .execute(
          'select id, order_count, lifetime_spent, last_purchase from customer order by id',
          [],
          'all',
          tx.getTransactionContext(),
        );
    } finally {
      await tx.rollback();
    }
    expect(stored.some((c) => c.order_count > 0)).toBe(true);
    expect(stored).toEqual(refreshed);
  });

  it('every fulfilled unit of a product that tracks inventory was taken from a warehouse', async () => {
    const items = await sql<{
      fulfilment_id: number;
      line_item_id: number;
      quantity: number;
      warehouse_id: number | null;
      track_inventory: boolean;
      variant_id: number | null;
    }>(
      `select f.id as fulfilment_id, fi.line_item_id, fi.quantity, f.warehouse_id, l.track_inventory, l.variant_id
       from fulfilment_item fi join fulfilment f on f.id = fi.fulfilment_id
         join line_item l on l.id = fi.line_item_id order by fi.id`,
    );
    expect(items.length).toBeGreaterThan(0);
    const refused = items.filter((item) => {
      const line = {
        trackInventory: item.track_inventory,
        variant: item.variant_id === null ? null : em.getReference(ProductVariant, item.variant_id),
      };
      try {
        const moves = stockMove(line, item.warehouse_id, item.quantity, `fulfilment ${item.fulfilment_id}`);
        return moves.some((m) => m.warehouseId !== item.warehouse_id || m.variantId !== item.variant_id);
      } catch {
        return true;
      }
    });
    expect(refused).toEqual([]);
  });

  it("every level's units are the sum of its movements' deltas, one set movement each", async () => {
    const levels = await sql<{ quantity: number; moved: number; movements: number; sets: number }>(
      `select l.quantity, coalesce(sum(m.delta), 0)::int as moved, count(m.id)::int as movements,
         count(m.id) filter (where m.reason = 'set' and m.quantity_after = l.quantity)::int as sets
       from inventory_level l left join inventory_movement m
         on m.variant_id = l.variant_id and m.warehouse_id = l.warehouse_id
       group by l.id`,
    );
    if (size.warehouses) expect(levels.length).toBeGreaterThan(0);
    expect(levels.filter((l) => l.moved !== l.quantity || l.movements !== 1 || l.sets !== 1)).toEqual([]);
  });

  it(
    "every product's options, variants, tags and textareas " + "pass the domain's product checks as they stand",
    async () => {
      const reader = orm.em.fork();
      const [products, options, thumbnails, variants, textareas] = await Promise.all([
        reader.find(Product, {}, { orderBy: { id: 'asc' } }),
        reader.find(ProductOption, {}, { orderBy: [{ position: 'asc' }, { id: 'asc' }] }),
        reader.find(OptionThumbnail, {}, { orderBy: [{ position: 'asc' }, { id: 'asc' }] }),
        reader.find(ProductVariant, {}, { orderBy: [{ position: 'asc' }, { id: 'asc' }] }),
        reader.find(ProductTextarea, {}, { orderBy: [{ position: 'asc' }, { id: 'asc' }] }),
      ]);
      const optionsOf = groupBy(options, (o) => o.product.id);
      const thumbnailsOf = groupBy(thumbnails, (t) => t.option.id);
      const variantsOf = groupBy(variants, (v) => v.product.id);
      const textareasOf = groupBy(textareas, (t) => t.product.id);
      const wrong: { product: number; errors: FieldError[]; unchanged: boolean }[] = [];
      for (const product of products) {
        const own = optionsOf.get(product.id) ?? [];
        const state = {
          options: own,
          thumbnails: own.flatMap((o) => thumbnailsOf.get(o.id) ?? []),
          variants: variantsOf.get(product.id) ?? [],
        };
        // The product written back as it is: its own options and variants, tags and textareas.
        const input: ProductPatch = {
          isMulti: product.isMulti,
          tags: product.tags,
          textareas: (textareasOf.get(product.id) ?? []).map((t) => ({ name: t.name, text: t.text })),
          options: own.map((o) => ({
            title: o.title,
            values: o.values,
            changesLook: o.changesLook,
            thumbnails: (thumbnailsOf.get(o.id) ?? []).map((t) => ({
              value: t.value,
              color: t.color,
              imageId: t.image?.id ?? null,
            })),
          })),
          variants: state.variants.map((v) => ({
            variant: v.optionValues,
            price: v.price,
            comparePrice: v.comparePrice,
            sku: v.sku,
            default: v.isDefault,
            ignore: v.ignore,
          })),
        };
        const errors: FieldError[] = [];
        const plan = planVariants(product, input, state, false, errors);
        checkTags(input.tags, errors);
        await checkTextareas(reader, input, errors);
        // Nothing would change: every variant keeps its row, and a single variant mirrors the product.
        const unchanged =
          plan.removed.length === 0 &&
          plan.slots.every((slot, i) => slot.row === state.variants[i]) &&
          (plan.isMulti ||
            (toCents(plan.price) === toCents(product.price) &&
              plan.comparePrice === product.comparePrice &&
              plan.sku === product.sku));
        if (errors.length || !unchanged) wrong.push({ product: product.id, errors, unchanged });
      }
      expect(products.length).toBe(size.products);
      expect(wrong).toEqual([]);
    },
  );

  it("every rule-based collection's rules pass the domain's rule check", async () => {
    const rules = await sql<{ collection_id: number; type: number; condition: number; value: string }>(
      'select collection_id, field as type, condition, value from collection_rule order by collection_id, position',
    );
    const refused: { collection: number; errors: FieldError[] }[] = [];
    for (const [collection, own] of groupBy(rules, (r) => r.collection_id)) {
      const errors: FieldError[] = [];
      checkRules(own as CollectionRuleInput[], errors);
      if (errors.length) refused.push({ collection, errors });
    }
    expect(rules.length).toBeGreaterThan(0);
    expect(refused).toEqual([]);
  });

  it.each(['product', 'collection'] as const)(
    'every %s URL is the slug its title derives, with the first free suffix',
    async (table) => {
      const records = await sql<{ id: number; title: string; seo_url: string }>(
        `select id, title, seo_url from ${table} order by id`,
      );
      const taken = new Set<string>();
      const wrong = records.filter((record) => {
        const derived = firstFreeSlug(slugBase(record.title, table), taken);
        taken.add(record.seo_url);
        return record.seo_url !== derived || !SLUG.test(record.seo_url);
      });
      expect(records.length).toBeGreaterThan(0);
      expect(wrong).toEqual([]);
    },
  );

  it("shows every order under the store's number format, and the order search finds each number it shows", async () => {
    const format = await orderNumberFormat(em);
    const [settings] = await sql<{ prefix: string; suffix: string }>(
      'select order_number_prefix as prefix, order_number_suffix as suffix from store_settings where id = 1',
    );
    expect(format).toEqual(settings);
    const ids = (await sql<{ id: number }>('select id from orders order by id')).map((o) => o.id);
    // A spread of them (a search scans the ids as text).
    for (const id of ids.filter((_, i) => i % Math.ceil(ids.length / 25) === 0)) {
      const shown = displayNumber(id, format);
      const found = await em.fork().find(Order, orderWhere({ displayNumber: [shown] }, format), { fields: ['id'] });
      expect({ shown, found: found.some((o) => o.id === id) }).toEqual({ shown, found: true });
    }
  });

  it("every table's unfiltered count, as lists read it, is its row count", async () => {
    const tables = orm.getMetadata().getAll();
    const wrong: { table: string; counted: number; rows: number }[] = [];
    for (const meta of Object.values(tables)) {
      if (meta.embeddable || meta.virtual || !meta.tableName) continue;
      const count = countQuery(em, meta.class, {});
      const [{ counted }] = await sql<{ counted: string }>(`select (${count.sql}) as counted`, [...count.params]);
      const [{ rows }] = await sql<{ rows: string }>(`select count(*) as rows from "${meta.tableName}"`);
      if (Number(counted) !== Number(rows))
        wrong.push({ table: meta.tableName, counted: Number(counted), rows: Number(rows) });
    }
    expect(wrong).toEqual([]);
    // The row-count triggers did count the COPY: the tables carrying them hold rows, and deltas summing to them.
    const triggered = await sql<{ table_name: string; delta: string }>(
      `select c.relname as table_name,
        (select coalesce(sum(delta), 0) from row_count r where r.table_name = c.relname) as delta
       from pg_trigger t join pg_class c on c.oid = t.tgrelid where t.tgfoid = 'row_count_inserted'::regproc`,
    );
    expect(triggered.length).toBeGreaterThan(0);
    for (const { table_name: table, delta } of triggered) {
      const [{ rows }] = await sql<{ rows: string }>(`select count(*) as rows from "${table}"`);
      expect({ table, delta: Number(delta) }).toEqual({ table, delta: Number(rows) });
      expect({ table, empty: Number(rows) === 0 }).toEqual({ table, empty: false });
    }
  });

  it('stores every timestamp in whole seconds', async () => {
    // The migrator's own bookkeeping is not the store's.
    const columns = await sql<{ table_name: string; column_name: string }>(
      `select table_name, column_name from information_schema.columns
       where table_schema = 'public' and data_type = 'timestamp with time zone'
         and table_name <> 'mikro_orm_migrations' order by 1, 2`,
    );
    const fractional: { table: string; column: string; microseconds: string }[] = [];
    let checked = 0;
    for (const { table_name: table, column_name: column } of columns) {
      // As Unix microseconds: PostgreSQL keeps microseconds, a Date only milliseconds.
      const rows = await sql<{ us: string }>(`select (extract(epoch from "${column}") * 1000000)::bigint::text as us
        from "${table}" where "${column}" is not null`);
      checked += rows.length;
      for (const { us } of rows) {
        const time = new Date(Number(BigInt(us) / 1000n));
        if (BigInt(us) % 1000n !== 0n || wholeSeconds(time).getTime() !== time.getTime())
          fractional.push({ table, column, microseconds: us });
      }
    }
    expect(checked).toBeGreaterThan(size.orders);
    expect(fractional.slice(0, 10)).toEqual([]);
  });
});
