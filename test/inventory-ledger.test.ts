// The inventory ledger (docs/decisions.md#inventory-ledger): every change to the units of a variant
// in a warehouse is a movement written in the change's transaction, with its delta, the units after,
// a reason, a reference and the token that made it; adjustments are deltas, all or none, checked
// against what the caller believed (`change_from_quantity`) under the levels' row locks.
process.env.WEBHOOK_ALLOW_PRIVATE_TARGETS = 'true';

import pg from 'pg';
import { ADJUSTMENT_REASONS, MOVEMENT_REASONS } from '../src/domain/inventory-reasons.js';
import { createDatabase, startTestService, type TestResponse, type TestService } from './support/harness.js';
import { lockWaits } from './support/lock-waits.js';
import { placeOrder, stockOf } from './support/orders.js';

let service: TestService;
let databaseUrl: string;
/** Variants of products that track inventory, each with a level in every warehouse. */
let variants: number[];
beforeAll(async () => {
  databaseUrl = await createDatabase();
  service = await startTestService({ databaseUrl });
  const rows = await service.sql<{ id: number }>(
    'select v.id from product_variant v join product p on p.id = v.product_id where p.track_inventory ' +
      'and (select count(*) from inventory_level l where l.variant_id = v.id) = 3 order by v.id limit 12',
  );
  variants = rows.map((r) => r.id);
});
afterAll(() => service.stop());

const ADJUST = '/api/v1/inventory-levels/adjustments';

/**
 * `request`'s answer when a product edit deletes `variantId` while the request waits for its row:
 * the deletion holds the row until the request waits for it, then commits.
 */
async function whileVariantDeleted(variantId: number, request: () => Promise<TestResponse>): Promise<TestResponse> {
  const deleter = new pg.Client({ connectionString: databaseUrl });
  await deleter.connect();
  try {
    await deleter.query('begin');
    await deleter.query('delete from product_variant where id = $1', [variantId]);
    const answer = request();
    await lockWaits(service);
    await deleter.query('commit');
    return await answer;
  } finally {
    await deleter.end();
  }
}

interface Movement {
  id: number;
  variant_id: number;
  warehouse_id: number;
  delta: number;
  quantity_after: number;
  reason: string;
  reference: string | null;
  actor: { token_id: number; name: string } | null;
  created_at: number;
}

/** The movements of one level, newest first, through the REST list. */
async function movementsOf(warehouse: number, variant: number): Promise<Movement[]> {
  const res = await service.get(`/api/v1/inventory-movements?variant_id=${variant}&warehouse_id=${warehouse}&size=250`);
  expect(res.status).toBe(200);
  return res.body.items;
}

/** Every level whose units are not the sum of its movements' deltas (none, always). */
async function ledgerBreaks() {
  return service.sql(
    `select l.warehouse_id, l.variant_id, l.quantity, coalesce(sum(m.delta), 0)::int as moved
     from inventory_level l left join inventory_movement m
       on m.variant_id = l.variant_id and m.warehouse_id = l.warehouse_id
     group by l.id having l.quantity <> coalesce(sum(m.delta), 0)`,
  );
}

const movementCount = async () =>
  Number((await service.sql<{ n: string }>('select count(*) as n from inventory_movement'))[0].n);

describe('movements', () => {
  it('the demo store starts with one set movement per level, its whole units', async () => {
    const [row] = await service.sql<{ levels: number; starts: number; other: number }>(
      `select (select count(*) from inventory_level)::int as levels,
        (select count(*) from inventory_movement where reason = 'set' and delta = quantity_after)::int as starts,
        (select count(*) from inventory_movement where reason <> 'set')::int as other`,
    );
    expect(row.levels).toBeGreaterThan(0);
    expect(row).toEqual({ levels: row.levels, starts: row.levels, other: 0 });
    expect(await ledgerBreaks()).toEqual([]);
  });

  it('the reasons the database accepts are the domain’s', async () => {
    const [row] = await service.sql<{ definition: string }>(
      'select pg_get_constraintdef(oid) as definition from pg_constraint ' +
        "where conname = 'inventory_movement_reason_valid'",
    );
    const accepted = [...row.definition.matchAll(/'(\w+)'/g)].map((m) => m[1]);
    expect(accepted.sort()).toEqual([...MOVEMENT_REASONS].sort());
    expect(ADJUSTMENT_REASONS.every((r) => accepted.includes(r))).toBe(true);
  });

  it('records every kind of change: fulfilment created, resized and deleted, restock, set, adjustment', async () => {
    const variant = variants[0];
    const before = await stockOf(service, 1, variant);
    const order = await placeOrder(service, [{ variantId: variant, quantity: 5 }]);
    const line = order.items[0].data.id;
    const orders = `/api/v1/orders/${order.id}`;
    const created = await service.send('POST', `${orders}/fulfilments`, {
      items: [{ id: line, quantity: 3, warehouse: 1 }],
    });
    expect(created.status).toBe(201);
    const fulfilment = created.body.fulfilments[0].id;
    const resized = await service.send('PATCH', `${orders}/fulfilments/${fulfilment}`, {
      items: [{ id: line, quantity: 4 }],
    });
    expect(resized.status).toBe(200);
    expect((await service.send('DELETE', `${orders}/fulfilments/${fulfilment}`)).status).toBe(200);
    // Fulfil and ship 2, then restock them into the same warehouse.
    const again = await service.send('POST', `${orders}/fulfilments`, {
      items: [{ id: line, quantity: 2, warehouse: 1 }],
    });
    const second = again.body.fulfilments.at(-1).id;
    const shipped = await service.send('POST', `${orders}/shipments`, {
      data: { fulfilment_id: second, tracking_number: 'L1', shipping_carrier: 1 },
    });
    expect(shipped.status).toBe(201);
    const restocked = await service.graphql(
      'mutation ($o: Int!, $i: RestockInput!) { restockOrderItems(orderId: $o, input: $i) { restocks { id } } }',
      { o: order.id, i: { warehouse: 1, items: [{ id: line, quantity: 2 }] } },
    );
    expect(restocked.body.errors).toBeUndefined();
    const restock = restocked.body.data.restockOrderItems.restocks[0].id;
    const set = await service.graphql(
      'mutation ($v: Int!) { setInventoryLevel(warehouseId: 1, variantId: $v, quantity: 50) { quantity } }',
      { v: variant },
    );
    expect(set.body.data.setInventoryLevel.quantity).toBe(50);
    const adjusted = await service.send('POST', ADJUST, {
      reason: 'damaged',
      changes: [{ variant_id: variant, warehouse_id: 1, delta: -1 }],
    });
    expect(adjusted.status).toBe(200);

    const [{ id: tokenId }] = await service.sql<{ id: number }>(
      "select id from api_token where name = 'test (all scopes)' order by id desc limit 1",
    );
    const actor = { token_id: tokenId, name: 'test (all scopes)' };
    const newest = (await movementsOf(1, variant)).slice(0, 7).reverse();
    const path = `orders/${order.id}/fulfilments/${fulfilment}`;
    expect(
      newest.map(({ delta, quantity_after, reason, reference }) => ({ delta, quantity_after, reason, reference })),
    ).toEqual([
      { delta: -3, quantity_after: before - 3, reason: 'fulfilment', reference: path },
      { delta: -1, quantity_after: before - 4, reason: 'fulfilment', reference: path },
      { delta: 4, quantity_after: before, reason: 'fulfilment_deleted', reference: path },
      {
        delta: -2,
        quantity_after: before - 2,
        reason: 'fulfilment',
        reference: `orders/${order.id}/fulfilments/${second}`,
      },
      { delta: 2, quantity_after: before, reason: 'restock', reference: `orders/${order.id}/restocks/${restock}` },
      { delta: 50 - before, quantity_after: 50, reason: 'set', reference: null },
      { delta: -1, quantity_after: 49, reason: 'damaged', reference: null },
    ]);
    for (const movement of newest) {
      expect(movement).toEqual({
        ...movement,
        id: expect.any(Number),
        variant_id: variant,
        warehouse_id: 1,
        actor,
        created_at: expect.any(Number),
      });
    }
    expect(await stockOf(service, 1, variant)).toBe(49);
    expect(await ledgerBreaks()).toEqual([]);
  });

  it('lists levels and movements in the list wrapper, filtered by variant_id and warehouse_id', async () => {
    const variant = variants[1];
    const levels = await service.get(`/api/v1/inventory-levels?variant_id=${variant}&sort=warehouse_id`);
    expect(levels.status).toBe(200);
    expect(levels.body._meta).toEqual({ totalCount: 3, perPage: 20, currentPage: 1, pageCount: 1 });
    expect(levels.body.items.map((l: { warehouse_id: number }) => l.warehouse_id)).toEqual([1, 2, 3]);
    expect(levels.body.items[0]).toEqual({
      id: expect.any(Number),
      variant_id: variant,
      warehouse_id: 1,
      quantity: await stockOf(service, 1, variant),
    });
    expect(levels.body._links.self.href).toContain(`variant_id=${variant}`);
    const one = await service.get(`/api/v1/inventory-levels?variant_id=${variant}&warehouse_id=2`);
    expect(one.body.items).toHaveLength(1);
    expect(one.headers.get('link')).toContain(`variant_id=${variant}&warehouse_id=2`);
    const warehouse = await service.get('/api/v1/inventory-levels?warehouse_id=3&size=1');
    expect(warehouse.body._meta.totalCount).toBe(
      Number(
        (await service.sql<{ n: string }>('select count(*) as n from inventory_level where warehouse_id = 3'))[0].n,
      ),
    );
    const movements = await service.get(`/api/v1/inventory-movements?warehouse_id=2&variant_id=${variant}`);
    expect(movements.body.items).toEqual([
      {
        id: expect.any(Number),
        variant_id: variant,
        warehouse_id: 2,
        delta: one.body.items[0].quantity,
        quantity_after: one.body.items[0].quantity,
        reason: 'set',
        reference: null,
        actor: null,
        created_at: expect.any(Number),
      },
    ]);
    for (const bad of ['abc', '0', '-1', '1.5']) {
      const res = await service.get(`/api/v1/inventory-movements?variant_id=${bad}`);
      expect(res.status).toBe(400);
      expect(res.body.errors[0].field).toBe('variant_id');
    }
    const gql = await service.graphql(
      'query ($v: Int) { inventoryMovements(variantId: $v, warehouseId: 2, size: 5) ' +
        '{ totalCount items { variantId warehouseId delta quantityAfter reason reference actor { name } } } }',
      { v: variant },
    );
    expect(gql.body.data.inventoryMovements.items[0]).toEqual({
      variantId: variant,
      warehouseId: 2,
      delta: one.body.items[0].quantity,
      quantityAfter: one.body.items[0].quantity,
      reason: 'set',
      reference: null,
      actor: null,
    });
  });

  it('pages of levels and of movements are written by PostgreSQL', async () => {
    const rest = async (path: string) => {
      service.statements.reset();
      expect((await service.get(path)).status).toBe(200);
      return service.statements.texts.join('\n');
    };
    // The REST keys in the statement: the page's JSON was built in SQL (docs/rest.md#lists-from-postgresql).
    expect(await rest('/api/v1/inventory-levels?size=2')).toContain(`',"variant_id":'`);
    // The actor too: declared (event.resolver.ts ACTOR), null where no token made the movement.
    const movements = await rest('/api/v1/inventory-movements?size=2');
    expect(movements).toContain(`',"quantity_after":'`);
    expect(movements).toContain(`case when r0."actor_token_id" is not null`);
  });

  it('deleted variants leave by a set to zero: a product PATCH that drops one, the product deleted', async () => {
    // A tracked product of one option whose variants all hold units in some warehouse (not one the
    // other tests use).
    const [{ id }] = await service.sql<{ id: number }>(
      `select p.id from product p where p.track_inventory and p.is_multi
         and p.id not in (select product_id from product_variant where id in (${variants.map(Number).join(', ')}))
         and (select count(*) from product_option o where o.product_id = p.id) = 1
         and (select count(*) from product_variant v where v.product_id = p.id) >= 2
         and not exists (select 1 from product_variant v where v.product_id = p.id
           and not exists (select 1 from inventory_level l where l.variant_id = v.id and l.quantity > 0))
       order by p.id limit 1`,
    );
    const product = (await service.get(`/api/v1/products/${id}?expand=variants`)).body;
    const [kept, ...dropped] = product.variants;
    const levelsOf = (variant: number) =>
      service.sql<{ warehouse_id: number; quantity: number }>(
        'select warehouse_id, quantity from inventory_level where variant_id = ? and quantity > 0 ' +
          'order by warehouse_id',
        [variant],
      );
    /** Each level's last movement takes its units to zero, and the level's movements add up to zero. */
    const expectRetired = async (variant: number, levels: { warehouse_id: number; quantity: number }[]) => {
      expect(levels.length).toBeGreaterThan(0);
      expect(await levelsOf(variant)).toEqual([]);
      for (const level of levels) {
        const movements = await movementsOf(level.warehouse_id, variant);
        expect(movements[0]).toMatchObject({
          delta: -level.quantity,
          quantity_after: 0,
          reason: 'set',
          reference: `products/${id}`,
          actor: { token_id: expect.any(Number), name: expect.any(String) },
        });
        expect(movements.reduce((sum, m) => sum + m.delta, 0)).toBe(0);
      }
    };
    const droppedLevels = await Promise.all(dropped.map((v: { id: number }) => levelsOf(v.id)));
    const res = await service.send('PATCH', `/api/v1/products/${id}`, {
      variants: [{ variant: kept.variant, price: kept.price }],
    });
    expect(res.status).toBe(200);
    for (const [i, variant] of dropped.entries()) await expectRetired(variant.id, droppedLevels[i]);
    const keptLevels = await levelsOf(kept.id);
    const deleted = await service.graphql(`mutation { deleteProduct(id: ${id}) }`);
    expect(deleted.body).toEqual({ data: { deleteProduct: id }, extensions: expect.anything() });
    await expectRetired(kept.id, keptLevels);
    expect(await ledgerBreaks()).toEqual([]);
  });

  it('needs read_inventory to read them', async () => {
    const orders = await service.tokenWith(['read_orders', 'write_inventory']);
    expect((await service.get('/api/v1/inventory-movements', orders)).status).toBe(403);
    expect((await service.get('/api/v1/inventory-levels', orders)).status).toBe(403);
    const reader = await service.tokenWith(['read_inventory']);
    expect((await service.get('/api/v1/inventory-movements', reader)).status).toBe(200);
    expect((await service.send('POST', ADJUST, { reason: 'other', changes: [] }, reader)).status).toBe(403);
  });
});

describe('adjustments', () => {
  it('without change_from_quantity: adds the deltas and answers the levels, in the order of the changes', async () => {
    const [a, b] = [variants[2], variants[3]];
    const [a1, b2] = [await stockOf(service, 1, a), await stockOf(service, 2, b)];
    const res = await service.send('POST', ADJUST, {
      reason: 'received',
      reference: 'PO-1017',
      changes: [
        { variant_id: b, warehouse_id: 2, delta: 12 },
        { variant_id: a, warehouse_id: 1, delta: -3 },
      ],
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual([
      { id: expect.any(Number), variant_id: b, warehouse_id: 2, quantity: b2 + 12 },
      { id: expect.any(Number), variant_id: a, warehouse_id: 1, quantity: a1 - 3 },
    ]);
    const [movement] = await movementsOf(2, b);
    expect(movement).toMatchObject({ delta: 12, quantity_after: b2 + 12, reason: 'received', reference: 'PO-1017' });
  });

  it('with change_from_quantity that holds: applied', async () => {
    const v = variants[4];
    const now = await stockOf(service, 3, v);
    const res = await service.send('POST', ADJUST, {
      reason: 'cycle_count',
      changes: [{ variant_id: v, warehouse_id: 3, delta: -2, change_from_quantity: now }],
    });
    expect(res.status).toBe(200);
    expect(res.body[0].quantity).toBe(now - 2);
  });

  it('a stale change_from_quantity is a 412 naming the units now, and nothing changes', async () => {
    const [a, b] = [variants[5], variants[6]];
    const [a1, b1] = [await stockOf(service, 1, a), await stockOf(service, 1, b)];
    const count = await movementCount();
    // A warehouse system read b1 + 2 units; a fulfilment took 2 since.
    const res = await service.send('POST', ADJUST, {
      reason: 'cycle_count',
      changes: [
        { variant_id: a, warehouse_id: 1, delta: 1, change_from_quantity: a1 },
        { variant_id: b, warehouse_id: 1, delta: -1, change_from_quantity: b1 + 2 },
      ],
    });
    expect(res.status).toBe(412);
    expect(res.body.type).toBe('/problems/precondition-failed');
    expect(res.body.detail).toContain(`variant ${b} in warehouse 1 has ${b1} units, not ${b1 + 2}`);
    expect(res.body.detail).toContain(`not ${b1 + 2} (changes[1])`);
    expect([await stockOf(service, 1, a), await stockOf(service, 1, b)]).toEqual([a1, b1]);
    expect(await movementCount()).toBe(count);
    const gql = await service.graphql(
      'mutation ($v: Int!, $from: Int) { setInventoryLevel(warehouseId: 1, variantId: $v, quantity: 1, ' +
        'changeFromQuantity: $from) { quantity } }',
      { v: b, from: b1 + 2 },
    );
    expect(gql.body.errors[0].extensions.code).toBe('PRECONDITION_FAILED');
    expect(gql.body.errors[0].message).toContain(`has ${b1} units`);
    expect(await stockOf(service, 1, b)).toBe(b1);
    const held = await service.graphql(
      'mutation ($v: Int!, $from: Int) { setInventoryLevel(warehouseId: 1, variantId: $v, quantity: 1, ' +
        'changeFromQuantity: $from) { quantity } }',
      { v: b, from: b1 },
    );
    expect(held.body.data.setInventoryLevel.quantity).toBe(1);
    expect((await movementsOf(1, b))[0]).toMatchObject({ delta: 1 - b1, quantity_after: 1, reason: 'set' });
  });

  it('below zero is a 409 naming the change, and nothing changes: all or none across several levels', async () => {
    const [a, b, c] = [variants[7], variants[8], variants[9]];
    const before = [await stockOf(service, 2, a), await stockOf(service, 2, b), await stockOf(service, 2, c)];
    const count = await movementCount();
    const res = await service.send('POST', ADJUST, {
      reason: 'correction',
      changes: [
        { variant_id: a, warehouse_id: 2, delta: 5 },
        { variant_id: b, warehouse_id: 2, delta: -1 },
        { variant_id: c, warehouse_id: 2, delta: -(before[2] + 1) },
      ],
    });
    expect(res.status).toBe(409);
    expect(res.body.errors).toEqual([
      { field: 'changes[2].delta', message: expect.stringContaining('would leave -1') },
    ]);
    expect([await stockOf(service, 2, a), await stockOf(service, 2, b), await stockOf(service, 2, c)]).toEqual(before);
    expect(await movementCount()).toBe(count);
    const gql = await service.graphql(
      'mutation ($c: [InventoryChange!]!) { adjustInventory(changes: $c, reason: "correction") { quantity } }',
      { c: [{ variantId: c, warehouseId: 2, delta: -(before[2] + 1) }] },
    );
    expect(gql.body.errors[0].extensions.code).toBe('CONFLICT');
    const all = await service.graphql(
      'mutation ($c: [InventoryChange!]!) { adjustInventory(changes: $c, reason: "correction", reference: "count 7") ' +
        '{ variantId warehouseId quantity } }',
      {
        c: [
          { variantId: a, warehouseId: 2, delta: 5 },
          { variantId: b, warehouseId: 2, delta: -1 },
          { variantId: c, warehouseId: 2, delta: -before[2], changeFromQuantity: before[2] },
        ],
      },
    );
    expect(all.body.data.adjustInventory).toEqual([
      { variantId: a, warehouseId: 2, quantity: before[0] + 5 },
      { variantId: b, warehouseId: 2, quantity: before[1] - 1 },
      { variantId: c, warehouseId: 2, quantity: 0 },
    ]);
    expect(await movementCount()).toBe(count + 3);
    expect(await ledgerBreaks()).toEqual([]);
  });

  it('creates the level of a warehouse that had none', async () => {
    const [untracked] = await service.sql<{ id: number }>(
      'select v.id from product_variant v ' +
        'where not exists (select 1 from inventory_level l where l.variant_id = v.id) ' +
        'order by v.id limit 1',
    );
    const res = await service.send('POST', ADJUST, {
      reason: 'received',
      changes: [{ variant_id: untracked.id, warehouse_id: 1, delta: 4, change_from_quantity: 0 }],
    });
    expect(res.status).toBe(200);
    expect(res.body[0]).toMatchObject({ variant_id: untracked.id, warehouse_id: 1, quantity: 4 });
    expect(await movementsOf(1, untracked.id)).toEqual([expect.objectContaining({ delta: 4, quantity_after: 4 })]);
  });

  it('a variant deleted while the adjustment waits for it is a 422 naming it, and nothing changes', async () => {
    const [doomed] = await service.sql<{ id: number }>(
      'select v.id from product_variant v ' +
        'where not exists (select 1 from inventory_level l where l.variant_id = v.id) ' +
        'order by v.id desc limit 1',
    );
    const [{ count: movementsBefore }] = await service.sql<{ count: string }>(
      'select count(*) from inventory_movement',
    );
    // The deletion holds the variant's row while the adjustment, which found the variant, creates its level.
    const res = await whileVariantDeleted(doomed.id, () =>
      service.send('POST', ADJUST, {
        reason: 'received',
        changes: [
          { variant_id: variants[11], warehouse_id: 1, delta: 1 },
          { variant_id: doomed.id, warehouse_id: 2, delta: 3 },
        ],
      }),
    );
    expect(res.status).toBe(422);
    expect(res.body.errors.map((e: { field: string }) => e.field)).toEqual(['changes[1].variant_id']);
    const [{ count: movementsAfter }] = await service.sql<{ count: string }>('select count(*) from inventory_movement');
    expect(movementsAfter).toBe(movementsBefore);
  });

  it('a write chosen as a deadlock’s victim is run again, and answers as if it had met none', async () => {
    const [first, second] = [variants[9], variants[10]];
    const before = await stockOf(service, 1, first);
    const other = new pg.Client({ connectionString: databaseUrl });
    await other.connect();
    try {
      await other.query('begin');
      await other.query('select 1 from inventory_level where warehouse_id = 1 and variant_id = $1 for update', [
        second,
      ]);
      // The adjustment locks (1, first), then waits for (1, second), which the other transaction holds.
      const adjusted = service.send('POST', ADJUST, {
        reason: 'correction',
        changes: [
          { variant_id: first, warehouse_id: 1, delta: 1 },
          { variant_id: second, warehouse_id: 1, delta: 1 },
        ],
      });
      await lockWaits(service);
      // The other transaction now waits for (1, first): a cycle. The adjustment, waiting longest,
      // finds it first and is chosen to fail (the other one gets its row); run again, it waits
      // behind the other one instead.
      const crossing = await other
        .query('select 1 as locked from inventory_level where warehouse_id = 1 and variant_id = $1 for update', [first])
        .catch((error: { code?: string }) => error.code);
      expect(crossing).toMatchObject({ rows: [{ locked: 1 }] });
      await other.query('rollback');
      const res = await adjusted;
      expect(res.status).toBe(200);
    } finally {
      await other.end();
    }
    expect(await stockOf(service, 1, first)).toBe(before + 1);
    expect(await ledgerBreaks()).toEqual([]);
  }, 20_000);

  it('a level it creates is locked in (warehouse, variant) order: a put-back into it waits, no deadlock', async () => {
    const [variant] = await service.sql<{ id: number }>(
      'select v.id from product_variant v ' +
        'where not exists (select 1 from inventory_level l where l.variant_id = v.id) ' +
        'order by v.id limit 1 offset 1',
    );
    const created = await service.send('POST', ADJUST, {
      reason: 'received',
      changes: [{ variant_id: variant.id, warehouse_id: 1, delta: 2 }],
    });
    expect(created.status).toBe(200);
    const other = new pg.Client({ connectionString: databaseUrl });
    await other.connect();
    try {
      await other.query('begin');
      await other.query('select 1 from inventory_level where warehouse_id = 1 and variant_id = $1 for update', [
        variant.id,
      ]);
      // With a key the adjustment's mutation is not run again: a deadlock would be its answer (503).
      const adjusted = service.send(
        'POST',
        ADJUST,
        {
          reason: 'received',
          changes: [
            { variant_id: variant.id, warehouse_id: 2, delta: 1 },
            { variant_id: variant.id, warehouse_id: 1, delta: 1 },
          ],
        },
        undefined,
        { 'idempotency-key': 'new-level-in-order' },
      );
      await lockWaits(service);
      // The other transaction now puts units back into (2, variant), as a restock does: the
      // adjustment, waiting for (1, variant), must not have created (2, variant) before it.
      const putBack = await other
        .query(
          `insert into inventory_level (warehouse_id, variant_id, quantity) values (2, $1, 0)
           on conflict (warehouse_id, variant_id) do update set quantity = inventory_level.quantity returning quantity`,
          [variant.id],
        )
        .catch((error: { code?: string }) => error.code);
      expect(putBack).toMatchObject({ rows: [{ quantity: 0 }] });
      await other.query('commit');
      const res = await adjusted;
      expect(res.status).toBe(200);
      expect(res.body.map((level: { quantity: number }) => level.quantity)).toEqual([1, 3]);
    } finally {
      await other.end();
    }
    expect(await ledgerBreaks()).toEqual([]);
  }, 20_000);

  it('an order placed while its variant is deleted is refused as for one gone, not a 500', async () => {
    // A variant of no level (the deletion holds no stock row) that no other case of this file uses.
    const [doomed] = await service.sql<{ id: number }>(
      'select v.id from product_variant v ' +
        'where not exists (select 1 from inventory_level l where l.variant_id = v.id) ' +
        'order by v.id desc offset 1 limit 1',
    );
    const [customer] = await service.sql<{ id: number }>('select id from customer where erased_at is null limit 1');
    const place = () =>
      service.graphql('mutation ($input: OrderCreate!) { createOrder(input: $input) { id } }', {
        input: { customerId: customer.id, items: [{ variantId: doomed.id, quantity: 1 }] },
      });
    const placed = await place();
    expect(placed.body.errors).toBeUndefined(); // the variant is there: the order is placed
    // The placement read the variant before the deletion committed; its line meets the foreign key.
    const res = await whileVariantDeleted(doomed.id, place);
    expect(res.body.errors?.[0].extensions.code).toBe('BAD_USER_INPUT');
    expect(JSON.stringify(res.body.errors[0].extensions.fields)).toContain('variantId');
  });

  it('deleting a fulfilment whose variant is deleted meanwhile puts nothing back, as for one gone', async () => {
    // A tracked variant with stock that no other case of this file uses.
    const [{ id: doomed }] = await service.sql<{ id: number }>(
      'select v.id from product_variant v join product p on p.id = v.product_id where p.track_inventory ' +
        'and (select count(*) from inventory_level l where l.variant_id = v.id and l.quantity >= 5) = 3 ' +
        'order by v.id desc limit 1',
    );
    expect(variants).not.toContain(doomed);
    const order = await placeOrder(service, [{ variantId: doomed, quantity: 2 }]);
    const orders = `/api/v1/orders/${order.id}`;
    const created = await service.send('POST', `${orders}/fulfilments`, {
      items: [{ id: order.items[0].data.id, quantity: 2, warehouse: 1 }],
    });
    expect(created.status).toBe(201);
    const fulfilment = created.body.fulfilments[0].id;
    const [{ count: movementsBefore }] = await service.sql<{ count: string }>(
      'select count(*) from inventory_movement',
    );
    // A product edit deleting the variant holds its row while the deletion of the fulfilment puts stock back.
    const res = await whileVariantDeleted(doomed, () => service.send('DELETE', `${orders}/fulfilments/${fulfilment}`));
    expect(res.status).toBe(200);
    expect(res.body.fulfilments).toEqual([]);
    const [{ count: movementsAfter }] = await service.sql<{ count: string }>('select count(*) from inventory_movement');
    expect(movementsAfter).toBe(movementsBefore);
  });

  it('refuses bad input with 422 naming each field in REST keys', async () => {
    const v = variants[10];
    const res = await service.send('POST', ADJUST, {
      reason: 'stolen',
      changes: [
        { variant_id: v, warehouse_id: 1, delta: 0 },
        { variant_id: v, warehouse_id: 1, delta: 1, change_from_quantity: -1 },
        { variant_id: 999_999, warehouse_id: 1, delta: 1 },
      ],
    });
    expect(res.status).toBe(422);
    expect(res.body.errors.map((e: { field: string }) => e.field)).toEqual([
      'reason',
      'changes[0].delta',
      'changes[1].change_from_quantity',
      'changes[1]',
    ]);
    const unknown = await service.send('POST', ADJUST, {
      reason: 'other',
      changes: [{ variant_id: 999_999, warehouse_id: 99, delta: 1 }],
    });
    expect(unknown.status).toBe(422);
    expect(unknown.body.errors.map((e: { field: string }) => e.field)).toEqual([
      'changes[0].variant_id',
      'changes[0].warehouse_id',
    ]);
    const shape = await service.send('POST', ADJUST, { changes: [{ variant_id: v, delta: 1, extra: true }] });
    expect(shape.status).toBe(422);
    expect(shape.body.errors.map((e: { field: string }) => e.field).sort()).toEqual([
      'changes[0].extra',
      'changes[0].warehouse_id',
      'reason',
    ]);
    const none = await service.send('POST', ADJUST, { reason: 'other', changes: [] });
    expect(none.status).toBe(422);
  });

  it('Idempotency-Key: a retry answers the first answer without adjusting again; another body is a 422', async () => {
    const v = variants[11];
    const now = await stockOf(service, 1, v);
    const body = { reason: 'received', reference: 'PO-2', changes: [{ variant_id: v, warehouse_id: 1, delta: 3 }] };
    const key = { 'idempotency-key': `adjust-${v}` };
    const first = await service.send('POST', ADJUST, body, undefined, key);
    const again = await service.send('POST', ADJUST, body, undefined, key);
    expect(first.status).toBe(200);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await stockOf(service, 1, v)).toBe(now + 3);
    expect((await movementsOf(1, v)).filter((m) => m.reference === 'PO-2')).toHaveLength(1);
    const other = await service.send('POST', ADJUST, { ...body, reference: 'PO-3' }, undefined, key);
    expect(other.status).toBe(422);
    expect(await stockOf(service, 1, v)).toBe(now + 3);
    // A refusal is kept and replayed too.
    const stale = {
      reason: 'received',
      changes: [{ variant_id: v, warehouse_id: 1, delta: 1, change_from_quantity: 0 }],
    };
    const refusal = { 'idempotency-key': `stale-${v}` };
    expect((await service.send('POST', ADJUST, stale, undefined, refusal)).status).toBe(412);
    expect((await service.send('POST', ADJUST, stale, undefined, refusal)).status).toBe(412);
  });
});

describe('the inventory.adjusted event', () => {
  it('one per adjustment, in the feed for read_inventory only, with the movements', async () => {
    const v = variants[0];
    const res = await service.send('POST', ADJUST, {
      reason: 'received',
      reference: 'PO-9',
      changes: [
        { variant_id: v, warehouse_id: 2, delta: 2 },
        { variant_id: v, warehouse_id: 3, delta: 1 },
      ],
    });
    expect(res.status).toBe(200);
    const [event] = await service.sql<{ id: number; subject: string; subject_id: number; data: any }>(
      "select id, subject, subject_id, data from event where type = 'inventory.adjusted' order by id desc limit 1",
    );
    const movements = (await movementsOf(2, v)).slice(0, 1).concat((await movementsOf(3, v)).slice(0, 1));
    expect(event.subject).toBe('inventory');
    expect(event.subject_id).toBe(movements[0].id);
    expect(event.data).toEqual({
      reason: 'received',
      reference: 'PO-9',
      movements: movements.map(({ id, variant_id, warehouse_id, delta, quantity_after }) => ({
        id,
        variant_id,
        warehouse_id,
        delta,
        quantity_after,
      })),
    });
    const reader = await service.tokenWith(['read_inventory']);
    const orders = await service.tokenWith(['read_orders']);
    const feedOf = async (token: string) => {
      for (let i = 0; i < 50; i++) {
        const page = await service.get(`/api/v1/events?types=inventory.*&after=${event.id - 1}&size=250`, token);
        expect(page.status).toBe(200);
        if (page.body.items.length || token === orders) return page.body.items;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      return [];
    };
    const seen = await feedOf(reader);
    expect(seen[0]).toMatchObject({ id: event.id, type: 'inventory.adjusted', data: event.data });
    expect(await feedOf(orders)).toEqual([]);
    const gql = await service.graphql(
      `{ events(after: ${event.id - 1}, types: ["inventory.adjusted"]) { items { id } } }`,
    );
    expect(gql.body.data.events.items[0]).toEqual({ id: event.id });
  });

  it('webhooks: subscribing needs read_inventory, and an adjustment queues a delivery', async () => {
    const subscribe =
      'mutation ($e: [String!]!) { createWebhookSubscription(url: "http://127.0.0.1:9/hook", events: $e) ' +
      '{ subscription { id } } }';
    const manager = await service.tokenWith(['manage_webhooks', 'read_orders']);
    const refused = await service.graphql(subscribe, { e: ['inventory.adjusted'] }, manager);
    expect(refused.body.errors[0].extensions.code).toBe('FORBIDDEN');
    expect(refused.body.errors[0].message).toContain('read_inventory');
    const allowed = await service.tokenWith(['manage_webhooks', 'read_inventory']);
    const made = await service.graphql(subscribe, { e: ['inventory.adjusted'] }, allowed);
    expect(made.body.errors).toBeUndefined();
    const id = made.body.data.createWebhookSubscription.subscription.id;
    await service.send('POST', ADJUST, {
      reason: 'other',
      changes: [{ variant_id: variants[1], warehouse_id: 1, delta: 1 }],
    });
    const queued = await service.sql('select event_type from webhook_delivery where subscription_id = ?', [id]);
    expect(queued).toEqual([{ event_type: 'inventory.adjusted' }]);
    await service.graphql(`mutation { deleteWebhookSubscription(id: ${id}) }`);
  });
});
