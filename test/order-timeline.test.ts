// docs/decisions.md#order-timeline: every change to an order is an event written in the change's own
// transaction, with the token that made it; GET /orders/{id}/events and Order.events read them.
import { updateOrderNotes } from '../src/domain/order-edit.js';
import { inTransaction } from '../src/domain/transaction.js';
import { startTestService, type TestService } from './support/harness.js';
import { pickVariants, placeOrder, setStock } from './support/orders.js';

let service: TestService;
let clerk: string;
let clerkId: number;
let variants: { tracked: number; untracked: number };
beforeAll(async () => {
  service = await startTestService();
  variants = await pickVariants(service);
  const made = await service.graphql(
    'mutation { createApiToken(name: "warehouse clerk", scopes: ["read_orders", "write_orders"]) ' +
      '{ secret token { id } } }',
  );
  clerk = made.body.data.createApiToken.secret;
  clerkId = made.body.data.createApiToken.token.id;
});
afterAll(() => service.stop());

const WAREHOUSE = 1;
const api = (orderId: number, rest = '') => `/api/v1/orders/${orderId}${rest}`;
const eventCount = async (orderId: number) =>
  (await service.sql<{ n: number }>('select count(*)::int as n from event where order_id = ?', [orderId]))[0].n;

it('lists each change in order, with the token name as actor and the changed record in REST shape', async () => {
  await setStock(service, WAREHOUSE, variants.tracked, 10);
  const order = await placeOrder(service, [{ variantId: variants.tracked, quantity: 3 }]);
  const line = order.items[0].data.id;

  const f = await service.send(
    'POST',
    api(order.id, '/fulfilments'),
    { items: [{ id: line, quantity: 2, warehouse: WAREHOUSE }] },
    clerk,
  );
  expect(f.status).toBe(201);
  const fulfilment = f.body.fulfilments[0];
  expect(
    (
      await service.send(
        'PATCH',
        api(order.id, `/fulfilments/${fulfilment.id}`),
        { items: [{ id: line, quantity: 3 }] },
        clerk,
      )
    ).status,
  ).toBe(200);
  const g = await service.send('POST', api(order.id, '/fulfilments'), { items: [] }, clerk); // refused: no event
  expect(g.status).toBe(422);
  const s = await service.send(
    'POST',
    api(order.id, '/shipments'),
    {
      data: {
        fulfilment_id: fulfilment.id,
        tracking_number: 'TL-1',
        shipping_carrier: 1,
        items: [{ id: line, quantity: 1 }],
      },
    },
    clerk,
  );
  expect(s.status).toBe(201);
  const restock = await service.graphql(
    'mutation ($o: Int!, $i: RestockInput!) { restockOrderItems(orderId: $o, input: $i) { id } }',
    { o: order.id, i: { warehouse: WAREHOUSE, items: [{ id: line, quantity: 1 }] } },
    clerk,
  );
  expect(restock.body.errors).toBeUndefined();
  const second = await service.send('POST', api(order.id, '/fulfilments'), { items: [] }, clerk);
  expect(second.status).toBe(422);
  // A fulfilment without shipments, created then deleted.
  const order2 = await placeOrder(service, [{ variantId: variants.untracked, quantity: 1 }]);
  const f2 = (
    await service.send(
      'POST',
      api(order2.id, '/fulfilments'),
      { items: [{ id: order2.items[0].data.id, quantity: 1 }] },
      clerk,
    )
  ).body.fulfilments[0];
  expect((await service.send('DELETE', api(order2.id, `/fulfilments/${f2.id}`), undefined, clerk)).status).toBe(200);
  expect((await service.send('PATCH', api(order.id, '/address'), { shipping: { city: 'Lyon' } }, clerk)).status).toBe(
    200,
  );

  const res = await service.get(`${api(order.id, '/events')}?sort=id&size=50`, clerk);
  expect(res.status).toBe(200);
  expect(res.body._meta).toMatchObject({ totalCount: 6, currentPage: 1 });
  const [created, ...changes] = res.body.items;
  expect(created).toMatchObject({
    type: 'order.created',
    actor: { name: 'test (all scopes)' },
    data: { id: order.id, status: 0, items: [{ id: line, quantity: 3 }] },
  });
  const types = changes.map((e: any) => e.type);
  expect(types).toEqual([
    'fulfilment.created',
    'fulfilment.updated',
    'shipment.created',
    'restock.created',
    'order.address_changed',
  ]);
  for (const event of changes) expect(event.actor).toEqual({ token_id: clerkId, name: 'warehouse clerk' });
  const ids = res.body.items.map((e: any) => e.id);
  expect([...ids].sort((a, b) => a - b)).toEqual(ids);
  expect(changes[0].data).toEqual({
    order_id: order.id,
    order_status: 1,
    id: fulfilment.id,
    warehouse: WAREHOUSE,
    items: [{ id: line, quantity: 2 }],
    created_at: fulfilment.created_at,
    updated_at: null,
  });
  expect(changes[1].data).toMatchObject({ id: fulfilment.id, items: [{ id: line, quantity: 3 }], order_status: 3 });
  expect(changes[2].data).toMatchObject({
    fulfilment_id: fulfilment.id,
    tracking_number: 'TL-1',
    tracking_url: expect.stringMatching(/TL-1$/),
    shipping_carrier: 1,
    items: [{ id: line, quantity: 1 }],
  });
  expect(changes[3].data).toMatchObject({ warehouse: WAREHOUSE, items: [{ id: line, quantity: 1 }] });
  // The clerk lacks read_customers: the address edit shows without the address (see below).
  expect(changes[4].data).toEqual({ id: order.id });
  const withCustomers = await service.get(`${api(order.id, '/events')}?sort=id&size=50`);
  expect(withCustomers.body.items[5].data.address.shipping.city).toBe('Lyon');

  const other = await service.get(`${api(order2.id, '/events')}?sort=id`, clerk);
  expect(other.body.items.map((e: any) => [e.type, e.data.id])).toEqual([
    ['order.created', order2.id],
    ['fulfilment.created', f2.id],
    ['fulfilment.deleted', f2.id],
  ]);
  expect(other.body.items[0].actor.name).toBe('test (all scopes)');

  // The usual list conventions: default newest first, pages, sort whitelist.
  const newest = await service.get(`${api(order.id, '/events')}?size=2`, clerk);
  expect(newest.body.items.map((e: any) => e.type)).toEqual(['order.address_changed', 'restock.created']);
  expect(newest.body._meta).toMatchObject({ totalCount: 6, pageCount: 3, perPage: 2 });
  expect((await service.get(`${api(order.id, '/events')}?sort=data`, clerk)).status).toBe(400);
  expect((await service.get(`${api(999999, '/events')}`, clerk)).status).toBe(404);

  // GraphQL: Order.events.
  const gql = await service.graphql(
    'query ($id: Int!) { order(id: $id) { events { type actor { tokenId name } data } } }',
    { id: order.id },
    clerk,
  );
  expect(gql.body.data.order.events.map((e: any) => e.type)).toEqual(['order.created', ...types]);
  expect(gql.body.data.order.events[1].data).toEqual(changes[0].data);
  expect(gql.body.data.order.events[1].actor).toEqual({ tokenId: clerkId, name: 'warehouse clerk' });
});

it("shows a customer's contact details in events only to a token with read_customers", async () => {
  const order = await placeOrder(service, [{ variantId: variants.untracked, quantity: 1 }], 1);
  const [before, after] = await service.sql<{ email: string; first_name: string; last_name: string }>(
    'select email, first_name, last_name from customer where id in (1, 2) order by id',
  );
  expect((await service.send('PATCH', api(order.id, '/address'), { phone: '+33 1 23 45 67 89' })).status).toBe(200);
  const moved = await service.send('PATCH', api(order.id, '/customer'), { id: 2 });
  expect(moved.status).toBe(200);

  const ordersOnly = await service.tokenWith(['read_orders']);
  // The order shows its current customer only, to read_orders as to anyone.
  const shown = await service.get(api(order.id), ordersOnly);
  expect(shown.body.email).toBe(after.email);
  expect(shown.text).not.toContain(before.email);

  const timeline = await service.get(`${api(order.id, '/events')}?sort=id`, ordersOnly);
  expect(timeline.status).toBe(200);
  expect(timeline.body.items.map((e: any) => [e.type, e.data])).toEqual([
    ['order.created', expect.objectContaining({ id: order.id, customer: { id: 1 } })],
    ['order.address_changed', { id: order.id }],
    ['order.customer_changed', { id: order.id, customer: { id: 2 }, previous_customer_id: 1 }],
  ]);
  const both = 'query ($id: Int!) { order(id: $id) { events { data } } orderEvents(orderId: $id) { items { data } } }';
  const gql = await service.graphql(both, { id: order.id }, ordersOnly);
  expect(gql.body.errors).toBeUndefined();
  for (const text of [timeline.text, JSON.stringify(gql.body)]) {
    const contacts = [before.email, before.first_name, before.last_name, after.email, '+33 1 23 45 67 89'];
    for (const contact of [...contacts, '"email"', '"address"']) {
      expect(text).not.toContain(contact);
    }
  }

  // With read_customers, the events are as recorded: the previous customer's e-mail and phone too.
  const withCustomers = await service.tokenWith(['read_orders', 'read_customers']);
  const full = await service.get(`${api(order.id, '/events')}?sort=id`, withCustomers);
  const [created, addressed, changed] = full.body.items;
  expect(created.data).toMatchObject({ email: before.email, address: expect.any(Object) });
  expect(addressed.data.address.phone).toBe('+33 1 23 45 67 89');
  const { email, first_name, last_name } = after;
  expect(changed.data).toMatchObject({ email, customer: { id: 2, email, first_name, last_name } });
  const events = 'query ($id: Int!) { order(id: $id) { events { data } } }';
  const gqlFull = await service.graphql(events, { id: order.id }, withCustomers);
  expect(gqlFull.body.data.order.events.map((e: any) => e.data)).toEqual(full.body.items.map((e: any) => e.data));
});

it('needs read_orders to read a timeline', async () => {
  const order = await placeOrder(service, [{ variantId: variants.untracked, quantity: 1 }]);
  const products = await service.tokenWith(['read_products']);
  expect((await service.get(api(order.id, '/events'), products)).status).toBe(403);
});

it('leaves no event for a refused request', async () => {
  const order = await placeOrder(service, [{ variantId: variants.untracked, quantity: 1 }]);
  const line = order.items[0].data.id;
  const before = await eventCount(order.id);
  const reader = await service.tokenWith(['read_orders']);
  expect(
    (await service.send('POST', api(order.id, '/fulfilments'), { items: [{ id: line, quantity: 1 }] }, reader)).status,
  ).toBe(403);
  expect(
    (await service.send('POST', api(order.id, '/fulfilments'), { items: [{ id: line, quantity: 5 }] }, clerk)).status,
  ).toBe(409);
  expect((await service.send('PATCH', api(order.id, '/address'), { shipping: { country: 'XX' } }, clerk)).status).toBe(
    422,
  );
  expect((await service.send('PATCH', api(order.id), { notes: 'x' }, clerk, { 'if-match': '"999"' })).status).toBe(412);
  expect(await eventCount(order.id)).toBe(before);
});

it('writes events in the change’s transaction: a change rolled back after its event leaves neither', async () => {
  const order = await placeOrder(service, [{ variantId: variants.untracked, quantity: 1 }]);
  const before = await eventCount(order.id);
  const em = service.orm.em.fork();
  await expect(
    inTransaction(em, async (tx) => {
      await updateOrderNotes(tx, { tokenId: clerkId, name: 'warehouse clerk' }, order.id, { notes: 'rolled back' });
      await tx.flush();
      // The event row exists inside the transaction…
      const [{ n }] = await tx
        .getConnection()
        .execute<{ n: number }[]>(
          'select count(*)::int as n from event where order_id = ?',
          [order.id],
          'all',
          tx.getTransactionContext(),
        );
      expect(n).toBe(before + 1);
      throw new Error('fails after the change and its event were written');
    }),
  ).rejects.toThrow('fails after');
  // …and neither it nor the change survives the rollback.
  expect(await eventCount(order.id)).toBe(before);
  expect((await service.get(api(order.id))).body.notes).toBeNull();
});

it('records product, customer and collection changes too', async () => {
  const before = (await service.sql<{ id: number }>('select coalesce(max(id), 0) as id from event'))[0].id;
  expect((await service.send('PATCH', '/api/v1/products/3', { title: 'Renamed in the timeline test' })).status).toBe(
    200,
  );
  expect((await service.send('PATCH', '/api/v1/customers/4', { first_name: 'Ada' })).status).toBe(200);
  const created = await service.send('POST', '/api/v1/collections', {
    title: 'Timeline',
    type: 0,
    seo_title: 'Timeline',
    seo_url: 'timeline',
    match_products: [3],
  });
  expect(created.status).toBe(201);
  const rows = await service.sql<{ type: string; subject: string; subject_id: number; actor_name: string; data: any }>(
    'select type, subject, subject_id, actor_name, data from event where id > ? order by id',
    [before],
  );
  expect(rows.map((r) => [r.type, r.subject, r.subject_id])).toEqual([
    ['product.updated', 'product', 3],
    ['customer.updated', 'customer', 4],
    ['collection.created', 'collection', created.body.id],
  ]);
  expect(rows[0].data).toEqual({ id: 3, title: 'Renamed in the timeline test' });
  expect(rows[1].data).toEqual({ id: 4, first_name: 'Ada' });
  expect(rows.every((r) => r.actor_name === 'test (all scopes)')).toBe(true);
});

it('is documented in the OpenAPI document, with the webhooks it feeds', async () => {
  const doc = (await service.get('/api/v1/openapi.json', null)).body;
  const events = doc.paths['/api/v1/orders/{id}/events'].get;
  expect(events['x-scopes']).toEqual(['read_orders']);
  expect(events.parameters.map((p: any) => p.name)).toEqual(expect.arrayContaining(['id', 'page', 'size', 'sort']));
  expect(doc.components.schemas.Event.properties).toHaveProperty('actor');
  expect(Object.keys(doc.webhooks)).toEqual(
    expect.arrayContaining(['fulfilment.created', 'shipment.created', 'order.address_changed']),
  );
  expect(doc.webhooks['shipment.created'].post.parameters.map((p: any) => p.name)).toEqual([
    'webhook-id',
    'webhook-timestamp',
    'webhook-signature',
  ]);
});
