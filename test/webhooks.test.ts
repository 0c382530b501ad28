// docs/decisions.md#webhooks: signed webhooks from the event log, delivered from a durable queue in
// PostgreSQL, verified here with the `standardwebhooks` package the receivers would use.
process.env.WEBHOOK_ALLOW_PRIVATE_TARGETS = 'true';

import { type ChildProcess, spawn } from 'node:child_process';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { Webhook } from 'standardwebhooks';
import { isScope } from '../src/auth/scopes.js';
import { EVENT_READ_SCOPES, readScopeOf } from '../src/domain/event-read-scopes.js';
import { EVENT_TYPES } from '../src/domain/event-types.js';
import { checkWebhookUrl } from '../src/webhooks/subscriptions.js';
import { isNonPublicAddress } from '../src/webhooks/target-policy.js';
import { WebhookWorker } from '../src/webhooks/webhook-worker.js';
import { createDatabase, startTestService, type TestService } from './support/harness.js';
import { pickVariants, placeOrder } from './support/orders.js';
import { startServerProcess } from './support/server-process.js';

interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}

let service: TestService;
let databaseUrl: string;
let receiver: Server;
let base: string;
const received: Received[] = [];
/** Per path: the status to answer and how long to wait before answering. */
const behaviour: Record<string, { status: number; delayMs?: number; refuseBodiesWith?: string }> = {};
const workers: WebhookWorker[] = [];

beforeAll(async () => {
  databaseUrl = await createDatabase();
  service = await startTestService({ databaseUrl });
  receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const rule = behaviour[req.url ?? ''] ?? { status: 204 };
      received.push({ path: req.url ?? '', headers: req.headers, body, at: Date.now() });
      const refused = rule.refuseBodiesWith !== undefined && body.includes(rule.refuseBodiesWith);
      const answer = () => {
        if (!res.destroyed) res.writeHead(refused ? 400 : rule.status).end();
      };
      if (rule.delayMs) setTimeout(answer, rule.delayMs).unref();
      else answer();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await Promise.all(workers.map((w) => w.stop()));
  receiver?.closeAllConnections();
  await new Promise<void>((resolve) => (receiver ? receiver.close(() => resolve()) : resolve()));
  await service?.stop();
});

const at = (p: string) => received.filter((r) => r.path === p);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function subscribe(p: string, events: string[]): Promise<{ id: number; secret: string }> {
  const res = await service.graphql(
    'mutation ($u: String!, $e: [String!]!) { createWebhookSubscription(url: $u, events: $e) ' +
      '{ secret subscription { id url events disabledAt } } }',
    {
      u: `${base}${p}`,
      e: events,
    },
  );
  expect(res.body.errors).toBeUndefined();
  const { secret, subscription } = res.body.data.createWebhookSubscription;
  expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
  expect(subscription).toMatchObject({ url: `${base}${p}`, events, disabledAt: null });
  return { id: subscription.id, secret };
}

async function deliveries(subscriptionId: number) {
  const res = await service.graphql(
    '{ webhookSubscriptions(size: 10, sort: [{ field: ID, direction: DESC }]) { ' +
      'items { id disabledAt disabledReason consecutiveFailures ' +
      'deliveries(size: 10, sort: [{ field: ID, direction: ASC }]) ' +
      '{ totalCount items { eventId eventType status attempts lastStatusCode lastError nextAttemptAt deliveredAt ' +
      'attemptLog { attempt statusCode error durationMs } } } } } }',
  );
  expect(res.body.errors).toBeUndefined();
  return res.body.data.webhookSubscriptions.items.find((s: any) => s.id === subscriptionId);
}

async function until(check: () => boolean | Promise<boolean>, ms = 15_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await sleep(50);
  }
}

async function unsubscribe(id: number) {
  const res = await service.graphql('mutation ($id: Int!) { deleteWebhookSubscription(id: $id) }', { id });
  expect(res.body.data.deleteWebhookSubscription).toBe(id);
}

it(
  'delivers fulfilment.created and shipment.created to a local receiver, ' +
    'signed so that standardwebhooks verifies them',
  async () => {
    const { id, secret } = await subscribe('/orders-hook', ['fulfilment.created', 'shipment.created']);
    const { untracked } = await pickVariants(service);
    const order = await placeOrder(service, [{ variantId: untracked, quantity: 2 }]);
    const line = order.items[0].data.id;
    const f = await service.send('POST', `/api/v1/orders/${order.id}/fulfilments`, {
      items: [{ id: line, quantity: 2 }],
    });
    const fulfilment = f.body.fulfilments[0];
    const s = await service.send('POST', `/api/v1/orders/${order.id}/shipments`, {
      data: { fulfilment_id: fulfilment.id, tracking_number: 'WH-1', shipping_carrier: 1 },
    });
    expect(s.status).toBe(201);
    await service.send('PATCH', `/api/v1/orders/${order.id}`, { notes: 'not subscribed' });

    const worker = new WebhookWorker(service.orm);
    expect(await worker.runOnce()).toBe(2);
    const got = at('/orders-hook');
    expect(got).toHaveLength(2);
    const verifier = new Webhook(secret);
    const payloads = got.map((r) => verifier.verify(r.body, r.headers as Record<string, string>) as any);
    expect(payloads.map((p) => p.type)).toEqual(['fulfilment.created', 'shipment.created']);
    expect(payloads[0].data).toEqual({ ...fulfilment, order_id: order.id, order_status: 3 });
    expect(payloads[1].data).toMatchObject({
      order_id: order.id,
      fulfilment_id: fulfilment.id,
      tracking_number: 'WH-1',
      items: [{ id: line, quantity: 2 }],
    });
    expect(new Date(payloads[0].timestamp).getTime()).toBeGreaterThan(Date.now() - 60_000);
    // webhook-id is the event's id: the same on every retry, for de-duplication.
    const events = (await service.get(`/api/v1/orders/${order.id}/events?sort=id`)).body.items;
    const expected = events
      .filter((e: any) => e.type !== 'order.notes_changed' && e.type !== 'order.created')
      .map((e: any) => `evt_${e.id}`);
    expect(got.map((r) => r.headers['webhook-id'])).toEqual(expected);
    // A tampered body fails verification.
    expect(() =>
      verifier.verify(
        got[0].body.replace('"order_status":3', '"order_status":4'),
        got[0].headers as Record<string, string>,
      ),
    ).toThrow();

    const log = await deliveries(id);
    expect(log.deliveries.items).toEqual([
      expect.objectContaining({
        eventType: 'fulfilment.created',
        status: 'DELIVERED',
        attempts: 1,
        lastStatusCode: 204,
        nextAttemptAt: null,
        attemptLog: [expect.objectContaining({ attempt: 1, statusCode: 204 })],
      }),
      expect.objectContaining({ eventType: 'shipment.created', status: 'DELIVERED', attempts: 1, lastStatusCode: 204 }),
    ]);
    expect(await worker.runOnce()).toBe(0);
    await unsubscribe(id);
  },
);

it('retries a receiver answering 500 with back-off, once per attempt, ' +
  'and disables the subscription after repeated failure', async () => {
  behaviour['/failing'] = { status: 500 };
  const { id } = await subscribe('/failing', ['order.notes_changed']);
  const { untracked } = await pickVariants(service);
  const order = await placeOrder(service, [{ variantId: untracked, quantity: 1 }]);
  await service.send('PATCH', `/api/v1/orders/${order.id}`, { notes: 'please retry' });

  const worker = new WebhookWorker(service.orm);
  expect(await worker.runOnce()).toBe(1);
  expect(at('/failing')).toHaveLength(1);
  let log = (await deliveries(id)).deliveries.items[0];
  expect(log).toMatchObject({ status: 'PENDING', attempts: 1, lastStatusCode: 500, lastError: 'HTTP 500' });
  const firstRetry = log.nextAttemptAt - Math.floor(Date.now() / 1000);
  expect(firstRetry).toBeGreaterThanOrEqual(3);
  expect(firstRetry).toBeLessThanOrEqual(6);

  // Not before it is due…
  expect(await worker.runOnce()).toBe(0);
  expect(at('/failing')).toHaveLength(1);
  // …then exactly once more, with the same webhook-id, and the next retry minutes away.
  await sleep(log.nextAttemptAt * 1000 - Date.now() + 1100);
  expect(await worker.runOnce()).toBe(1);
  expect(await worker.runOnce()).toBe(0);
  const twice = at('/failing');
  expect(twice).toHaveLength(2);
  expect(twice[1].headers['webhook-id']).toBe(twice[0].headers['webhook-id']);
  expect(Number(twice[1].headers['webhook-timestamp'])).toBeGreaterThan(Number(twice[0].headers['webhook-timestamp']));
  log = (await deliveries(id)).deliveries.items[0];
  expect(log).toMatchObject({
    status: 'PENDING',
    attempts: 2,
    attemptLog: [
      { attempt: 1, statusCode: 500 },
      { attempt: 2, statusCode: 500 },
    ].map((a) => expect.objectContaining(a)),
  });
  expect(log.nextAttemptAt - Math.floor(Date.now() / 1000)).toBeGreaterThan(250);

  // With no retries left the delivery fails and the subscription is disabled, visibly.
  await service.sql('update webhook_delivery set next_attempt_at = now() where subscription_id = ?', [id]);
  const impatient = new WebhookWorker(service.orm, { retryDelaysSeconds: [0] });
  expect(await impatient.runOnce()).toBe(1);
  const subscription = await deliveries(id);
  expect(subscription.deliveries.items[0]).toMatchObject({ status: 'FAILED', attempts: 3, nextAttemptAt: null });
  expect(subscription.disabledAt).toEqual(expect.any(Number));
  expect(subscription.disabledReason).toMatch(/failed 3 attempts \(last: 500\)/);
  expect(subscription.consecutiveFailures).toBe(3);
  // A disabled subscription gets nothing new…
  await service.send('PATCH', `/api/v1/orders/${order.id}`, { notes: 'after disabling' });
  expect(await worker.runOnce()).toBe(0);
  expect(at('/failing')).toHaveLength(3);
  // …until it is enabled again: then new events are sent.
  const enabled = await service.graphql(
    'mutation ($id: Int!) { enableWebhookSubscription(id: $id) { disabledAt disabledReason consecutiveFailures } }',
    { id },
  );
  expect(enabled.body.data.enableWebhookSubscription).toEqual({
    disabledAt: null,
    disabledReason: null,
    consecutiveFailures: 0,
  });
  behaviour['/failing'] = { status: 200 };
  await service.send('PATCH', `/api/v1/orders/${order.id}`, { notes: 'after enabling' });
  expect(await worker.runOnce()).toBe(1);
  expect(at('/failing')).toHaveLength(4);
  expect(JSON.parse(at('/failing')[3].body).data.notes).toBe('after enabling');
  await unsubscribe(id);
}, 30_000);

it('fails alone an event the receiver keeps refusing while it takes the others: nothing is disabled', async () => {
  behaviour['/picky'] = { status: 204, refuseBodiesWith: 'poison' };
  const { id } = await subscribe('/picky', ['order.notes_changed']);
  const { untracked } = await pickVariants(service);
  const order = await placeOrder(service, [{ variantId: untracked, quantity: 1 }]);
  // Four attempts a delivery, each due at once.
  const worker = new WebhookWorker(service.orm, { retryDelaysSeconds: [0, 0, 0] });
  await service.send('PATCH', `/api/v1/orders/${order.id}`, { notes: 'poison' });
  expect(await worker.runOnce()).toBe(1);
  expect(await worker.runOnce()).toBe(1);
  await service.send('PATCH', `/api/v1/orders/${order.id}`, { notes: 'fine' });
  expect(await worker.runOnce()).toBe(2); // the third refused attempt, and the other event taken
  expect(await worker.runOnce()).toBe(1); // the fourth and last
  const subscription = await deliveries(id);
  expect(subscription.disabledAt).toBeNull();
  expect(subscription.deliveries.items.map((d: { status: string }) => d.status).sort()).toEqual([
    'DELIVERED',
    'FAILED',
  ]);
  // Later events are still queued and sent.
  await service.send('PATCH', `/api/v1/orders/${order.id}`, { notes: 'later' });
  expect(await worker.runOnce()).toBe(1);
  expect(at('/picky').map((r) => JSON.parse(r.body).data.notes)).toEqual([
    'poison',
    'poison',
    expect.any(String),
    expect.any(String),
    'poison',
    'later',
  ]);
  await unsubscribe(id);
});

it('does not let a slow receiver hold up other deliveries, and gives up on it at the timeout', async () => {
  behaviour['/slow'] = { status: 200, delayMs: 20_000 };
  const slow = await subscribe('/slow', ['collection.created']);
  const fast = await subscribe('/fast', ['collection.created']);
  const made = await service.send('POST', '/api/v1/collections', {
    title: 'Hooks',
    type: 0,
    seo_title: 'Hooks',
    seo_url: 'hooks-1',
    match_products: [],
  });
  expect(made.status).toBe(201);
  await service.send('POST', '/api/v1/collections', {
    title: 'Hooks 2',
    type: 0,
    seo_title: 'Hooks 2',
    seo_url: 'hooks-2',
    match_products: [],
  });

  const worker = new WebhookWorker(service.orm, { timeoutMs: 3000, pollMs: 100 });
  workers.push(worker);
  const started = Date.now();
  worker.start();
  await until(() => at('/fast').length === 2);
  expect(Date.now() - started).toBeLessThan(2500);
  expect(at('/slow').length).toBeGreaterThanOrEqual(1);
  // The slow receiver never answers in time: its attempts end as timeouts, to be retried later.
  await until(async () => (await deliveries(slow.id)).deliveries.items.every((d: any) => d.lastError !== null), 10_000);
  const log = await deliveries(slow.id);
  expect(log.deliveries.items.map((d: any) => [d.status, d.attempts, d.lastStatusCode])).toEqual([
    ['PENDING', 1, null],
    ['PENDING', 1, null],
  ]);
  expect(log.deliveries.items[0].lastError).toMatch(/timed out after 3000 ms/);
  expect((await deliveries(fast.id)).deliveries.items.map((d: any) => d.status)).toEqual(['DELIVERED', 'DELIVERED']);
  await worker.stop();
  await unsubscribe(slow.id);
  await unsubscribe(fast.id);
}, 30_000);

it('gives a receiver that never answers at most half the slots, whatever its backlog', async () => {
  behaviour['/stuck'] = { status: 200, delayMs: 20_000 };
  const stuck = await subscribe('/stuck', ['collection.created']);
  const collection = (n: number) => ({
    title: `Backlog ${n}`,
    type: 0,
    seo_title: `Backlog ${n}`,
    seo_url: `backlog-${n}`,
    match_products: [],
  });
  // Six deliveries queued for the stuck receiver before the other subscription's one.
  for (let n = 1; n <= 6; n++)
    expect((await service.send('POST', '/api/v1/collections', collection(n))).status).toBe(201);
  const other = await subscribe('/other', ['collection.created']);
  expect((await service.send('POST', '/api/v1/collections', collection(7))).status).toBe(201);

  // Two slots: without a share per subscription both went to the stuck receiver's backlog, one
  // timeout after another, before the other subscription's delivery was claimed.
  const worker = new WebhookWorker(service.orm, { concurrency: 2, timeoutMs: 2000, pollMs: 100 });
  workers.push(worker);
  const started = Date.now();
  worker.start();
  await until(() => at('/other').length === 1, 10_000);
  expect(Date.now() - started).toBeLessThan(1500);
  expect(at('/stuck').length).toBe(1);
  await worker.stop();
  await unsubscribe(stuck.id);
  await unsubscribe(other.id);
}, 30_000);

it('never makes the same attempt twice with two worker processes on one queue', async () => {
  behaviour['/shared'] = { status: 204, delayMs: 30 };
  const { id } = await subscribe('/shared', ['customer.updated']);
  const COUNT = 40;
  for (let i = 0; i < COUNT; i++) {
    expect((await service.send('PATCH', `/api/v1/customers/${(i % 20) + 1}`, { notes: `race ${i}` })).status).toBe(200);
  }
  const processes: ChildProcess[] = [];
  const start = () =>
    new Promise<ChildProcess>((resolve, reject) => {
      const child = spawn(process.execPath, [path.resolve('dist/src/cli/outbox-worker.js')], {
        env: {
          ...process.env,
          DATABASE_URL: databaseUrl,
          WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
          LOG_LEVEL: 'info',
          NODE_OPTIONS: '',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      processes.push(child);
      let output = '';
      const timer = setTimeout(() => reject(new Error(`worker did not start: ${output}`)), 20_000);
      child.stdout!.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        if (output.includes('webhook worker running')) {
          clearTimeout(timer);
          resolve(child);
        }
      });
      child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.once('exit', (code) => reject(new Error(`worker exited with ${code}: ${output}`)));
    });
  try {
    await Promise.all([start(), start()]);
    await until(() => at('/shared').length >= COUNT, 20_000);
    await sleep(1500); // time for a duplicate to show up, if one were sent
  } finally {
    await Promise.all(
      processes.map(
        (child) =>
          new Promise<void>((resolve) => {
            if (child.exitCode !== null) return resolve();
            child.once('exit', () => resolve());
            child.kill('SIGTERM');
          }),
      ),
    );
  }
  const ids = at('/shared').map((r) => r.headers['webhook-id']);
  expect(ids).toHaveLength(COUNT);
  expect(new Set(ids).size).toBe(COUNT);
  const rows = await service.sql<{ status: string; attempts: number; n: number }>(
    'select status, attempts, count(*)::int as n from webhook_delivery where subscription_id = ? ' +
      'group by status, attempts',
    [id],
  );
  expect(rows).toEqual([{ status: 'delivered', attempts: 1, n: COUNT }]);
  const attempts = await service.sql<{ n: number }>(
    'select count(*)::int as n from webhook_attempt a join webhook_delivery d on d.id = a.delivery_id ' +
      'where d.subscription_id = ?',
    [id],
  );
  expect(attempts[0].n).toBe(COUNT);
  await unsubscribe(id);
}, 60_000);

describe('subscriptions', () => {
  it('refuse non-http(s) URLs, and loopback or private targets unless allowed', async () => {
    const create = (url: string, events = ['order.created']) =>
      service.graphql(
        'mutation ($u: String!, $e: [String!]!) { createWebhookSubscription(url: $u, events: $e) { secret } }',
        { u: url, e: events },
      );
    for (const url of ['ftp://example.com/hook', 'file:///etc/passwd', 'not a url', 'http://user:pw@example.com/']) {
      const res = await create(url);
      expect(res.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
      expect(res.body.errors[0].extensions.fields?.[0]?.field ?? res.body.errors[0].message).toMatch(/url/);
    }
    expect((await create(`${base}/x`, ['order.exploded'])).body.errors[0].message).toContain('fulfilment.created');
    process.env.WEBHOOK_ALLOW_PRIVATE_TARGETS = 'false';
    try {
      const refused = [
        'http://127.0.0.1:9/hook',
        'http://localhost/hook',
        'http://10.1.2.3/',
        'http://[::1]/',
        'http://169.254.169.254/latest/meta-data',
        'http://192.168.0.10/',
        'http://0x7f000001/',
        'http://127.1/hook',
        // IPv6 spellings of IPv4 loopback and private addresses, and IPv6's own local blocks.
        'http://[::7f00:1]/hook',
        'http://[::ffff:0:7f00:1]/hook',
        'http://[::ffff:127.0.0.1]/hook',
        'http://[::127.0.0.1]/hook',
        'http://[::ffff:10.0.0.1]/hook',
        'http://[64:ff9b::a00:1]/hook',
        'http://[fe80::1]/hook',
        'http://[fc00::1]/hook',
        'http://[fd12:3456::1]/hook',
      ];
      for (const url of refused) {
        const message = (await create(url)).body.errors?.[0]?.message;
        expect({ url, message }).toEqual({ url, message: expect.stringMatching(/loopback or private/) });
      }
    } finally {
      process.env.WEBHOOK_ALLOW_PRIVATE_TARGETS = 'true';
    }
    expect(await service.sql('select id from webhook_subscription where url like ?', ['%/hook'])).toEqual([]);
  });

  it('refuse a host that does not resolve within the bound, without waiting for its lookup', async () => {
    const never = () => new Promise<{ address: string }[]>(() => undefined);
    const problems = await checkWebhookUrl('https://slow.example/hook', {
      allowPrivate: false,
      resolve: never,
      timeoutMs: 100,
    });
    expect(problems).toEqual([{ field: 'url', message: 'the host slow.example did not resolve within 0.1 s' }]);
    const resolved = async () => [{ address: '10.1.2.3' }];
    expect(await checkWebhookUrl('https://inside.example/hook', { allowPrivate: false, resolve: resolved })).toEqual([
      { field: 'url', message: 'the host inside.example resolves to a loopback or private address' },
    ]);
  });

  it('classify addresses by ipaddr.js: only plain unicast is public, IPv4 inside IPv6 is read as IPv4', () => {
    const refused = [
      '127.0.0.1',
      '10.0.0.1',
      '172.16.5.4',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '224.0.0.1',
      '240.0.0.1',
      '255.255.255.255',
      '192.0.2.1',
      '198.18.0.1',
      '::1',
      '::',
      '::7f00:1',
      '::ffff:0:7f00:1',
      '::ffff:127.0.0.1',
      '::ffff:7f00:1',
      '::ffff:10.0.0.1',
      '::ffff:a9fe:a9fe',
      '::a00:1',
      '::10.0.0.1',
      '::ffff:0:a00:1',
      '64:ff9b::7f00:1',
      'fe80::1',
      'fe80::1%eth0',
      'fc00::1',
      'fd00::1',
      'ff02::1',
      '2001:db8::1',
      '2002:7f00:1::1',
      'not an address',
    ];
    const allowed = [
      '8.8.8.8',
      '1.1.1.1',
      '93.184.216.34',
      '2606:4700:4700::1111',
      '2a00:1450:4001:81b::200e',
      '::ffff:8.8.8.8',
      '::808:808',
    ];
    expect(refused.filter((a) => !isNonPublicAddress(a))).toEqual([]);
    expect(allowed.filter((a) => isNonPublicAddress(a))).toEqual([]);
  });

  it('need the read scope of each event type’s records: manage_webhooks alone reads nothing by webhook', async () => {
    const mutation =
      'mutation ($u: String!, $e: [String!]!) { createWebhookSubscription(url: $u, events: $e) ' +
      '{ subscription { id events } } }';
    const create = (events: string[], token: string) =>
      service.graphql(mutation, { u: `${base}/scoped`, e: events }, token);
    const hooksOnly = await service.tokenWith(['manage_webhooks']);
    expect((await service.send('GET', '/api/v1/customers', undefined, hooksOnly)).status).toBe(403);
    const refused = await create(['customer.updated'], hooksOnly);
    expect(refused.body.errors[0].extensions.code).toBe('FORBIDDEN');
    expect(refused.body.errors[0].message).toContain('read_customers');
    expect(refused.body.data).toBeNull();
    // Each missing scope is named once; a held one is not.
    const withOrders = await service.tokenWith(['manage_webhooks', 'read_orders']);
    const mixed = await create(
      ['order.created', 'shipment.created', 'customer.updated', 'product.deleted', 'collection.created'],
      withOrders,
    );
    expect(mixed.body.errors[0].extensions.code).toBe('FORBIDDEN');
    expect(mixed.body.errors[0].message).toMatch(
      /needs read_collections and read_customers and read_products, which this token lacks/,
    );
    // An unknown type is still bad input, whatever the token holds.
    expect((await create(['customer.exploded'], hooksOnly)).body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
    expect(await service.sql('select id from webhook_subscription where url = ?', [`${base}/scoped`])).toEqual([]);
    // With the read scopes, the same subscriptions are made.
    const allowed = await create(['order.created', 'shipment.created'], withOrders);
    expect(allowed.body.errors).toBeUndefined();
    const reader = await service.tokenWith(['manage_webhooks', 'read_customers']);
    const customers = await create(['customer.updated'], reader);
    expect(customers.body.data.createWebhookSubscription.subscription.events).toEqual(['customer.updated']);
    for (const made of [allowed, customers]) {
      await unsubscribe(made.body.data.createWebhookSubscription.subscription.id);
    }
  });

  it('name a read scope of the token vocabulary for every event type (one rule, as the event feed’s)', () => {
    // null: a kind only its actor sees (a bulk operation's events), never by a scope.
    expect(Object.values(EVENT_READ_SCOPES).filter((scope) => scope !== null && !isScope(scope))).toEqual([]);
    expect(Object.fromEntries(EVENT_TYPES.map((type) => [type, readScopeOf(type)]))).toMatchObject({
      'order.customer_changed': 'read_orders',
      'restock.created': 'read_orders',
      'fulfilment.deleted': 'read_orders',
      'product.updated': 'read_products',
      'customer.created': 'read_customers',
      'collection.deleted': 'read_collections',
    });
  });

  it('need manage_webhooks, and never show the secret again', async () => {
    const token = await service.tokenWith(['read_orders', 'manage_tokens']);
    const refused = await service.graphql('{ webhookSubscriptions { totalCount } }', {}, token);
    expect(refused.body.errors[0].extensions.code).toBe('FORBIDDEN');
    const { id, secret } = await subscribe('/listed', ['order.created']);
    const listed = await service.graphql('{ webhookSubscriptions { items { id url events createdAt } } }');
    expect(listed.text).not.toContain(secret);
    const type = await service.graphql('{ __type(name: "WebhookSubscription") { fields { name } } }');
    expect(type.body.data.__type.fields.map((f: any) => f.name)).not.toContain('secret');
    await unsubscribe(id);
    expect(await service.sql('select id from webhook_subscription where id = ?', [id])).toEqual([]);
  });
});

it('queues deliveries in the change’s transaction: a refused change queues nothing', async () => {
  const { id } = await subscribe('/none', ['fulfilment.created']);
  const { untracked } = await pickVariants(service);
  const order = await placeOrder(service, [{ variantId: untracked, quantity: 1 }]);
  const res = await service.send('POST', `/api/v1/orders/${order.id}/fulfilments`, {
    items: [{ id: order.items[0].data.id, quantity: 9 }],
  });
  expect(res.status).toBe(409);
  expect(await service.sql('select id from webhook_delivery where subscription_id = ?', [id])).toEqual([]);
  await unsubscribe(id);
});

it(
  'stamps deliveries, attempts, retries and a disabling in whole seconds, ' + 'as every record (src/clock.ts)',
  async () => {
    behaviour['/stamps-fail'] = { status: 500 };
    const ids = [
      (await subscribe('/stamps-ok', ['order.notes_changed'])).id,
      (await subscribe('/stamps-fail', ['order.notes_changed'])).id,
    ];
    /** Per stamp: how many rows of these subscriptions hold one, and how many of those have a fraction of a second. */
    const stamps = () =>
      service.sql<{ stamp: string; held: number; fractional: number }>(
        `select stamp, count(at)::int as held,
        count(at) filter (where at <> date_trunc('second', at))::int as fractional
        from (
         select 'delivery.created_at' as stamp, d.created_at as at
           from webhook_delivery d where d.subscription_id in (?)
         union all select 'delivery.next_attempt_at', d.next_attempt_at
           from webhook_delivery d where d.subscription_id in (?)
         union all select 'delivery.delivered_at', d.delivered_at from webhook_delivery d where d.subscription_id in (?)
         union all select 'attempt.attempted_at', a.attempted_at
           from webhook_attempt a join webhook_delivery d on d.id = a.delivery_id where d.subscription_id in (?)
         union all select 'subscription.disabled_at', s.disabled_at from webhook_subscription s where s.id in (?)
       ) stamps group by stamp order by stamp`,
        [ids, ids, ids, ids, ids],
      );
    const { untracked } = await pickVariants(service);
    const order = await placeOrder(service, [{ variantId: untracked, quantity: 1 }]);
    await service.send('PATCH', `/api/v1/orders/${order.id}`, { notes: 'stamped' });
    // Queued by the trigger, due at once (no attempt yet).
    expect(await stamps()).toEqual([
      { stamp: 'delivery.created_at', held: 2, fractional: 0 },
      { stamp: 'delivery.delivered_at', held: 0, fractional: 0 },
      { stamp: 'delivery.next_attempt_at', held: 2, fractional: 0 },
      { stamp: 'subscription.disabled_at', held: 0, fractional: 0 },
    ]);
    // One attempt each: one delivered, one to be retried in a minute.
    expect(await new WebhookWorker(service.orm, { retryDelaysSeconds: [60] }).runOnce()).toBe(2);
    expect(await stamps()).toEqual([
      { stamp: 'attempt.attempted_at', held: 2, fractional: 0 },
      { stamp: 'delivery.created_at', held: 2, fractional: 0 },
      { stamp: 'delivery.delivered_at', held: 1, fractional: 0 },
      { stamp: 'delivery.next_attempt_at', held: 1, fractional: 0 },
      { stamp: 'subscription.disabled_at', held: 0, fractional: 0 },
    ]);
    // The retry, due now, fails for the last time: the subscription is disabled.
    await service.sql('update webhook_delivery set next_attempt_at = now() where subscription_id = ?', [ids[1]]);
    expect(await new WebhookWorker(service.orm, { retryDelaysSeconds: [] }).runOnce()).toBe(1);
    expect(await stamps()).toEqual([
      { stamp: 'attempt.attempted_at', held: 3, fractional: 0 },
      { stamp: 'delivery.created_at', held: 2, fractional: 0 },
      { stamp: 'delivery.delivered_at', held: 1, fractional: 0 },
      { stamp: 'delivery.next_attempt_at', held: 0, fractional: 0 },
      { stamp: 'subscription.disabled_at', held: 1, fractional: 0 },
    ]);
    for (const id of ids) await unsubscribe(id);
  },
);

it('sends nothing once the subscribing token is revoked or lacks a read scope, and says why', async () => {
  const reader = await service.tokenWith(['manage_webhooks', 'read_customers']);
  const made = await service.graphql(
    'mutation ($u: String!) { createWebhookSubscription(url: $u, events: ["customer.updated"]) ' +
      '{ subscription { id createdByTokenId } } }',
    { u: `${base}/owned` },
    reader,
  );
  const { id, createdByTokenId: owner } = made.body.data.createWebhookSubscription.subscription;
  const worker = new WebhookWorker(service.orm);
  const note = async (notes: string) => {
    expect((await service.send('PATCH', '/api/v1/customers/3', { notes })).status).toBe(200);
  };
  const enable = () =>
    service.graphql('mutation ($id: Int!) { enableWebhookSubscription(id: $id) { disabledAt } }', { id });
  await note('while the token holds read_customers');
  expect(await worker.runOnce()).toBe(1);
  expect(at('/owned')).toHaveLength(1);

  // A scope lost (no API takes one away, but the token row is the authority): not sent, disabled.
  await service.sql("update api_token set scopes = '{manage_webhooks}' where id = ?", [owner]);
  await note('after losing the scope');
  expect(await worker.runOnce()).toBe(1);
  expect(at('/owned')).toHaveLength(1);
  let subscription = await deliveries(id);
  expect(subscription.disabledReason).toBe(`the token that created it (${owner}) lacks read_customers`);
  expect(subscription.deliveries.items[1]).toMatchObject({
    status: 'PENDING',
    attempts: 1,
    lastError: expect.stringMatching(/^not sent: /),
  });
  const refused = await enable();
  expect(refused.body.errors[0].extensions.code).toBe('CONFLICT');
  expect(refused.body.errors[0].message).toContain('lacks read_customers');

  // The scope back, enabled again: the pending delivery goes out. Then the token is revoked.
  await service.sql("update api_token set scopes = '{manage_webhooks,read_customers}' where id = ?", [owner]);
  expect((await enable()).body.data.enableWebhookSubscription.disabledAt).toBeNull();
  await service.sql('update webhook_delivery set next_attempt_at = now() where subscription_id = ?', [id]);
  expect(await worker.runOnce()).toBe(1);
  const sent = at('/owned').map((r) => JSON.parse(r.body).data.notes);
  expect(sent).toEqual(['while the token holds read_customers', 'after losing the scope']);
  const revoked = await service.graphql('mutation ($id: Int!) { revokeApiToken(id: $id) { revokedAt } }', {
    id: owner,
  });
  expect(revoked.body.errors).toBeUndefined();
  await note('after revoking');
  expect(await worker.runOnce()).toBe(1);
  expect(at('/owned')).toHaveLength(2);
  subscription = await deliveries(id);
  expect(subscription.disabledReason).toBe(`the token that created it (${owner}) was revoked`);
  expect(subscription.disabledAt).toEqual(expect.any(Number));
  expect((await enable()).body.errors[0].message).toMatch(/was revoked; delete it and subscribe again/);
  await unsubscribe(id);
});

it('fails a delivery refused at connection time like any failed attempt; the process keeps answering', async () => {
  // Subscribed where private targets are allowed (this file), delivered by a service process where
  // they are not (npm start's default), with npm start's heap limit. The literal address was a
  // ReferenceError that killed the claiming process, and then the next one after each lease.
  const hosts = { literal: '127.0.0.1', name: 'localhost', compatible: '[::7f00:1]', translated: '[::ffff:0:7f00:1]' };
  const paths = Object.keys(hosts).map((kind) => `/refused-${kind}`);
  const ids: number[] = [];
  for (const [kind, host] of Object.entries(hosts)) {
    const res = await service.graphql(
      'mutation ($u: String!) { createWebhookSubscription(url: $u, events: ["order.notes_changed"]) ' +
        '{ subscription { id } } }',
      { u: `${base.replace('127.0.0.1', host)}/refused-${kind}` },
    );
    expect(res.body.errors).toBeUndefined();
    ids.push(res.body.data.createWebhookSubscription.subscription.id);
  }
  const { untracked } = await pickVariants(service);
  const order = await placeOrder(service, [{ variantId: untracked, quantity: 1 }]);
  const noted = await service.send('PATCH', `/api/v1/orders/${order.id}`, { notes: 'to a refused target' });
  expect(noted.status).toBe(200);

  const admin = 'admin-token-for-refused-targets';
  const server = await startServerProcess(databaseUrl, admin, {
    OUTBOX_WORKER: 'true',
    WEBHOOK_ALLOW_PRIVATE_TARGETS: 'false',
    NODE_OPTIONS: '--max-old-space-size=256 --max-semi-space-size=16',
  });
  try {
    // An attempt is logged when claimed and completed with its outcome: wait for the outcome.
    const attempted = async (n: number) =>
      (await Promise.all(ids.map(deliveries))).every((s) => s.deliveries.items[0]?.attemptLog[n - 1]?.error);
    await until(() => attempted(1), 15_000);
    for (const id of ids) {
      const delivery = (await deliveries(id)).deliveries.items[0];
      expect(delivery).toMatchObject({
        status: 'PENDING',
        lastStatusCode: null,
        lastError: expect.stringMatching(/refused|private or loopback/),
      });
      expect(delivery.nextAttemptAt).toEqual(expect.any(Number));
    }
    // A name's addresses stay out of the log its subscribers read (no map of internal names).
    const byName = (await deliveries(ids[Object.keys(hosts).indexOf('name')])).deliveries.items[0];
    expect(byName.lastError).toBe('localhost resolves to a private or loopback address');
    // Retried after its delay (5 s), by the same process, refused again: no crash loop.
    await until(() => attempted(2), 20_000);
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    const orders = await fetch(`${server.url}/api/v1/orders?size=1`, { headers: { authorization: `Bearer ${admin}` } });
    expect(orders.status).toBe(200);
  } finally {
    await server.stop();
  }
  expect(paths.flatMap(at)).toEqual([]);
  for (const id of ids) await unsubscribe(id);
}, 60_000);

it(
  "sends an order event without the customer's contact details " + "when its subscription's token lacks read_customers",
  async () => {
    const create = (token: string) =>
      service.graphql(
        'mutation ($u: String!, $e: [String!]!) { createWebhookSubscription(url: $u, events: $e) ' +
          '{ subscription { id } } }',
        { u: `${base}/orders-only`, e: ['order.notes_changed', 'order.created'] },
        token,
      );
    const ordersOnly = await service.tokenWith(['manage_webhooks', 'read_orders']);
    const made = await create(ordersOnly);
    expect(made.body.errors).toBeUndefined();
    const { untracked } = await pickVariants(service);
    const order = await placeOrder(service, [{ variantId: untracked, quantity: 1 }]);
    const worker = new WebhookWorker(service.orm);
    await worker.runOnce();
    const [created] = at('/orders-only').map((r) => JSON.parse(r.body));
    expect(created.type).toBe('order.created');
    expect(created.data.id).toBe(order.id);
    // The same event on the timeline, to a token that may read customers, has them.
    const full = await service.send('GET', `/api/v1/orders/${order.id}/events`);
    const recorded = full.body.items.find((e: any) => e.type === 'order.created').data;
    expect(recorded.email).toBeDefined();
    expect(created.data).not.toHaveProperty('email');
    expect(created.data).not.toHaveProperty('address');
    if (recorded.customer) expect(created.data.customer).toEqual({ id: recorded.customer.id });
    expect(created.data.items).toEqual(recorded.items);
    await unsubscribe(made.body.data.createWebhookSubscription.subscription.id);
  },
);
