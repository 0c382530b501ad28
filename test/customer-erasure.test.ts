// Erasing a customer on request (docs/decisions.md#erasing-a-customer): the person's e-mail, names,
// addresses and phone leave every table of the database (searched over every text and JSON column),
// the orders' lines, amounts and statuses stay, the feed, exports, searches, webhooks, stored
// answers and bulk operations' lines and results no longer show them; erasing again answers the same
// 200 and a later update is a 409.
process.env.WEBHOOK_ALLOW_PRIVATE_TARGETS = 'true';

import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { WebhookWorker } from '../src/webhooks/webhook-worker.js';
import { bulkResults as resultsOf, uploadBulk } from './support/bulk.js';
import { createDatabase, startTestService, type TestService } from './support/harness.js';
import { lockWaits } from './support/lock-waits.js';
import { pickVariants } from './support/orders.js';

let service: TestService;
let databaseUrl: string;
let receiver: Server;
let hookUrl: string;
const delivered: string[] = [];
beforeAll(async () => {
  databaseUrl = await createDatabase();
  service = await startTestService({ databaseUrl, bulk: { pollMs: 50 } });
  receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      delivered.push(body);
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
});
afterAll(async () => {
  receiver.closeAllConnections();
  await new Promise<void>((resolve) => receiver.close(() => resolve()));
  await service.stop();
});

/** The person: values found nowhere in the demo store, so any trace of them is theirs. */
const PERSON = {
  email: 'zelda.quimbyworth@example.com',
  firstName: 'Zeldarine',
  lastName: 'Quimbyworth',
  street: '77 Xylophone Lane',
  suite: 'Flat Zq9',
  city: 'Quuxmoor',
  zip: 'QX9 7ZZ',
  company: 'Quimbyworth Holdings',
  phone: '+44 7700 905577',
  orderStreet: '12 Zanzibar Quay',
  orderPhone: '+44 7700 900123',
  ip: '198.51.100.77',
  landing: 'https://shop.example/zq-landing',
  referrer: 'https://ref.example/zq-referrer',
  notes: 'Zq prefers morning delivery',
  last4: '9731',
};
const TRACES = Object.values(PERSON);

/** Every text, character, array and JSON column of every table: where a trace of the person could be. */
async function tracesInDatabase(needles: string[]): Promise<string[]> {
  const columns = await service.sql<{ table_name: string; column_name: string }>(
    `select c.table_name, c.column_name from information_schema.columns c
     join information_schema.tables t on t.table_schema = c.table_schema and t.table_name = c.table_name
     where c.table_schema = 'public' and t.table_type = 'BASE TABLE'
       and c.data_type in ('text', 'character varying', 'character', 'json', 'jsonb', 'ARRAY')
     order by 1, 2`,
  );
  expect(columns.length).toBeGreaterThan(50);
  const patterns = needles.map((n) => `%${n.toLowerCase()}%`);
  const found: string[] = [];
  for (const { table_name, column_name } of columns) {
    // Identifiers from information_schema, quoted; the patterns are bound.
    const [row] = await service.sql<{ n: string }>(
      `select count(*) as n from "${table_name}" where lower("${column_name}"::text) like any(?::text[])`,
      [`{${patterns.map((p) => `"${p}"`).join(',')}}`],
    );
    if (Number(row.n)) found.push(`${table_name}.${column_name}: ${row.n}`);
  }
  return found;
}

const address = (street: string) => ({
  firstName: PERSON.firstName,
  lastName: PERSON.lastName,
  company: PERSON.company,
  street,
  suite: PERSON.suite,
  city: PERSON.city,
  country: 'GB',
  zip: PERSON.zip,
});

/** The same block as REST writes it (its keys in snake case). */
const restAddress = (street: string) =>
  Object.fromEntries(
    Object.entries(address(street)).map(([key, value]) => [key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`), value]),
  );

async function graphql(query: string, variables?: Record<string, unknown>) {
  const res = await service.graphql(query, variables);
  if (res.body.errors) throw new Error(JSON.stringify(res.body.errors));
  return res.body.data;
}

async function placeOrderFor(customerId: number, variantId: number, quantity = 3): Promise<number> {
  const data = await graphql('mutation ($input: OrderCreate!) { createOrder(input: $input) { id } }', {
    input: {
      customerId,
      items: [{ variantId, quantity }],
      shippingAddress: address(PERSON.orderStreet),
      phone: PERSON.orderPhone,
      ip: PERSON.ip,
      conversion: { landingPage: PERSON.landing, referrer: PERSON.referrer },
      payment: { type: 'Visa', last4: PERSON.last4 },
      tax: '1.50',
    },
  });
  return data.createOrder.id;
}

/** What erasure must not change of an order: its lines, amounts, statuses and records. */
const kept = (order: any) => ({
  id: order.id,
  status: order.status,
  paid: order.paid,
  total: order.total,
  tax: order.tax,
  refunded: order.refunded,
  shipping: order.shipping,
  items: order.items,
  fulfilments: order.fulfilments,
  shipments: order.shipments.map(({ updated_at: _, ...s }: any) => s),
  restocks: order.restocks,
  order_date: order.order_date,
});

it('erases a customer with orders, fulfilments and shipments from every table; orders keep their figures', async () => {
  const { untracked } = await pickVariants(service);
  const created = await graphql('mutation ($input: CustomerCreate!) { createCustomer(input: $input) { id } }', {
    input: {
      email: PERSON.email,
      firstName: PERSON.firstName,
      lastName: PERSON.lastName,
      notes: PERSON.notes,
      address: { shipping: address(PERSON.street), billing: address(PERSON.street), phone: PERSON.phone },
    },
  });
  const id: number = created.createCustomer.id;
  await service.sql("insert into customer_payment_method (customer_id, type, last4) values (?, 'Visa', ?)", [
    id,
    PERSON.last4,
  ]);
  // A webhook subscriber of customers and orders: its deliveries are queued, not sent (no worker runs here).
  const subscribed = await graphql(
    'mutation ($u: String!, $e: [String!]!) { createWebhookSubscription(url: $u, events: $e) { subscription { id } } }',
    { u: hookUrl, e: ['customer.created', 'customer.updated', 'order.created', 'order.address_changed'] },
  );
  const subscription = subscribed.createWebhookSubscription.subscription.id;

  // Three orders: one fulfilled and shipped with an e-mail (sent), one shipped with an e-mail not yet
  // sent, one edited with Idempotency-Keys; a fourth placed and then moved to another customer; and
  // another customer's order moved to this one.
  const orders = [
    await placeOrderFor(id, untracked),
    await placeOrderFor(id, untracked),
    await placeOrderFor(id, untracked),
  ];
  for (const [i, order] of orders.slice(0, 2).entries()) {
    const fulfilled = await service.send('POST', `/api/v1/orders/${order}/fulfilments`, {
      items: [{ id: (await service.get(`/api/v1/orders/${order}`)).body.items[0].data.id, quantity: 2 }],
    });
    expect(fulfilled.status).toBe(201);
    const shipped = await service.send('POST', `/api/v1/orders/${order}/shipments`, {
      data: { fulfilment_id: fulfilled.body.fulfilments[0].id, tracking_number: `ZQ${i}`, shipping_carrier: 1 },
      notify: true,
    });
    expect(shipped.status).toBe(201);
  }
  await service.sql("update outbox_message set sent_at = now(), last_error = ? where payload->>'orderId' = ?", [
    `550 ${PERSON.email} bounced once`,
    String(orders[0]),
  ]);
  const key = { 'idempotency-key': `erase-${id}` };
  const addressPatch = { shipping: { street: `${PERSON.orderStreet} (rear)` } };
  expect(
    (await service.send('PATCH', `/api/v1/orders/${orders[2]}/address`, addressPatch, undefined, key)).status,
  ).toBe(200);
  const notesPatch = { notes: `${PERSON.notes}, again` };
  expect((await service.send('PATCH', `/api/v1/customers/${id}`, notesPatch, undefined, key)).status).toBe(200);
  const [other] = await service.sql<{ id: number; email: string }>(
    'select id, email from customer where id <> ? order by id limit 1',
    [id],
  );
  const movedAway = await placeOrderFor(id, untracked);
  expect((await service.send('PATCH', `/api/v1/orders/${movedAway}/customer`, { id: other.id })).status).toBe(200);
  const [othersOrder] = await service.sql<{ id: number }>(
    'select id from orders where customer_id = ? order by id limit 1',
    [other.id],
  );
  expect((await service.send('PATCH', `/api/v1/orders/${othersOrder.id}/customer`, { id })).status).toBe(200);
  const theirs = [...orders, othersOrder.id];
  // A bulk operation of REST writes setting its details and an order's, and one giving another
  // customer its e-mail (refused, quoting it); one of GraphQL variables setting its name and phone.
  const shipping = restAddress(PERSON.street);
  const orderPatch = { shipping: restAddress(PERSON.orderStreet), phone: PERSON.orderPhone };
  const restLines = [
    { method: 'PATCH', path: `/customers/${id}`, body: { first_name: PERSON.firstName, address: { shipping } } },
    { method: 'PATCH', path: `/orders/${orders[2]}/address?fields=id,email,address`, body: orderPatch },
    { method: 'PATCH', path: `/customers/${other.id}`, body: { email: PERSON.email } },
  ];
  const restBulk = (await uploadBulk(service, '', restLines)).body.id;
  expect((await resultsOf(service, restBulk)).lines.map((line) => line.status)).toEqual([200, 200, 409]);
  const variables = [
    { id, input: { lastName: PERSON.lastName, address: { phone: PERSON.phone } } },
    { id: other.id, input: { notes: 'kept for the other' } },
  ];
  const m = `mutation ($id: Int!, $input: CustomerPatch!) {
    updateCustomer(id: $id, input: $input) { id email lastName notes addresses { phone } } }`;
  const u = (await uploadBulk(service, '/uploads', variables)).body.id;
  const run = 'mutation ($m: String!, $u: Int!) { bulkOperationRunMutation(mutation: $m, uploadId: $u) { id } }';
  const gqlBulk = (await graphql(run, { m, u })).bulkOperationRunMutation.id;
  const gqlResults = await resultsOf(service, gqlBulk);
  expect(gqlResults.text).toContain(PERSON.phone);
  // A GraphQL bulk line setting metafields on the person (and on another customer, kept).
  await graphql(
    `mutation { createMetafieldDefinition(ownerType: CUSTOMER, namespace: "crm", key: "note",
      type: "single_line_text_field", name: "Note") { id } }`,
  );
  const entries = [
    {
      m: [
        { ownerType: 'CUSTOMER', ownerId: id, namespace: 'crm', key: 'note', value: `${PERSON.lastName} notes` },
        { ownerType: 'CUSTOMER', ownerId: other.id, namespace: 'crm', key: 'note', value: 'kept for the other' },
      ],
    },
  ];
  const metafieldsUpload = (await uploadBulk(service, '/uploads', entries)).body.id;
  const setting = 'mutation ($m: [MetafieldsSetInput!]!) { metafieldsSet(metafields: $m) { key value } }';
  const metaBulk = (await graphql(run, { m: setting, u: metafieldsUpload })).bulkOperationRunMutation.id;
  expect((await resultsOf(service, metaBulk)).text).toContain(`${PERSON.lastName} notes`);

  const before = await Promise.all(theirs.map(async (o) => (await service.get(`/api/v1/orders/${o}`)).body));
  const movedBefore = (await service.get(`/api/v1/orders/${movedAway}`)).body;
  expect(await tracesInDatabase(TRACES)).not.toEqual([]);

  const erased = await service.send('POST', `/api/v1/customers/${id}/erase`);
  expect(erased.status).toBe(200);
  expect(erased.body).toMatchObject({
    id,
    email: `erased-${id}@invalid`,
    first_name: 'Erased',
    last_name: 'Erased',
    address: [],
    payment: [{ type: 'Visa', last4: null }],
    notes: null,
    erased_at: expect.any(Number),
  });
  const byId = (a: number, b: number) => a - b;
  expect([...erased.body.orders].sort(byId)).toEqual([...theirs].sort(byId));

  // No trace in any table; only the anonymous values.
  expect(await tracesInDatabase(TRACES)).toEqual([]);
  // The bulk operations' results show the erased record and order, and the refusal the erased address.
  const anonymous = `erased-${id}@invalid`;
  const restAfter = await resultsOf(service, restBulk);
  const gqlAfter = await resultsOf(service, gqlBulk);
  expect(TRACES.filter((t) => `${restAfter.text}${gqlAfter.text}`.toLowerCase().includes(t.toLowerCase()))).toEqual([]);
  expect((await resultsOf(service, metaBulk)).text).toContain('kept for the other');
  expect(restAfter.lines[0].body).toMatchObject({ id, email: anonymous, first_name: 'Erased', address: [] });
  const erasedBlock = { first_name: 'Erased', last_name: 'Erased', company: null, street: null, zip: null };
  const erasedOrder = { shipping: expect.objectContaining(erasedBlock), billing: expect.any(Object), phone: null };
  expect(restAfter.lines[1].body).toEqual({ id: orders[2], email: anonymous, address: erasedOrder });
  expect(restAfter.lines[2]).toMatchObject({ status: 409, body: { detail: expect.stringContaining(anonymous) } });
  const gqlErased = { id, email: anonymous, lastName: 'Erased', notes: null, addresses: [{ phone: null }] };
  expect(gqlAfter.lines).toEqual([{ line: 1, data: { updateCustomer: gqlErased } }, gqlResults.lines[1]]);
  // The orders keep their lines, amounts, statuses and records; their personal fields are the anonymous values.
  for (const [i, order] of theirs.entries()) {
    const after = (await service.get(`/api/v1/orders/${order}`)).body;
    expect(kept(after)).toEqual(kept(before[i]));
    const block = { first_name: 'Erased', last_name: 'Erased', company: null, street: null, suite: null };
    expect(after).toMatchObject({
      email: `erased-${id}@invalid`,
      customer: { id, email: `erased-${id}@invalid`, first_name: 'Erased', last_name: 'Erased' },
      address: { shipping: block, billing: block, phone: null },
      ip: '',
      conversion: { landing_page: '', referrer: '' },
    });
  }
  // The order it placed and that was moved to another customer keeps that customer's contact details; only
  // where and how the person placed it (IP, conversion data, card digits) is erased.
  const movedAfter = (await service.get(`/api/v1/orders/${movedAway}`)).body;
  expect(movedBefore.email).toBe(other.email);
  expect(movedAfter).toEqual({
    ...movedBefore,
    ip: '',
    conversion: { landing_page: '', referrer: '' },
    payment: { ...movedBefore.payment, last4: null },
    updated_at: expect.any(Number),
  });

  // Each changed order has its order.updated in its timeline (and so in the feed and webhooks), with
  // the erased values in REST keys: an integration mirroring orders from events learns of the change.
  const lastUpdate = async (order: number) => {
    const res = await service.get(`/api/v1/orders/${order}/events?sort=-id&size=1`);
    expect(res.status).toBe(200);
    return res.body.items[0];
  };
  const placedErased = { ip: '', conversion: { landing_page: '', referrer: '' }, payment: { last4: null } };
  expect(await lastUpdate(orders[0])).toMatchObject({
    type: 'order.updated',
    data: {
      id: orders[0],
      ...placedErased,
      email: `erased-${id}@invalid`,
      address: { shipping: { first_name: 'Erased', street: null }, billing: { last_name: 'Erased' }, phone: null },
    },
  });
  const movedUpdate = await lastUpdate(movedAway);
  expect(movedUpdate).toMatchObject({ type: 'order.updated', data: { id: movedAway, ...placedErased } });
  expect(movedUpdate.data).not.toHaveProperty('email');

  // The e-mail not yet sent is gone; the one sent keeps its record with the anonymous address.
  const mail = await service.sql<{ order: string; to: string; sent: boolean; last_error: string | null }>(
    `select payload->>'orderId' as order, payload->>'to' as to, sent_at is not null as sent, last_error
     from outbox_message where payload->>'orderId' in (?, ?) order by id`,
    [String(orders[0]), String(orders[1])],
  );
  expect(mail).toEqual([{ order: String(orders[0]), to: `erased-${id}@invalid`, sent: true, last_error: null }]);

  // The feed shows the events without the personal data, and customer.erased with the id alone.
  const feed = await service.get('/api/v1/events?size=250&types=customer.*,order.*');
  expect(feed.status).toBe(200);
  expect(TRACES.filter((t) => feed.text.toLowerCase().includes(t.toLowerCase()))).toEqual([]);
  const erasedEvents = await service.sql<{ data: unknown }>(
    "select data from event where type = 'customer.erased' and subject_id = ?",
    [id],
  );
  expect(erasedEvents).toEqual([{ data: { id } }]);
  // Exports and searches no longer find the person.
  for (const path of ['/api/v1/customers/export', '/api/v1/orders/export']) {
    const res = await service.get(path);
    expect(res.status).toBe(200);
    expect(TRACES.filter((t) => res.text.toLowerCase().includes(t.toLowerCase()))).toEqual([]);
  }
  const searches: [string, unknown][] = [
    ['/api/v1/customers/search', { email: PERSON.email }],
    ['/api/v1/customers/search', { last_name: PERSON.lastName }],
    ['/api/v1/customers/search', { 'address.shipping.street': PERSON.street }],
    ['/api/v1/orders/search', { email: PERSON.email }],
    ['/api/v1/orders/search', { full_name: [`${PERSON.firstName} ${PERSON.lastName}`] }],
    ['/api/v1/orders/search', { ip: PERSON.ip }],
  ];
  for (const [path, body] of searches) {
    const res = await service.send('POST', path, body);
    expect({ path, body, status: res.status, found: res.headers.get('x-pagination-total-count') }).toEqual({
      path,
      body,
      status: 200,
      found: '0',
    });
  }
  // The webhook deliveries still pending go out without the personal data.
  await service.sql('update webhook_delivery set next_attempt_at = now() where subscription_id = ?', [subscription]);
  const worker = new WebhookWorker(service.orm);
  expect(await worker.runOnce()).toBeGreaterThan(3);
  await worker.stop();
  expect(delivered.length).toBeGreaterThan(3);
  expect(TRACES.filter((t) => delivered.join('\n').toLowerCase().includes(t.toLowerCase()))).toEqual([]);
  // A stored Idempotency-Key answer replays the erased record, never the old one.
  const replay = await service.send('PATCH', `/api/v1/customers/${id}`, notesPatch, undefined, key);
  expect(replay.headers.get('idempotent-replayed')).toBe('true');
  expect(replay.body).toMatchObject({ email: `erased-${id}@invalid`, first_name: 'Erased', notes: null });

  // Erasing again answers the same 200; any later update is a 409.
  const again = await service.send('POST', `/api/v1/customers/${id}/erase`);
  expect(again.status).toBe(200);
  expect(again.body).toEqual(erased.body);
  expect(again.headers.get('etag')).toBe(erased.headers.get('etag'));
  const patch = await service.send('PATCH', `/api/v1/customers/${id}`, { first_name: 'Zelda' });
  expect(patch.status).toBe(409);
  expect(patch.body.detail).toContain('erased');
  const gql = await service.graphql(`mutation { updateCustomer(id: ${id}, input: { notes: "x" }) { id } }`);
  expect(gql.body.errors[0].extensions.code).toBe('CONFLICT');
  // Nor do its orders take new personal data, nor can it be given orders.
  const edit = await service.send('PATCH', `/api/v1/orders/${orders[0]}/address`, { phone: PERSON.orderPhone });
  expect(edit.status).toBe(409);
  const given = await service.send('PATCH', `/api/v1/orders/${movedAway}/customer`, { id });
  expect(given.status).toBe(409);
  expect(given.body.errors.map((e: { field: string }) => e.field)).toEqual(['id']);
  const placed = await service.graphql('mutation ($input: OrderCreate!) { createOrder(input: $input) { id } }', {
    input: { customerId: id, items: [{ variantId: untracked, quantity: 1 }] },
  });
  expect(placed.body.errors[0].extensions).toMatchObject({ code: 'CONFLICT', fields: [{ field: 'customerId' }] });
  // Its orders still ship, without an e-mail: the erased address (`.invalid`) reaches no one.
  const lineOf = async (order: number) => (await service.get(`/api/v1/orders/${order}`)).body.items[0].data.id;
  const fulfilment = await service.send('POST', `/api/v1/orders/${orders[2]}/fulfilments`, {
    items: [{ id: await lineOf(orders[2]), quantity: 1 }],
  });
  expect(fulfilment.status).toBe(201);
  const shipment = await service.send('POST', `/api/v1/orders/${orders[2]}/shipments`, {
    data: { fulfilment_id: fulfilment.body.fulfilments[0].id, tracking_number: 'ZQ9', shipping_carrier: 1 },
    notify: true,
  });
  expect(shipment.status).toBe(201);
  const queued = await service.sql("select id from outbox_message where payload->>'orderId' = ?", [String(orders[2])]);
  expect(queued).toEqual([]);
  // The bulk lines as erasure left them are still lines: run again, the customer's and its order's meet
  // the erased customer's 409; the other customer's is refused the erased address (no e-mail address).
  const stored = await service.sql<{ input: unknown }>(
    'select l.input from bulk_line l join bulk_operation o on o.upload_id = l.upload_id where o.id = ? order by l.line',
    [restBulk],
  );
  expect(stored[0].input).toMatchObject({ body: { first_name: 'Erased', address: { shipping: erasedBlock } } });
  const inputs = stored.map((row) => row.input);
  const rerun = (await uploadBulk(service, '', inputs)).body.id;
  const rerunResults = (await resultsOf(service, rerun)).lines;
  expect(rerunResults.map((line) => line.status)).toEqual([409, 409, 422]);
  expect(rerunResults[0].body.detail).toContain('erased');
  expect(await tracesInDatabase(TRACES)).toEqual([]);
}, 60_000);

// An address is erased as a whole: another customer's that holds it, or that it holds, is theirs.
it('erases the person’s address in copies, never a longer or shorter one of another customer', async () => {
  const mk = async (email: string) =>
    (await graphql(`mutation { createCustomer(input: { email: "${email}", firstName: "A" }) { id } }`)).createCustomer
      .id as number;
  const ann = await mk('ann.ofmany@x.example');
  const others = [
    'joann.ofmany@x.example',
    "o'ann.ofmany@x.example",
    'ann.ofmany@x.example.org',
    'ann.ofmany@x.examples',
  ];
  const otherIds = await Promise.all(others.map(mk));
  // Stored answers of the others, each quoting a neighbour of Ann's address; one of Ann's as notes.
  const key = (i: number) => ({ 'idempotency-key': `erase-neighbours-${i}` });
  for (const [i, other] of otherIds.entries()) {
    const notes = `was ${others[i]}`;
    expect((await service.send('PATCH', `/api/v1/customers/${other}`, { notes }, undefined, key(i))).status).toBe(200);
  }
  const quoting = { notes: "Contact:\nann.ofmany@x.example. Was mail='ann.ofmany@x.example'" };
  expect((await service.send('PATCH', `/api/v1/customers/${otherIds[0]}`, quoting, undefined, key(9))).status).toBe(
    200,
  );
  const bulk = (await uploadBulk(service, '', [{ method: 'PATCH', path: `/customers/${otherIds[0]}`, body: {} }])).body
    .id;
  await resultsOf(service, bulk);

  expect((await service.send('POST', `/api/v1/customers/${ann}/erase`)).status).toBe(200);
  for (const [i, other] of otherIds.entries()) {
    const replay = await service.send(
      'PATCH',
      `/api/v1/customers/${other}`,
      { notes: `was ${others[i]}` },
      undefined,
      key(i),
    );
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body).toMatchObject({ email: others[i], notes: `was ${others[i]}` });
  }
  const replay = await service.send('PATCH', `/api/v1/customers/${otherIds[0]}`, quoting, undefined, key(9));
  expect(replay.body.notes).toBe(`Contact:\nerased-${ann}@invalid. Was mail='erased-${ann}@invalid'`);
  expect((await resultsOf(service, bulk)).lines[0].body.email).toBe(others[0]);
}, 30_000);

// An address the customer had before (its events hold it) is the person's too.
it('erases an earlier address of the customer from stored answers', async () => {
  const made = await graphql('mutation { createCustomer(input: { email: "olda.ddress@x.example" }) { id } }');
  const id = made.createCustomer.id as number;
  const key = { 'idempotency-key': 'earlier-address' };
  const taken = await service.send('PATCH', '/api/v1/customers/1', { email: 'olda.ddress@x.example' }, undefined, key);
  expect(taken.status).toBe(409);
  expect(taken.text).toContain('olda.ddress@x.example');
  expect((await service.send('PATCH', `/api/v1/customers/${id}`, { email: 'newa.ddress@x.example' })).status).toBe(200);
  expect((await service.send('POST', `/api/v1/customers/${id}/erase`)).status).toBe(200);
  const replay = await service.send('PATCH', '/api/v1/customers/1', { email: 'olda.ddress@x.example' }, undefined, key);
  expect(replay.status).toBe(409);
  expect(replay.headers.get('idempotent-replayed')).toBe('true');
  expect(replay.text).not.toContain('olda.ddress');
  expect(await tracesInDatabase(['olda.ddress'])).toEqual([]);
}, 30_000);

// A runner reads its lines a chunk ahead: a line read before an erasure must not run with what the
// erasure took out of it (the person's address given to another customer once it is free).
it('a running bulk operation reads its lines again after an erasure, never running the erased data', async () => {
  const email = 'rerun.raceperson@example.com';
  const person = (await graphql(`mutation { createCustomer(input: { email: "${email}" }) { id } }`)).createCustomer.id;
  const made = (address: string) =>
    graphql(`mutation { createCustomer(input: { email: "${address}" }) { id } }`).then((d) => d.createCustomer.id);
  const held = await made('held.raceperson@example.com');
  const other = await made('other.raceperson@example.com');
  // Line 1 waits on a customer this test holds, after the runner read both lines.
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  await client.query('begin');
  await client.query('select id from customer where id = $1 for update', [held]);
  const op = (
    await uploadBulk(service, '', [
      { method: 'PATCH', path: `/customers/${held}`, body: { notes: 'first' } },
      { method: 'PATCH', path: `/customers/${other}`, body: { email } },
    ])
  ).body.id;
  await lockWaits(service);
  // The erasure waits for the runner's transaction under way, then takes the address out of line 2.
  const erased = service.send('POST', `/api/v1/customers/${person}/erase`);
  await lockWaits(service, 2);
  await client.query('rollback');
  await client.end();
  expect((await erased).status).toBe(200);
  const lines = (await resultsOf(service, op)).lines;
  expect(lines[0].status).toBe(200);
  expect(lines[1].status).toBe(422);
  expect(await service.sql('select id from customer where lower(email) = ?', [email])).toEqual([]);
}, 30_000);

// Lines kept before uploads refused such text (src/bulk/uploads.ts).
it('erases while kept bulk lines hold text PostgreSQL’s JSON functions cannot read', async () => {
  const made = await graphql(
    'mutation { createCustomer(input: { email: "ursula.nullbyte@example.com", firstName: "Ursula" }) { id } }',
  );
  const id = made.createCustomer.id;
  const [{ token }] = await service.sql<{ token: number }>('select min(id) as token from api_token');
  const [{ upload }] = await service.sql<{ upload: number }>(
    `insert into bulk_upload (token_id, form, lines, bytes, created_at)
      values (?, 'rest', 2, 0, now()) returning id as upload`,
    [token],
  );
  // As uploads stored them: a NUL in one line, an unpaired surrogate beside the person's e-mail in the other.
  const lines = [
    `{"method":"PATCH","path":"/customers/1","body":{"note":"a\\u0000b"}}`,
    `{"method":"PATCH","path":"/customers/${id}","body":{"email":"ursula.nullbyte@example.com","note":"\\ud800"}}`,
  ];
  for (const [i, input] of lines.entries()) {
    await service.sql('insert into bulk_line (upload_id, line, input) values (?, ?, ?::json)', [upload, i + 1, input]);
  }
  const erased = await service.send('POST', `/api/v1/customers/${id}/erase`);
  expect(erased.status).toBe(200);
  const kept = await service.sql<{ input: string }>(
    'select input::text as input from bulk_line where upload_id = ? order by line',
    [upload],
  );
  expect(kept[0].input).toBe(lines[0]);
  expect(kept[1].input).not.toContain('ursula.nullbyte');
}, 30_000);

it('eraseCustomer in GraphQL: the customer as erased; a customer without orders too; 404; the scope', async () => {
  const made = await graphql(
    'mutation { createCustomer(input: { email: "quentin.xarvis@example.com", firstName: "Quentin" }) { id } }',
  );
  const id = made.createCustomer.id;
  const erased = await graphql(`mutation { eraseCustomer(id: ${id}) { id email firstName lastName erasedAt } }`);
  expect(erased.eraseCustomer).toEqual({
    id,
    email: `erased-${id}@invalid`,
    firstName: 'Erased',
    lastName: 'Erased',
    erasedAt: expect.any(Number),
  });
  expect(await tracesInDatabase(['quentin.xarvis', 'Quentin'])).toEqual([]);
  const missing = await service.send('POST', '/api/v1/customers/999999/erase');
  expect(missing.status).toBe(404);
  const reader = await service.tokenWith(['read_customers']);
  expect((await service.send('POST', `/api/v1/customers/${id}/erase`, undefined, reader)).status).toBe(403);
}, 30_000);

it('eraseCustomer compares an expected version (If-Match) for a first erasure; again answers the same', async () => {
  const made = await graphql(
    'mutation { createCustomer(input: { email: "ulla.yorick@example.com", firstName: "Ulla" }) { id version } }',
  );
  const { id, version } = made.createCustomer;
  const stale = await service.send('POST', `/api/v1/customers/${id}/erase`, undefined, undefined, {
    'if-match': `"v${version - 1}"`,
  });
  expect(stale.status).toBe(412);
  expect(await tracesInDatabase(['ulla.yorick'])).not.toEqual([]);
  const gql = await service.graphql(`mutation { eraseCustomer(id: ${id}, expectedVersion: ${version + 5}) { id } }`);
  expect(gql.body.errors[0].extensions.code).toBe('PRECONDITION_FAILED');
  const erased = await service.send('POST', `/api/v1/customers/${id}/erase`, undefined, undefined, {
    'if-match': `"v${version}"`,
  });
  expect(erased.status).toBe(200);
  expect(await tracesInDatabase(['ulla.yorick', 'Ulla'])).toEqual([]);
  const again = await service.send('POST', `/api/v1/customers/${id}/erase`, undefined, undefined, {
    'if-match': `"v${version}"`,
  });
  expect(again.status).toBe(200);
});
