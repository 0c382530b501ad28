// Fulfilments, shipments and restocks move the counters, the status and the stock exactly
// as docs/decisions.md#domain-rules says, and every refusal changes nothing.

import { startTestService, type TestService } from './support/harness.js';
import { countersOf, pickVariants, placeOrder, setStock, stockOf } from './support/orders.js';

let service: TestService;
let variants: { tracked: number; untracked: number };
beforeAll(async () => {
  service = await startTestService();
  variants = await pickVariants(service);
});
afterAll(() => service.stop());

const WAREHOUSE = 1;
const api = (orderId: number, rest = '') => `/api/v1/orders/${orderId}${rest}`;

describe('one order through every status and back', () => {
  it('walks 0 → 1 → 3 → 4 → 5 and back down by deletions, with exact counters and stock', async () => {
    await setStock(service, WAREHOUSE, variants.tracked, 10);
    const order = await placeOrder(service, [
      { variantId: variants.tracked, quantity: 3 },
      { variantId: variants.untracked, quantity: 2 },
    ]);
    const [tracked, untracked] = order.items.map((i: any) => i.data.id);
    expect(order.status).toBe(0);
    const expectState = (o: any, status: number, t: number[], u: number[], stock: number) =>
      Promise.all([
        expect(o.status).toBe(status),
        expect(countersOf(o)[tracked]).toEqual({
          quantity: 3,
          not_fulfilled: t[0],
          fulfilled: t[1],
          shipped: t[2],
          restocked: 0,
        }),
        expect(countersOf(o)[untracked]).toEqual({
          quantity: 2,
          not_fulfilled: u[0],
          fulfilled: u[1],
          shipped: u[2],
          restocked: 0,
        }),
        stockOf(service, WAREHOUSE, variants.tracked).then((s) => expect(s).toBe(stock)),
      ]);

    // 1: some units fulfilled, none shipped.
    const f1 = await service.send('POST', api(order.id, '/fulfilments'), {
      items: [{ id: tracked, quantity: 2, warehouse: WAREHOUSE }],
    });
    expect(f1.status).toBe(201);
    await expectState(f1.body, 1, [1, 2, 0], [2, 0, 0], 8);
    const fulfilmentA = f1.body.fulfilments.at(-1);
    expect(fulfilmentA).toEqual({
      id: expect.any(Number),
      warehouse: WAREHOUSE,
      items: [{ id: tracked, quantity: 2 }],
      created_at: expect.any(Number),
      updated_at: null,
    });

    // 3: every unit fulfilled.
    const f2 = await service.send('POST', api(order.id, '/fulfilments'), {
      items: [
        { id: tracked, quantity: 1, warehouse: WAREHOUSE },
        { id: untracked, quantity: 2 },
      ],
    });
    await expectState(f2.body, 3, [0, 3, 0], [0, 2, 0], 7);
    const fulfilmentB = f2.body.fulfilments.at(-1);

    // 4: some shipped (a shipment with items takes just those).
    const s1 = await service.send('POST', api(order.id, '/shipments'), {
      data: {
        fulfilment_id: fulfilmentA.id,
        tracking_number: 'TRACK-1',
        shipping_carrier: 1,
        items: [{ id: tracked, quantity: 1 }],
      },
      notify: false,
    });
    expect(s1.status).toBe(201);
    await expectState(s1.body, 4, [0, 2, 1], [0, 2, 0], 7);
    const shipment1 = s1.body.shipments.at(-1);

    // 5: every unit shipped; a shipment without items covers the rest of its fulfilment.
    const s2 = await service.send('POST', api(order.id, '/shipments'), {
      data: [
        { fulfilment_id: fulfilmentA.id, tracking_number: 'TRACK-2', shipping_carrier: 2 },
        { fulfilment_id: fulfilmentB.id, tracking_number: 'TRACK-3', shipping_carrier: 2 },
      ],
      notify: false,
    });
    await expectState(s2.body, 5, [0, 0, 3], [0, 0, 2], 7);
    expect(s2.body.shipments.map((s: any) => s.items)).toEqual([
      [{ id: tracked, quantity: 1 }],
      [{ id: tracked, quantity: 1 }],
      [
        { id: tracked, quantity: 1 },
        { id: untracked, quantity: 2 },
      ],
    ]);

    // Back down: deleting shipments returns units to fulfilled, deleting fulfilments to not fulfilled and to stock.
    const shipments = s2.body.shipments;
    let current = (await service.send('DELETE', api(order.id, `/shipments/${shipments[2].id}`))).body;
    await expectState(current, 4, [0, 1, 2], [0, 2, 0], 7);
    current = (await service.send('DELETE', api(order.id, `/shipments/${shipments[1].id}`))).body;
    await expectState(current, 4, [0, 2, 1], [0, 2, 0], 7);
    current = (await service.send('DELETE', api(order.id, `/shipments/${shipment1.id}`))).body;
    await expectState(current, 3, [0, 3, 0], [0, 2, 0], 7);
    current = (await service.send('DELETE', api(order.id, `/fulfilments/${fulfilmentB.id}`))).body;
    await expectState(current, 1, [1, 2, 0], [2, 0, 0], 8);
    const last = await service.send('DELETE', api(order.id, `/fulfilments/${fulfilmentA.id}`));
    expect(last.status).toBe(200);
    await expectState(last.body, 0, [3, 0, 0], [2, 0, 0], 10);
    expect(last.body.fulfilments).toEqual([]);
    expect(last.body.shipments).toEqual([]);
  });

  it('derives status 2 when some units are shipped and others not fulfilled', async () => {
    const order = await placeOrder(service, [{ variantId: variants.untracked, quantity: 3 }]);
    const line = order.items[0].data.id;
    const f = (await service.send('POST', api(order.id, '/fulfilments'), { items: [{ id: line, quantity: 1 }] })).body;
    const s = await service.send('POST', api(order.id, '/shipments'), {
      data: { fulfilment_id: f.fulfilments[0].id, tracking_number: 'T', shipping_carrier: 1 },
    });
    expect(s.body.status).toBe(2);
  });
});

describe('fulfilment edits', () => {
  it('PATCH a fulfilment sets absolute quantities, 0 removes a line, stock follows', async () => {
    await setStock(service, WAREHOUSE, variants.tracked, 10);
    const order = await placeOrder(service, [
      { variantId: variants.tracked, quantity: 5 },
      { variantId: variants.untracked, quantity: 2 },
    ]);
    const [tracked, untracked] = order.items.map((i: any) => i.data.id);
    const f = (
      await service.send('POST', api(order.id, '/fulfilments'), {
        items: [
          { id: tracked, quantity: 2, warehouse: WAREHOUSE },
          { id: untracked, quantity: 1 },
        ],
      })
    ).body.fulfilments[0];
    expect(await stockOf(service, WAREHOUSE, variants.tracked)).toBe(8);
    const grown = await service.send('PATCH', api(order.id, `/fulfilments/${f.id}`), {
      items: [{ id: tracked, quantity: 4 }],
    });
    expect(grown.status).toBe(200);
    expect(countersOf(grown.body)[tracked]).toMatchObject({ not_fulfilled: 1, fulfilled: 4 });
    expect(countersOf(grown.body)[untracked]).toMatchObject({ not_fulfilled: 1, fulfilled: 1 });
    expect(await stockOf(service, WAREHOUSE, variants.tracked)).toBe(6);
    const shrunk = await service.send('PATCH', api(order.id, '/fulfilments'), [
      {
        id: f.id,
        items: [
          { id: tracked, quantity: 1 },
          { id: untracked, quantity: 0 },
        ],
      },
    ]);
    expect(shrunk.status).toBe(200);
    expect(shrunk.body.fulfilments[0].items).toEqual([{ id: tracked, quantity: 1 }]);
    expect(countersOf(shrunk.body)[untracked]).toMatchObject({ not_fulfilled: 2, fulfilled: 0 });
    expect(await stockOf(service, WAREHOUSE, variants.tracked)).toBe(9);
    expect(shrunk.body.fulfilments[0].updated_at).toEqual(expect.any(Number));
  });

  it('a bulk PATCH moving units between fulfilments is taken in any order of the body', async () => {
    const [other] = await service.sql<{ id: number }>(
      'select v.id from product_variant v join product p on p.id = v.product_id ' +
        'where not p.track_inventory and v.id <> ? order by v.id limit 1',
      [variants.untracked],
    );
    const order = await placeOrder(service, [
      { variantId: variants.untracked, quantity: 2 },
      { variantId: other.id, quantity: 1 },
    ]);
    const [l, m] = order.items.map((i: any) => i.data.id);
    const post = async (items: object[]) =>
      (await service.send('POST', api(order.id, '/fulfilments'), { items })).body.fulfilments.at(-1).id;
    const f1 = await post([
      { id: l, quantity: 1 },
      { id: m, quantity: 1 },
    ]);
    const f2 = await post([{ id: l, quantity: 1 }]);
    // Every unit of l is fulfilled: f2 takes f1's only as f1 gives it back, listed after it.
    const moved = await service.send('PATCH', api(order.id, '/fulfilments'), [
      { id: f2, items: [{ id: l, quantity: 2 }] },
      { id: f1, items: [{ id: l, quantity: 0 }] },
    ]);
    expect(moved.status).toBe(200);
    const items = Object.fromEntries(moved.body.fulfilments.map((f: any) => [f.id, f.items]));
    expect(items).toEqual({ [f1]: [{ id: m, quantity: 1 }], [f2]: [{ id: l, quantity: 2 }] });
    expect(countersOf(moved.body)[l]).toMatchObject({ not_fulfilled: 0, fulfilled: 2 });
    // More than the line has is still a 409, naming the entry that asked for it.
    const over = await service.send('PATCH', api(order.id, '/fulfilments'), [
      { id: f1, items: [{ id: l, quantity: 1 }] },
    ]);
    expect(over.status).toBe(409);
    expect(over.body.errors.map((e: { field: string }) => e.field)).toEqual(['[0].items[0]']);
  });

  it('moves a fulfilment and its stock to another warehouse', async () => {
    await setStock(service, 1, variants.tracked, 10);
    await setStock(service, 2, variants.tracked, 10);
    const order = await placeOrder(service, [{ variantId: variants.tracked, quantity: 3 }]);
    const line = order.items[0].data.id;
    const f = (
      await service.send('POST', api(order.id, '/fulfilments'), { items: [{ id: line, quantity: 3, warehouse: 1 }] })
    ).body.fulfilments[0];
    const moved = await service.send('PATCH', api(order.id, `/fulfilments/${f.id}`), { warehouse: 2 });
    expect(moved.body.fulfilments[0].warehouse).toBe(2);
    expect([await stockOf(service, 1, variants.tracked), await stockOf(service, 2, variants.tracked)]).toEqual([10, 7]);
    // Once shipped, its units have left the warehouse: moving it is a 409 naming the warehouse.
    const shipped = await service.send('POST', api(order.id, '/shipments'), {
      data: { fulfilment_id: f.id, tracking_number: 'MOVE1', shipping_carrier: 1 },
    });
    expect(shipped.status).toBe(201);
    const refused = await service.send('PATCH', api(order.id, `/fulfilments/${f.id}`), { warehouse: 1 });
    expect(refused.status).toBe(409);
    expect(refused.body.errors.map((e: { field: string }) => e.field)).toEqual(['warehouse']);
  });
});

describe('fulfilments and the catalogue changing under them', () => {
  it('PATCH that gives a fulfilment its warehouse may add a tracked line in the same body', async () => {
    await setStock(service, WAREHOUSE, variants.tracked, 10);
    const order = await placeOrder(service, [
      { variantId: variants.untracked, quantity: 1 },
      { variantId: variants.tracked, quantity: 2 },
    ]);
    const [untracked, tracked] = order.items.map((i: any) => i.data.id);
    const created = await service.send('POST', api(order.id, '/fulfilments'), {
      items: [{ id: untracked, quantity: 1 }],
    });
    expect(created.status).toBe(201);
    const f = created.body.fulfilments[0];
    expect(f.warehouse).toBeNull();
    const patched = await service.send('PATCH', api(order.id, `/fulfilments/${f.id}`), {
      warehouse: WAREHOUSE,
      items: [{ id: tracked, quantity: 2 }],
    });
    expect(patched.status).toBe(200);
    expect(patched.body.fulfilments[0]).toMatchObject({ warehouse: WAREHOUSE });
    expect(await stockOf(service, WAREHOUSE, variants.tracked)).toBe(8);
  });

  it('names the item whose warehouse differs from the others of one fulfilment', async () => {
    await setStock(service, 1, variants.tracked, 10);
    const order = await placeOrder(service, [
      { variantId: variants.tracked, quantity: 1 },
      { variantId: variants.untracked, quantity: 1 },
    ]);
    const [tracked, untracked] = order.items.map((i: any) => i.data.id);
    const res = await service.send('POST', api(order.id, '/fulfilments'), {
      items: [
        { id: tracked, quantity: 1, warehouse: 1 },
        { id: untracked, quantity: 1, warehouse: 2 },
      ],
    });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual([
      { field: 'items[1].warehouse', message: expect.stringContaining('one warehouse') },
    ]);
  });

  it('fulfils a line whose variant was deleted since the order, moving no stock', async () => {
    // A variant of its own, deleted after the order (as a product edit renaming its option value does).
    const [{ id: variant }] = await service.sql<{ id: number }>(
      `insert into product_variant (product_id, option_values, price, sku, is_default, ignore, position)
        select product_id, array['Gone'], price, 'GONE-1', false, false, 99 from product_variant where id = ?
        returning id`,
      [variants.tracked],
    );
    await setStock(service, WAREHOUSE, variant, 5);
    const order = await placeOrder(service, [{ variantId: variant, quantity: 2 }]);
    const line = order.items[0].data.id;
    await service.sql('delete from product_variant where id = ?', [variant]);
    const res = await service.send('POST', api(order.id, '/fulfilments'), {
      items: [{ id: line, quantity: 2, warehouse: WAREHOUSE }],
    });
    expect(res.status).toBe(201);
    expect(countersOf(res.body)[line]).toMatchObject({ not_fulfilled: 0, fulfilled: 2 });
    // Deleted again: nothing to put back, and no error.
    const fulfilment = res.body.fulfilments[0].id;
    expect((await service.send('DELETE', api(order.id, `/fulfilments/${fulfilment}`))).status).toBe(200);
  });
});

describe('refusals change nothing', () => {
  let order: any;
  let tracked: number;
  let untracked: number;
  let fulfilment: any;
  beforeAll(async () => {
    await setStock(service, WAREHOUSE, variants.tracked, 4);
    order = await placeOrder(service, [
      { variantId: variants.tracked, quantity: 6 },
      { variantId: variants.untracked, quantity: 2 },
    ]);
    [tracked, untracked] = order.items.map((i: any) => i.data.id);
    const res = await service.send('POST', api(order.id, '/fulfilments'), {
      items: [
        { id: tracked, quantity: 2, warehouse: WAREHOUSE },
        { id: untracked, quantity: 1 },
      ],
    });
    fulfilment = res.body.fulfilments[0];
    await service.send('POST', api(order.id, '/shipments'), {
      data: {
        fulfilment_id: fulfilment.id,
        tracking_number: 'S1',
        shipping_carrier: 1,
        items: [{ id: tracked, quantity: 1 }],
      },
    });
  });

  const cases: [string, string, string, number, string | null, () => unknown][] = [
    [
      'fulfil more than is left',
      'POST',
      '/fulfilments',
      409,
      null,
      () => ({ items: [{ id: untracked, quantity: 2 }] }),
    ],
    [
      'fulfil more than the warehouse holds',
      'POST',
      '/fulfilments',
      409,
      null,
      () => ({ items: [{ id: tracked, quantity: 3, warehouse: WAREHOUSE }] }),
    ],
    [
      'a quantity of 0',
      'POST',
      '/fulfilments',
      422,
      'items[0].quantity',
      () => ({ items: [{ id: untracked, quantity: 0 }] }),
    ],
    [
      'a negative quantity',
      'POST',
      '/fulfilments',
      422,
      'items[0].quantity',
      () => ({ items: [{ id: untracked, quantity: -1 }] }),
    ],
    [
      'a fractional quantity',
      'POST',
      '/fulfilments',
      422,
      'items[0].quantity',
      () => ({ items: [{ id: untracked, quantity: 1.5 }] }),
    ],
    [
      'a line of another order',
      'POST',
      '/fulfilments',
      422,
      'items[0].id',
      () => ({ items: [{ id: 1, quantity: 1 }] }),
    ],
    [
      'a tracked product without warehouse',
      'POST',
      '/fulfilments',
      422,
      'items[0].warehouse',
      () => ({ items: [{ id: tracked, quantity: 1 }] }),
    ],
    [
      'an unknown warehouse',
      'POST',
      '/fulfilments',
      422,
      'items[0].warehouse',
      () => ({ items: [{ id: tracked, quantity: 1, warehouse: 999 }] }),
    ],
    ['no items', 'POST', '/fulfilments', 422, 'items', () => ({ items: [] })],
    [
      'an unknown body field',
      'POST',
      '/fulfilments',
      422,
      'rush',
      () => ({ items: [{ id: untracked, quantity: 1 }], rush: true }),
    ],
    [
      'reduce below what is shipped',
      'PATCH',
      '/fulfilments/F',
      409,
      null,
      () => ({ items: [{ id: tracked, quantity: 0 }] }),
    ],
    [
      'move a fulfilment to an unknown warehouse',
      'PATCH',
      '/fulfilments/F',
      422,
      'warehouse',
      () => ({ warehouse: 999 }),
    ],
    [
      'leave a fulfilment without lines',
      'PATCH',
      '/fulfilments',
      422,
      '[0].items',
      () => [
        {
          id: fulfilment.id,
          items: [
            { id: tracked, quantity: 0 },
            { id: untracked, quantity: 0 },
          ],
        },
      ],
    ],
    [
      'an unknown fulfilment in a bulk body',
      'PATCH',
      '/fulfilments',
      422,
      '[0].id',
      () => [{ id: 99999, items: [{ id: tracked, quantity: 1 }] }],
    ],
    ['delete a fulfilment that has shipments', 'DELETE', '/fulfilments/F', 409, null, () => undefined],
    [
      'ship more than the fulfilment holds',
      'POST',
      '/shipments',
      409,
      null,
      () => ({
        data: {
          fulfilment_id: fulfilment.id,
          tracking_number: 'X',
          shipping_carrier: 1,
          items: [{ id: tracked, quantity: 2 }],
        },
      }),
    ],
    [
      'ship from an unknown fulfilment',
      'POST',
      '/shipments',
      422,
      'data.fulfilment_id',
      () => ({ data: { fulfilment_id: 99999, tracking_number: 'X', shipping_carrier: 1 } }),
    ],
    [
      'ship with a deleted carrier',
      'POST',
      '/shipments',
      422,
      'data.shipping_carrier',
      () => ({ data: { fulfilment_id: fulfilment.id, tracking_number: 'X', shipping_carrier: 6 } }),
    ],
    [
      'ship with an unknown carrier',
      'POST',
      '/shipments',
      422,
      'data[0].shipping_carrier',
      () => ({ data: [{ fulfilment_id: fulfilment.id, tracking_number: 'X', shipping_carrier: 999 }] }),
    ],
    [
      'ship a line the fulfilment does not hold',
      'POST',
      '/shipments',
      422,
      'data.items[0].id',
      () => ({
        data: {
          fulfilment_id: fulfilment.id,
          tracking_number: 'X',
          shipping_carrier: 1,
          items: [{ id: 1, quantity: 1 }],
        },
      }),
    ],
    [
      'ship without a tracking number',
      'POST',
      '/shipments',
      422,
      'data.tracking_number',
      () => ({ data: { fulfilment_id: fulfilment.id, shipping_carrier: 1 } }),
    ],
    [
      'update an unknown shipment',
      'PATCH',
      '/shipments',
      422,
      'data[0].id',
      () => ({ data: [{ id: 99999, tracking_number: 'Y' }] }),
    ],
  ];

  it.each(cases)('%s: %s %s → %d', async (_name, method, path, status, field, body) => {
    const before = (await service.get(api(order.id))).body;
    const stockBefore = await stockOf(service, WAREHOUSE, variants.tracked);
    const res = await service.send(method, api(order.id, path.replace('F', String(fulfilment.id))), body());
    expect(res.status).toBe(status);
    expect(res.headers.get('content-type')).toMatch(/application\/problem\+json/);
    if (field) expect(res.body.errors.map((e: { field: string }) => e.field)).toContain(field);
    expect((await service.get(api(order.id))).body).toEqual(before);
    expect(await stockOf(service, WAREHOUSE, variants.tracked)).toBe(stockBefore);
  });

  it('answers 404 for a fulfilment or shipment of another order, or a missing order', async () => {
    expect((await service.send('DELETE', api(order.id, '/fulfilments/1'))).status).toBe(404);
    expect((await service.send('DELETE', api(order.id, '/shipments/1'))).status).toBe(404);
    expect((await service.send('POST', api(99999, '/fulfilments'), { items: [{ id: 1, quantity: 1 }] })).status).toBe(
      404,
    );
    expect((await service.get(api(99999, '/fulfilments'))).status).toBe(404);
  });
});

describe('shipment edits, lists and restocks', () => {
  it('changes tracking number and carrier, with tracking_url following the carrier', async () => {
    const order = await placeOrder(service, [{ variantId: variants.untracked, quantity: 1 }]);
    const line = order.items[0].data.id;
    const f = (await service.send('POST', api(order.id, '/fulfilments'), { items: [{ id: line, quantity: 1 }] })).body
      .fulfilments[0];
    const s = (
      await service.send('POST', api(order.id, '/shipments'), {
        data: { fulfilment_id: f.id, tracking_number: 'OLD', shipping_carrier: 1 },
      })
    ).body.shipments[0];
    const single = await service.send('PATCH', api(order.id, `/shipments/${s.id}`), {
      data: { tracking_number: 'NEW', shipping_carrier: 2 },
    });
    expect(single.status).toBe(200);
    const [carrier] = await service.sql<{ url: string }>('select url from shipping_carrier where id = 2');
    expect(single.body.shipments[0]).toMatchObject({
      tracking_number: 'NEW',
      shipping_carrier: 2,
      tracking_url: `${carrier.url}NEW`,
      updated_at: expect.any(Number),
    });
    const bulk = await service.send('PATCH', api(order.id, '/shipments'), {
      data: [{ id: s.id, tracking_number: 'NEWER' }],
    });
    expect(bulk.body.shipments[0].tracking_number).toBe('NEWER');
    const list = await service.get(api(order.id, '/shipments'));
    expect(list.body.items.map((x: any) => x.id)).toEqual([s.id]);
    expect(list.body._meta.totalCount).toBe(1);
    const fulfilments = await service.get(api(order.id, '/fulfilments'));
    expect(fulfilments.body.items).toEqual([expect.objectContaining({ id: f.id, items: [{ id: line, quantity: 1 }] })]);
  });

  it('restocks shipped units into a warehouse (GraphQL), and then a shipment of them cannot be undone', async () => {
    await setStock(service, 3, variants.tracked, 0);
    await setStock(service, WAREHOUSE, variants.tracked, 5);
    const order = await placeOrder(service, [{ variantId: variants.tracked, quantity: 2 }]);
    const line = order.items[0].data.id;
    const f = (
      await service.send('POST', api(order.id, '/fulfilments'), {
        items: [{ id: line, quantity: 2, warehouse: WAREHOUSE }],
      })
    ).body.fulfilments[0];
    const s = (
      await service.send('POST', api(order.id, '/shipments'), {
        data: { fulfilment_id: f.id, tracking_number: 'R', shipping_carrier: 1 },
      })
    ).body.shipments[0];
    const restock = 'mutation ($o: Int!, $i: RestockInput!) { restockOrderItems(orderId: $o, input: $i) { status } }';
    const unknown = await service.graphql(restock, {
      o: order.id,
      i: { warehouse: 999, items: [{ id: line, quantity: 2 }] },
    });
    expect(unknown.body.errors[0].extensions.fields.map((e: { field: string }) => e.field)).toEqual(['warehouse']);
    expect(countersOf((await service.get(api(order.id))).body)[line]).toEqual({
      quantity: 2,
      not_fulfilled: 0,
      fulfilled: 0,
      shipped: 2,
      restocked: 0,
    });
    const res = await service.graphql(
      'mutation ($o: Int!, $i: RestockInput!) { restockOrderItems(orderId: $o, input: $i) ' +
        '{ status restocks { warehouse items { id quantity } } } }',
      {
        o: order.id,
        i: { warehouse: 3, items: [{ id: line, quantity: 2 }] },
      },
    );
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.restockOrderItems).toEqual({
      status: 'SHIPPED',
      restocks: [{ warehouse: 3, items: [{ id: line, quantity: 2 }] }],
    });
    expect(await stockOf(service, 3, variants.tracked)).toBe(2);
    const o = (await service.get(api(order.id))).body;
    expect(countersOf(o)[line]).toEqual({ quantity: 2, not_fulfilled: 0, fulfilled: 0, shipped: 0, restocked: 2 });
    expect(o.restocks[0]).toEqual({
      id: expect.any(Number),
      warehouse: 3,
      items: [{ id: line, quantity: 2 }],
      created_at: expect.any(Number),
    });
    expect((await service.send('DELETE', api(order.id, `/shipments/${s.id}`))).status).toBe(409);
    const tooMany = await service.graphql(
      `mutation ($o: Int!) { restockOrderItems(orderId: $o, ` +
        `input: { warehouse: 3, items: [{ id: ${line}, quantity: 1 }] }) { id } }`,
      { o: order.id },
    );
    expect(tooMany.body.errors[0].extensions.code).toBe('CONFLICT');
  });

  it('creates warehouses and carriers, and sets inventory levels (GraphQL)', async () => {
    const res = await service.graphql(
      'mutation { createWarehouse(title: "Annex") { id title } ' +
        'createShippingCarrier(title: "Bikes", url: "https://bikes.example/t/") { id isDeleted } }',
    );
    expect(res.body.data.createWarehouse.title).toBe('Annex');
    expect(res.body.data.createShippingCarrier.isDeleted).toBe(false);
    const bad = await service.graphql('mutation { createShippingCarrier(title: "", url: "ftp://x") { id } }');
    expect(bad.body.errors[0].extensions.fields.map((f: any) => f.field)).toEqual(['title', 'url']);
    const level = await service.graphql(
      `mutation { setInventoryLevel(warehouseId: ${res.body.data.createWarehouse.id}, ` +
        `variantId: ${variants.tracked}, quantity: 7) { quantity variantId } }`,
    );
    expect(level.body.data.setInventoryLevel).toEqual({ quantity: 7, variantId: variants.tracked });
    const negative = await service.graphql(
      `mutation { setInventoryLevel(warehouseId: 1, variantId: ${variants.tracked}, quantity: -1) { quantity } }`,
    );
    expect(negative.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
  });

  it('writes a shipment e-mail to the outbox only with notify, in the same transaction', async () => {
    const order = await placeOrder(service, [{ variantId: variants.untracked, quantity: 2 }]);
    const line = order.items[0].data.id;
    const f = (await service.send('POST', api(order.id, '/fulfilments'), { items: [{ id: line, quantity: 2 }] })).body
      .fulfilments[0];
    const count = async () =>
      (
        await service.sql<{ n: number }>(
          "select count(*)::int as n from outbox_message where payload->>'orderId' = ?",
          [String(order.id)],
        )
      )[0].n;
    await service.send('POST', api(order.id, '/shipments'), {
      data: { fulfilment_id: f.id, tracking_number: 'Q', shipping_carrier: 1, items: [{ id: line, quantity: 1 }] },
    });
    expect(await count()).toBe(0);
    const refused = await service.send('POST', api(order.id, '/shipments'), {
      data: { fulfilment_id: f.id, tracking_number: 'Q', shipping_carrier: 1, items: [{ id: line, quantity: 5 }] },
      notify: true,
    });
    expect(refused.status).toBe(409);
    expect(await count()).toBe(0);
    await service.send('POST', api(order.id, '/shipments'), {
      data: { fulfilment_id: f.id, tracking_number: 'Q2', shipping_carrier: 1 },
      notify: true,
    });
    expect(await count()).toBe(1);
    const [message] = await service.sql<{ payload: any }>(
      "select payload from outbox_message where payload->>'orderId' = ?",
      [String(order.id)],
    );
    expect(message.payload).toMatchObject({
      to: order.email,
      orderId: order.id,
      trackingNumber: 'Q2',
      event: 'shipped',
    });
  });
});

describe('conflicts name the part of the request, as the client sent it', () => {
  it('in a single-object shipment, a bulk fulfilment PATCH, and for quantities far beyond what is left', async () => {
    const order = await placeOrder(service, [{ variantId: variants.untracked, quantity: 2 }]);
    const line = order.items[0].data.id;
    const f = (await service.send('POST', api(order.id, '/fulfilments'), { items: [{ id: line, quantity: 1 }] })).body
      .fulfilments[0];
    const ship = await service.send('POST', api(order.id, '/shipments'), {
      data: { fulfilment_id: f.id, tracking_number: 'Z', shipping_carrier: 1, items: [{ id: line, quantity: 2 }] },
    });
    expect(ship.status).toBe(409);
    expect(ship.body.errors).toEqual([
      { field: 'data.items[0]', message: expect.stringContaining('holds 1 unshipped') },
    ]);
    const bulk = await service.send('PATCH', api(order.id, '/fulfilments'), [
      { id: f.id, items: [{ id: line, quantity: 5 }] },
    ]);
    expect(bulk.status).toBe(409);
    expect(bulk.body.errors[0].field).toBe('[0].items[0]');
    const huge = await service.send('POST', api(order.id, '/fulfilments'), {
      items: [{ id: line, quantity: 1_000_001 }],
    });
    expect(huge.status).toBe(409);
    expect(huge.body.errors[0].field).toBe('items[0]');
  });

  it('refuses returning stock beyond what a level can hold with a 409, not a 500', async () => {
    await setStock(service, WAREHOUSE, variants.tracked, 5);
    const order = await placeOrder(service, [{ variantId: variants.tracked, quantity: 2 }]);
    const line = order.items[0].data.id;
    const f = (
      await service.send('POST', api(order.id, '/fulfilments'), {
        items: [{ id: line, quantity: 2, warehouse: WAREHOUSE }],
      })
    ).body.fulfilments[0];
    await service.sql('update inventory_level set quantity = 2147483646 where warehouse_id = ? and variant_id = ?', [
      WAREHOUSE,
      variants.tracked,
    ]);
    const res = await service.send('DELETE', api(order.id, `/fulfilments/${f.id}`));
    expect(res.status).toBe(409);
    expect(await stockOf(service, WAREHOUSE, variants.tracked)).toBe(2147483646);
    const tooMuch = await service.graphql(
      `mutation { setInventoryLevel(warehouseId: 1, variantId: ${variants.tracked}, ` +
        `quantity: 2147483647) { quantity } }`,
    );
    expect(tooMuch.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
  });
});
