// D3 of docs/operations.md#hostile-load-findings: an Idempotency-Key whose holder dies (kill -9 of
// its server process) or loses PostgreSQL mid-request is not stuck: once the holder's lease
// expires, a retry on another process performs the write once, or replays the answer the write
// committed with.
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { type EmbeddedServer, startEmbeddedPostgres } from '../src/db/embedded-postgres.js';
import { createDatabase, startTestService, type TestService } from './support/harness.js';
import { pickVariants, placeOrder } from './support/orders.js';
import { type ServerProcess, startServerProcess } from './support/server-process.js';

const ADMIN = 'idempotency-crash-admin-token-0123456789';
const LEASE_MS = 1500;
const env = { IDEMPOTENCY_LEASE_MS: String(LEASE_MS), RATE_LIMIT_BURST: '0' };

async function post(server: ServerProcess, orderId: number, lineId: number, key: string) {
  const res = await fetch(`${server.url}/api/v1/orders/${orderId}/fulfilments`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json', 'idempotency-key': key },
    body: JSON.stringify({ items: [{ id: lineId, quantity: 1 }] }),
  });
  return { status: res.status, replayed: res.headers.get('idempotent-replayed'), text: await res.text() };
}

/** Resolves once the key is claimed and not answered: its holder is mid-request. */
async function claimed(service: TestService, key: string) {
  for (let i = 0; i < 200; i++) {
    const rows = await service.sql<{ status: number | null }>('select status from idempotency_key where key = ?', [
      key,
    ]);
    if (rows.length && rows[0].status === null) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`key ${key} was never claimed`);
}

const fulfilments = async (service: TestService, orderId: number) =>
  (await service.sql<{ n: number }>('select count(*)::int as n from fulfilment where order_id = ?', [orderId]))[0].n;

/** Holds the order's row lock from outside the service, so a write on it waits mid-request. */
async function lockOrder(url: string, orderId: number) {
  const client = new pg.Client({ connectionString: url });
  client.on('error', () => undefined); // the PostgreSQL restart cuts this connection on purpose
  await client.connect();
  await client.query('begin');
  await client.query('select id from orders where id = $1 for update', [orderId]);
  return client;
}

describe('a holder killed mid-request', () => {
  let url: string;
  let service: TestService;
  let servers: ServerProcess[] = [];
  beforeAll(async () => {
    url = await createDatabase();
    service = await startTestService({ databaseUrl: url });
    servers = await Promise.all([startServerProcess(url, ADMIN, env), startServerProcess(url, ADMIN, env)]);
  }, 60_000);
  afterAll(async () => {
    await Promise.all(servers.map((s) => s.stop()));
    await service.stop();
  });

  it('lets a retry on another process perform the write once, within the lease', async () => {
    const { untracked } = await pickVariants(service);
    const order = await placeOrder(service, [{ variantId: untracked, quantity: 5 }]);
    const lineId = order.items[0].data.id;
    const locker = await lockOrder(url, order.id);
    const first = post(servers[0], order.id, lineId, 'crash-1').catch((error) => error);
    await claimed(service, 'crash-1');
    await new Promise((r) => setTimeout(r, 200));
    await servers[0].signal('SIGKILL');
    expect(String(await first)).toMatch(/fetch failed|terminated|socket/i); // the client lost its answer
    await locker.query('rollback');
    await locker.end();
    const started = Date.now();
    const retry = await post(servers[1], order.id, lineId, 'crash-1');
    expect(retry.status).toBe(201);
    expect(retry.replayed).toBeNull();
    expect(Date.now() - started).toBeLessThan(LEASE_MS + 3000);
    expect(await fulfilments(service, order.id)).toBe(1);
    const again = await post(servers[1], order.id, lineId, 'crash-1');
    expect(again).toEqual({ status: 201, replayed: 'true', text: retry.text });
    expect(await fulfilments(service, order.id)).toBe(1);
  }, 30_000);

  it('replays the committed answer when the holder died after its write', async () => {
    servers[0] = await startServerProcess(url, ADMIN, env);
    const { untracked } = await pickVariants(service);
    const order = await placeOrder(service, [{ variantId: untracked, quantity: 5 }]);
    const lineId = order.items[0].data.id;
    const answered = await post(servers[0], order.id, lineId, 'crash-2');
    expect(answered.status).toBe(201);
    await servers[0].signal('SIGKILL');
    const retry = await post(servers[1], order.id, lineId, 'crash-2');
    expect(retry).toEqual({ status: 201, replayed: 'true', text: answered.text });
    expect(await fulfilments(service, order.id)).toBe(1);
  }, 30_000);
});

describe('PostgreSQL restarted under a claimed key', () => {
  let dir: string;
  let db: EmbeddedServer;
  let port: number;
  let service: TestService;
  let servers: ServerProcess[] = [];
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'store-idem-crash-'));
    db = await startEmbeddedPostgres({ dataDir: path.join(dir, 'pg'), persistent: true });
    port = Number(new URL(db.url('postgres')).port);
    // A copy of the seeded template on this server is not possible; migrate and seed here.
    await db.createDatabase('store');
    servers = [await startServerProcess(db.url('store'), ADMIN, { ...env, SEED_DEMO: 'true' })];
    servers.push(await startServerProcess(db.url('store'), ADMIN, env));
    service = await startTestService({ databaseUrl: db.url('store') });
  }, 90_000);
  afterAll(async () => {
    await Promise.all(servers.map((s) => s.stop()));
    await service.stop();
    await db.stop();
    await rm(dir, { recursive: true, force: true });
  }, 60_000);

  it('a request cut off by the restart leaves its key free after the lease: the retry writes once', async () => {
    const { untracked } = await pickVariants(service);
    const order = await placeOrder(service, [{ variantId: untracked, quantity: 5 }]);
    const lineId = order.items[0].data.id;
    const done = await post(servers[0], order.id, lineId, 'before-restart');
    expect(done.status).toBe(201);
    const locker = await lockOrder(db.url('store'), order.id);
    const cut = post(servers[0], order.id, lineId, 'outage-1');
    await claimed(service, 'outage-1');
    await new Promise((r) => setTimeout(r, 200));
    await db.stop();
    const during = await cut;
    // Cut off by the restart: a 503. A fast shutdown ends the locker's session and the request's
    // together, in no set order, so on a busy machine the request may take the lock and commit
    // first: a 201. Either way the retry below must leave exactly one fulfilment for the key.
    expect([503, 201]).toContain(during.status);
    await locker.end().catch(() => undefined);
    db = await startEmbeddedPostgres({ dataDir: path.join(dir, 'pg'), persistent: true, port });
    let retry = { status: 0, replayed: null as string | null, text: '' };
    for (let i = 0; i < 40 && retry.status !== 201; i++) {
      retry = await post(servers[1], order.id, lineId, 'outage-1');
      if (retry.status !== 201) await new Promise((r) => setTimeout(r, 250));
    }
    expect(retry.status).toBe(201);
    expect(await fulfilments(service, order.id)).toBe(2); // 'before-restart' and 'outage-1', once each
    // The answer committed before the restart is still replayed, by either process.
    const replay = await post(servers[1], order.id, lineId, 'before-restart');
    expect(replay).toEqual({ status: 201, replayed: 'true', text: done.text });
  }, 60_000);
});
