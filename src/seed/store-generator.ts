import { type LineCounters, moveUnits } from '../domain/line-counters.js';
import { fromCents } from '../domain/money.js';
import { cartCents, totalCents } from '../domain/order-amounts.js';
import { deriveStatus } from '../domain/order-status.js';
import { firstFreeSlug, slugBase } from '../domain/slug.js';
import { money, Random } from './random.js';
import * as words from './vocabulary.js';

export interface StoreSize {
  products: number;
  customers: number;
  orders: number;
  warehouses: number;
  seed: number;
}

/** The demo store (docs/decisions.md#demo-store): small, deterministic, every fulfilment status present. */
export const DEMO_STORE: StoreSize = { products: 60, customers: 120, orders: 240, warehouses: 3, seed: 1 };

export type Row = Record<string, unknown>;
export type Tables = Map<string, Row[]>;

interface VariantInfo {
  id: number;
  values: string[];
  priceCents: number;
  compareCents: number | null;
  sku: string;
}

interface ProductInfo {
  id: number;
  row: Row;
  variants: VariantInfo[];
  tracked: boolean;
  imageMaxSize: number;
}

interface CustomerInfo {
  id: number;
  email: string;
  firstName: string;
  lastName: string;
  address: Row | null;
}

const EPOCH = Date.UTC(2025, 0, 1) / 1000;
const at = (seconds: number) => new Date((EPOCH + seconds) * 1000);
const DAY = 86_400;

/**
 * The rows generated so far: one random sequence, explicit ids per table, and the chunk being
 * filled. Every table's generator below draws from it in turn, so the order of the calls, not their
 * chunking, decides the store.
 */
class StoreRows {
  readonly rng: Random;
  private tables: Tables = new Map();
  private pending = 0;
  private readonly ids: Record<string, number> = {};

  constructor(
    seed: number,
    private readonly chunkRows: number,
  ) {
    this.rng = new Random(seed);
  }

  add(table: string, row: Row): void {
    let rows = this.tables.get(table);
    if (!rows) this.tables.set(table, (rows = []));
    rows.push(row);
    this.pending++;
  }

  nextId(table: string): number {
    return (this.ids[table] = (this.ids[table] ?? 0) + 1);
  }

  /** The chunk so far when it is big enough (or `force`), else nothing. */
  cut(force = false): Tables | null {
    if (!this.pending || (!force && this.pending < this.chunkRows)) return null;
    const full = this.tables;
    this.tables = new Map();
    this.pending = 0;
    return full;
  }

  /** Hands out the chunk once it is full; called between two records only. */
  *chunkIfFull(): Generator<Tables> {
    const chunk = this.cut();
    if (chunk) yield chunk;
  }
}

/**
 * Builds a consistent store as plain rows with explicit ids: products with options, variants and
 * stock; customers with addresses; orders whose line items snapshot the products and whose
 * fulfilments and shipments match their counters and status. The rules are the domain's own
 * (counter moves, status, amounts, slugs); test/seeded-store-invariants.test.ts checks a generated
 * store against them.
 *
 * The rows come in chunks of about `chunkRows` rows, cut only between two records, so a chunk
 * written table by table in foreign-key order only references rows of itself or of earlier
 * chunks, and a store of a million orders never sits in memory. Products and customers are kept
 * (orders draw from them); customers are written with empty statistics, which the writer derives
 * once every order is in (domain/customer-statistics.ts). The random sequence does not depend on
 * `chunkRows`: any chunking yields the same store.
 */
export function* storeChunks(size: StoreSize, chunkRows = 20_000): Generator<Tables> {
  const store = new StoreRows(size.seed, chunkRows);
  settingsRows(store);
  const carriers = carrierRows(store);
  const warehouses = warehouseRows(store, size.warehouses);
  const products = yield* productRows(store, size.products, warehouses);
  collectionRows(
    store,
    products.map((p) => p.id),
  );
  const customers = yield* customerRows(store, size.customers);
  yield* orderRows(store, size.orders, { products, customers, carriers, warehouses });
  const last = store.cut(true);
  if (last) yield last;
}

/** The settings row (order numbers shown as `#<id>`) and the textarea presets. */
function settingsRows(store: StoreRows): void {
  store.add('store_settings', { id: 1, order_number_prefix: '#', order_number_suffix: '' });
  for (const name of words.TEXTAREA_PRESETS)
    store.add('textarea_preset', { id: store.nextId('textarea_preset'), name });
}

/** The carriers, the last one deleted; answers the ids of those still in use. */
function carrierRows(store: StoreRows): number[] {
  const carriers: number[] = [];
  words.CARRIERS.forEach(([title, url], i) => {
    const id = store.nextId('shipping_carrier');
    const deleted = i === words.CARRIERS.length - 1;
    store.add('shipping_carrier', { id, title, url, is_deleted: deleted });
    if (!deleted) carriers.push(id);
  });
  return carriers;
}

function warehouseRows(store: StoreRows, count: number): number[] {
  const warehouses: number[] = [];
  for (let i = 0; i < count; i++) {
    const id = store.nextId('warehouse');
    store.add('warehouse', {
      id,
      title: ['Main warehouse', 'East depot', 'West depot', 'Overflow'][i % 4] + (i >= 4 ? ` ${i}` : ''),
    });
    warehouses.push(id);
  }
  return warehouses;
}

function imageRow(store: StoreRows, seconds: number): { id: number; maxSize: number } {
  const id = store.nextId('image');
  const maxSize = store.rng.pick([800, 1200, 2048]);
  store.add('image', {
    id,
    path: `https://cdn.example.com/store/images/${id}.jpg`,
    max_size: maxSize,
    created_at: at(seconds),
  });
  return { id, maxSize };
}

/** Products with their images, textareas, options, variants and stock; answers them for the orders. */
function* productRows(store: StoreRows, count: number, warehouses: number[]): Generator<Tables, ProductInfo[]> {
  const { rng } = store;
  const products: ProductInfo[] = [];
  const productSlugs = new Set<string>();
  for (let p = 0; p < count; p++) {
    const id = store.nextId('product');
    const created = rng.int(0, 300 * DAY);
    const title = `${rng.pick(words.ADJECTIVES)} ${rng.pick(words.NOUNS)} ${id}`;
    const type = rng.pick(words.TYPES);
    const isMulti = p % 3 !== 0;
    // Stock is kept in warehouses: without one, nothing can track inventory (nor be fulfilled if it did).
    const tracked = p % 2 === 0 && warehouses.length > 0;
    const basePrice = rng.int(5, 150) * 100 + rng.pick([0, 50, 99]);
    const row: Row = {
      id,
      title,
      is_multi: isMulti,
      type,
      is_giftcard: type === 'Gift Card',
      tags: rng.sample(words.TAGS, rng.int(0, 3)),
      shipping_weight: rng.int(1, 50) / 10,
      auto_fulfilment: rng.chance(0.1),
      track_inventory: tracked,
      vendor: rng.chance(0.9) ? rng.pick(words.VENDORS) : null,
      sku: `SKU-${String(id).padStart(5, '0')}`,
      seo_meta: `Buy ${title} online`,
      seo_title: title,
      seo_url: freeSlug(productSlugs, title, 'product'),
      is_template: false,
      is_draft: p % 17 === 16,
      price: money(basePrice),
      compare_price: rng.chance(0.3) ? money(basePrice + 1000) : null,
      created_at: at(created),
      updated_at: rng.chance(0.5) ? at(created + rng.int(1, 30 * DAY)) : null,
      version: 1,
    };
    store.add('product', row);
    const info: ProductInfo = { id, row, variants: [], tracked, imageMaxSize: 0 };

    const imageCount = rng.int(0, 3);
    for (let i = 0; i < imageCount; i++) {
      const image = imageRow(store, created);
      if (i === 0) info.imageMaxSize = image.maxSize;
      store.add('product_image', {
        id: store.nextId('product_image'),
        product_id: id,
        image_id: image.id,
        position: i,
      });
    }
    if (rng.chance(0.6)) {
      rng.sample(words.TEXTAREA_PRESETS, rng.int(1, 2)).forEach((name, i) => {
        store.add('product_textarea', {
          id: store.nextId('product_textarea'),
          product_id: id,
          position: i,
          name,
          text: `${name} of ${title}.`,
        });
      });
    }
    const combinations = isMulti ? optionRows(store, id) : [[]];
    variantRows(store, info, combinations, basePrice, warehouses);
    products.push(info);
    yield* store.chunkIfFull();
  }
  return products;
}

/** A multi-variant product's options (a size, sometimes a colour with thumbnails); answers their combinations. */
function optionRows(store: StoreRows, productId: number): string[][] {
  const { rng } = store;
  const sizes = rng.sample(words.SIZES, rng.int(2, 3));
  const options: { title: string; values: string[]; colors?: boolean }[] = [{ title: 'Size', values: sizes }];
  if (rng.chance(0.5))
    options.push({ title: 'Color', values: rng.sample(words.COLORS, 2).map(([c]) => c), colors: true });
  options.forEach((option, position) => {
    const optionId = store.nextId('product_option');
    store.add('product_option', {
      id: optionId,
      product_id: productId,
      position,
      title: option.title,
      changes_look: !!option.colors,
      values: option.values,
    });
    if (option.colors) {
      option.values.forEach((value, i) => {
        store.add('option_thumbnail', {
          id: store.nextId('option_thumbnail'),
          option_id: optionId,
          position: i,
          value,
          color: words.COLORS.find(([c]) => c === value)![1],
          image_id: null,
        });
      });
    }
  });
  return options.reduce<string[][]>((acc, o) => acc.flatMap((c) => o.values.map((v) => [...c, v])), [[]]);
}

/**
 * One variant per combination, with its stock in every warehouse when the product is tracked (and
 * that stock's `set` movement, dated when the product was created).
 */
function variantRows(
  store: StoreRows,
  info: ProductInfo,
  combinations: string[][],
  basePrice: number,
  warehouses: number[],
): void {
  const { row } = info;
  const isMulti = row.is_multi as boolean;
  combinations.forEach((values, position) => {
    const variantId = store.nextId('product_variant');
    const priceCents = isMulti ? basePrice + position * 100 : basePrice;
    const variant: VariantInfo = {
      id: variantId,
      values,
      priceCents,
      compareCents: isMulti ? null : row.compare_price ? basePrice + 1000 : null,
      sku: `${row.sku}${values.length ? `-${values.join('-').toUpperCase()}` : ''}`,
    };
    info.variants.push(variant);
    store.add('product_variant', {
      id: variantId,
      product_id: info.id,
      position,
      option_values: values,
      price: money(priceCents),
      compare_price: variant.compareCents === null ? null : money(variant.compareCents),
      sku: variant.sku,
      is_default: position === 0,
      ignore: false,
    });
    if (info.tracked) {
      for (const warehouseId of warehouses) {
        const quantity = store.rng.int(20, 200);
        store.add('inventory_level', {
          id: store.nextId('inventory_level'),
          warehouse_id: warehouseId,
          variant_id: variantId,
          quantity,
        });
        // The ledger's starting point (docs/decisions.md#inventory-ledger): units = Σ deltas from here on.
        store.add('inventory_movement', {
          id: store.nextId('inventory_movement'),
          variant_id: variantId,
          warehouse_id: warehouseId,
          delta: quantity,
          quantity_after: quantity,
          reason: 'set',
          reference: null,
          actor_token_id: null,
          actor_name: null,
          created_at: row.created_at,
        });
      }
    }
  });
}

/** Collections: manual ones and one rule-based per rule kind family. */
function collectionRows(store: StoreRows, productIds: number[]): void {
  const { rng } = store;
  const collectionSlugs = new Set<string>();
  for (let c = 0; c < 4; c++) {
    const id = store.nextId('collection');
    const title = ['Staff picks', 'Gift ideas', 'Back in stock', 'Featured'][c];
    store.add('collection', collectionRow(id, title, 0, null, freeSlug(collectionSlugs, title, 'collection')));
    rng.sample(productIds, Math.min(productIds.length, rng.int(3, 8))).forEach((productId, position) => {
      store.add('collection_product', {
        id: store.nextId('collection_product'),
        collection_id: id,
        product_id: productId,
        position,
      });
    });
  }
  const ruleCollections: [string, number, [number, number, string][]][] = [
    ['On sale', 0, [[4, 0, 'sale']]],
    [
      'Acme and Globex',
      0,
      [
        [1, 0, 'Acme'],
        [1, 0, 'Globex'],
      ],
    ],
    [
      'Affordable apparel',
      1,
      [
        [2, 0, 'Apparel'],
        [3, 8, '80'],
      ],
    ],
    ['Large sizes', 0, [[6, 3, 'XL']]],
  ];
  for (const [title, match, rules] of ruleCollections) {
    const id = store.nextId('collection');
    store.add('collection', collectionRow(id, title, 1, match, freeSlug(collectionSlugs, title, 'collection')));
    rules.forEach(([field, condition, value], position) => {
      store.add('collection_rule', {
        id: store.nextId('collection_rule'),
        collection_id: id,
        position,
        field,
        condition,
        value,
      });
    });
  }
}

/** Customers with addresses and payment methods (statistics empty: derived once the orders are in). */
function* customerRows(store: StoreRows, count: number): Generator<Tables, CustomerInfo[]> {
  const { rng } = store;
  const customers: CustomerInfo[] = [];
  for (let c = 0; c < count; c++) {
    const id = store.nextId('customer');
    const firstName = rng.pick(words.FIRST_NAMES);
    const lastName = rng.pick(words.LAST_NAMES);
    const email = `${firstName}.${lastName}.${id}@example.com`.toLowerCase().replace(/\s+/g, '');
    const created = rng.int(0, 200 * DAY);
    const customer: CustomerInfo = { id, email, firstName, lastName, address: null };
    const addressCount = c % 10 === 9 ? 0 : rng.int(1, 2);
    for (let a = 0; a < addressCount; a++) {
      const place = rng.pick(words.PLACES);
      const block = {
        first_name: firstName,
        last_name: lastName,
        company: rng.chance(0.2) ? `${lastName} Ltd` : null,
        street: `${rng.int(1, 999)} ${rng.pick(words.STREETS)}`,
        suite: rng.chance(0.3) ? `Apt ${rng.int(1, 40)}` : null,
        city: rng.pick(place.cities),
        country: place.country,
        state: place.state,
        zip: String(rng.int(10000, 99999)),
      };
      const address: Row = {
        id: store.nextId('customer_address'),
        customer_id: id,
        position: a,
        phone: `+1555${String(rng.int(0, 9999999)).padStart(7, '0')}`,
      };
      for (const [k, v] of Object.entries(block)) {
        address[`shipping_${k}`] = v;
        address[`billing_${k}`] = k === 'company' ? null : v;
      }
      if (a === 0) customer.address = address;
      store.add('customer_address', address);
    }
    for (let m = 0; m < rng.int(0, 2); m++) {
      const type = rng.pick(words.CARD_TYPES);
      store.add('customer_payment_method', {
        id: store.nextId('customer_payment_method'),
        customer_id: id,
        type,
        last4: type === 'PayPal' ? null : String(rng.int(0, 9999)).padStart(4, '0'),
      });
    }
    store.add('customer', {
      id,
      email,
      first_name: firstName,
      last_name: lastName,
      notes: rng.chance(0.1) ? 'VIP customer' : null,
      order_count: 0,
      lifetime_spent: '0.00',
      last_purchase: null,
      created_at: at(created),
      updated_at: rng.chance(0.3) ? at(created + DAY) : null,
      version: 1,
    });
    customers.push(customer);
    yield* store.chunkIfFull();
  }
  return customers;
}

interface OrderSources {
  products: ProductInfo[];
  customers: CustomerInfo[];
  carriers: number[];
  warehouses: number[];
}

/** Orders: status cycles 0..5 so every status is present; status-0 orders mostly use tracked products. */
function* orderRows(store: StoreRows, count: number, sources: OrderSources): Generator<Tables> {
  const { products, customers } = sources;
  const tracked = products.filter((p) => p.tracked);
  for (let o = 0; o < count && customers.length && products.length; o++) {
    orderWithRecords(store, o, sources, tracked);
    yield* store.chunkIfFull();
  }
}

/** Order number `o` (0-based): its row, line items, fulfilments and shipments. */
function orderWithRecords(
  store: StoreRows,
  o: number,
  { products, customers, carriers, warehouses }: OrderSources,
  tracked: ProductInfo[],
): void {
  const { rng } = store;
  const id = store.nextId('orders');
  const targetStatus = o % 6;
  const customer = customers[rng.int(0, customers.length - 1)];
  const orderDate = at(210 * DAY + rng.int(0, 150 * DAY));
  const pool = targetStatus === 0 && tracked.length ? tracked : products;
  const lines = rng.sample(pool, Math.min(pool.length, rng.int(1, 3))).map((product, i) => {
    const variant = rng.pick(product.variants);
    const quantity = i === 0 ? rng.int(2, 3) : rng.int(1, 3);
    const counters: LineCounters = { quantity, notFulfilled: quantity, fulfilled: 0, shipped: 0, restocked: 0 };
    return { id: store.nextId('line_item'), product, variant, price: money(variant.priceCents), ...counters };
  });
  const { fulfilments, shipments } = movesTowards(store, targetStatus, lines);

  const cart = cartCents(lines);
  const [shippingDescription, shippingCents] = rng.pick(words.SHIPPING_METHODS);
  const tax = money(Math.round(Number(cart) / 10));
  const total = totalCents(cart, money(shippingCents), tax);
  const paid = o % 11 === 10 ? 0 : o % 13 === 12 ? -1 : o % 29 === 28 ? -2 : 1;
  const refunded = paid === -1 ? (total + 2n) / 4n : paid === -2 ? total : 0n;
  const payment = rng.pick(words.CARD_TYPES);
  const row: Row = {
    id,
    customer_id: customer.id,
    email: customer.email,
    status: deriveStatus(lines),
    paid,
    discounts: '[]',
    shipping_description: shippingDescription,
    shipping_price: money(shippingCents),
    tax,
    cart_price: fromCents(cart),
    total: fromCents(total),
    ip: `203.0.113.${rng.int(1, 254)}`,
    phone: customer.address?.phone ?? null,
    payment_type: payment,
    payment_last4: payment === 'PayPal' ? null : String(rng.int(0, 9999)).padStart(4, '0'),
    landing_page: rng.pick(['/', '/collections/staff-picks', '/products/classic-mug']),
    referrer: rng.pick(['', 'https://www.google.com/', 'https://news.example/']),
    ip_fail: rng.chance(0.05),
    address_fail: rng.chance(0.05),
    zip_fail: rng.chance(0.05),
    cvc_fail: rng.chance(0.05),
    refunded: fromCents(refunded),
    refund_possible: paid === 1 || paid === -1,
    order_date: orderDate,
    updated_at: fulfilments.length ? new Date(orderDate.getTime() + 3600_000) : null,
    notes: rng.chance(0.1) ? 'Please gift wrap' : null,
    version: 1,
  };
  for (const kind of ['shipping', 'billing']) {
    for (const k of ['first_name', 'last_name', 'company', 'street', 'suite', 'city', 'country', 'state', 'zip']) {
      row[`${kind}_${k}`] = customer.address
        ? customer.address[`${kind}_${k}`]
        : k === 'first_name'
          ? customer.firstName
          : k === 'last_name'
            ? customer.lastName
            : null;
    }
  }
  store.add('orders', row);
  for (const line of lines) {
    const p = line.product.row;
    store.add('line_item', {
      id: line.id,
      order_id: id,
      product_id: line.product.id,
      variant_id: line.variant.id,
      product_ref: line.product.id,
      variant_ref: line.variant.id,
      title: p.title,
      is_multi: p.is_multi,
      type: p.type,
      is_giftcard: p.is_giftcard,
      shipping_weight: p.shipping_weight,
      vendor: p.vendor,
      auto_fulfilment: p.auto_fulfilment,
      track_inventory: p.track_inventory,
      sku: line.variant.sku,
      price: line.price,
      compare_price: line.variant.compareCents === null ? null : money(line.variant.compareCents),
      image: null,
      image_max_size: line.product.imageMaxSize,
      variant_values: line.variant.values,
      quantity: line.quantity,
      not_fulfilled: line.notFulfilled,
      fulfilled: line.fulfilled,
      shipped: line.shipped,
      restocked: line.restocked,
    });
  }
  const warehouse = rng.pick(warehouses);
  for (const f of fulfilments) {
    store.add('fulfilment', {
      id: f.id,
      order_id: id,
      warehouse_id: warehouse ?? null,
      created_at: new Date(orderDate.getTime() + 600_000),
      updated_at: null,
    });
    for (const [lineId, quantity] of f.items)
      store.add('fulfilment_item', {
        id: store.nextId('fulfilment_item'),
        fulfilment_id: f.id,
        line_item_id: lineId,
        quantity,
      });
  }
  for (const s of shipments) {
    const sid = store.nextId('shipment');
    store.add('shipment', {
      id: sid,
      order_id: id,
      fulfilment_id: s.fulfilment,
      carrier_id: rng.pick(carriers),
      tracking_number: `TRK${String(sid).padStart(8, '0')}`,
      notify: false,
      created_at: new Date(orderDate.getTime() + 1800_000),
      updated_at: null,
    });
    for (const [lineId, quantity] of s.items)
      store.add('shipment_item', {
        id: store.nextId('shipment_item'),
        shipment_id: sid,
        line_item_id: lineId,
        quantity,
      });
  }
}

/**
 * Moves the lines' units towards the target status as fulfilments and shipments would
 * (docs/decisions.md#order-status); answers those records (their items by line id).
 */
function movesTowards(store: StoreRows, targetStatus: number, lines: (LineCounters & { id: number })[]) {
  const fulfilments: { id: number; items: Map<number, number> }[] = [];
  const shipments: { fulfilment: number; items: Map<number, number> }[] = [];
  const fulfil = (amounts: Map<number, number>) => {
    const fid = store.nextId('fulfilment');
    fulfilments.push({ id: fid, items: amounts });
    for (const line of lines) moveUnits(line, 'notFulfilled', 'fulfilled', amounts.get(line.id) ?? 0);
    return fid;
  };
  const ship = (fulfilmentId: number, amounts: Map<number, number>) => {
    shipments.push({ fulfilment: fulfilmentId, items: amounts });
    for (const line of lines) moveUnits(line, 'fulfilled', 'shipped', amounts.get(line.id) ?? 0);
  };
  const all = new Map(lines.map((l) => [l.id, l.quantity]));
  const first = lines[0];
  switch (targetStatus) {
    case 1:
      fulfil(new Map([[first.id, 1]]));
      break;
    case 2: {
      const f = fulfil(new Map([[first.id, 1]]));
      ship(f, new Map([[first.id, 1]]));
      break;
    }
    case 3:
      fulfil(all);
      break;
    case 4: {
      const f = fulfil(all);
      ship(f, new Map([[first.id, 1]]));
      break;
    }
    case 5: {
      const f = fulfil(all);
      ship(f, new Map(all));
      break;
    }
  }
  return { fulfilments, shipments };
}

/** A derived `seo_url` as the domain makes one (the title's slug, first free suffix), taken. */
function freeSlug(taken: Set<string>, title: string, fallback: string): string {
  const slug = firstFreeSlug(slugBase(title, fallback), taken);
  taken.add(slug);
  return slug;
}

function collectionRow(id: number, title: string, type: number, match: number | null, slug: string): Row {
  return {
    id,
    title,
    is_draft: false,
    description: `${title} of the store`,
    type,
    seo_title: title,
    seo_url: slug,
    seo_meta: '',
    rules_match_condition: match,
    created_at: at(id * DAY),
    updated_at: null,
    version: 1,
  };
}
