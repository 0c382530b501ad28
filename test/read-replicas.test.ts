// DATABASE_READ_URL (docs/decisions.md#read-replicas): reads go to a real streaming
// replica, a client reads its own writes on any instance, and a replica that goes away mid-load
// costs no client an error. The replica applies WAL 1.5 s late (recovery_min_apply_delay), so a
// read that reaches it shows the store as it was 1.5 s ago: that is how these tests tell where a
// read ran, from outside.
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { type EmbeddedServer, startEmbeddedPostgres } from '../src/db/embedded-postgres.js';
import { type StreamingReplica, startStreamingReplica } from '../src/db/streaming-replica.js';
import { checkAgainstOpenApi, loadOpenApiDocument } from './support/openapi-check.js';
import { type ServerProcess, startServerProcess } from './support/server-process.js';
import { until } from './support/until.js';

const ADMIN = 'admin-token-for-read-replica-tests';
let dir: string;
let primary: EmbeddedServer;
let replica: StreamingReplica;
let a: ServerProcess;
let b: ServerProcess;
let sql: pg.Client;
let reader: string;

async function call(server: ServerProcess, token: string, pathAndQuery: string, init: RequestInit = {}) {
  const res = await fetch(`${server.url}${pathAndQuery}`, {
    ...init,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...init.headers },
  });
  const text = await res.text();
  return {
    status: res.status,
    body: text && res.headers.get('content-type')?.includes('json') ? JSON.parse(text) : text,
  };
}

async function readyReplica(server: ServerProcess): Promise<string> {
  const ready = await call(server, ADMIN, '/readyz');
  // As the served OpenAPI document says it is (its replicas' states included).
  checkAgainstOpenApi('GET', '/readyz', ready.status, 'application/json', ready.body);
  return ready.body.replicas?.[0]?.state;
}

async function readsOn(server: ServerProcess, target: string): Promise<number> {
  const metrics = await call(server, ADMIN, '/metrics');
  const line = (metrics.body as string).split('\n').find((l) => l.startsWith(`db_reads_total{target="${target}"}`));
  return line ? Number(line.split(' ').pop()) : 0;
}

/** Answers of `carrier` PostgreSQL wrote (`postgres`) or that were executed (`answers_by_road_total`). */
async function answersBy(server: ServerProcess, carrier: string, road: 'postgres' | 'executed'): Promise<number> {
  const metrics = await call(server, ADMIN, '/metrics');
  const name = `answers_by_road_total{carrier="${carrier}",road="${road}"}`;
  const line = (metrics.body as string).split('\n').find((l) => l.startsWith(name));
  return line ? Number(line.split(' ').pop()) : 0;
}

beforeAll(async () => {
  await loadOpenApiDocument();
  dir = await mkdtemp(path.join(os.tmpdir(), 'store-replica-'));
  await chmod(dir, 0o755);
  primary = await startEmbeddedPostgres({ dataDir: path.join(dir, 'primary'), persistent: false });
  await primary.createDatabase('store');
  replica = await startStreamingReplica({
    primaryUrl: primary.url('postgres'),
    primaryDataDir: path.join(dir, 'primary'),
    dataDir: path.join(dir, 'replica'),
    settings: { recovery_min_apply_delay: '1500ms' },
  });
  const env = { DATABASE_READ_URL: replica.url('store'), REPLICA_MAX_LAG_MS: '5000', RATE_LIMIT_RPS: '0' };
  a = await startServerProcess(primary.url('store'), ADMIN, { ...env, SEED_DEMO: 'true' });
  b = await startServerProcess(primary.url('store'), ADMIN, env);
  sql = new pg.Client({ connectionString: primary.url('store') });
  await sql.connect();
  const created = await call(a, ADMIN, '/graphql', {
    method: 'POST',
    body: JSON.stringify({
      query: 'mutation { createApiToken(name: "reader", scopes: ["read_products"]) { secret } }',
    }),
  });
  reader = created.body.data.createApiToken.secret;
  // The seeded store and the reader's token have reached the replica, and both services use it.
  await until(async () => (await call(a, reader, '/api/v1/products?size=1')).status === 200, 20_000);
  await until(async () => (await readyReplica(a)) === 'streaming' && (await readyReplica(b)) === 'streaming', 20_000);
}, 120_000);

// The stops are bounded each: the services drain within their grace (10 s), the replica is thrown
// away with an immediate shutdown within 30 s (src/db/streaming-replica.ts destroy), and the
// primary's fast shutdown has a small cluster to checkpoint. The hook's budget holds all of them on
// a loaded CI machine.
afterAll(async () => {
  await Promise.all([a?.stop(), b?.stop()]);
  await sql?.end();
  await replica?.destroy();
  await primary?.stop();
  await rm(dir, { recursive: true, force: true });
}, 120_000);

const titleOf = async (server: ServerProcess, token: string, id: number) =>
  (await call(server, token, `/api/v1/products/${id}?fields=id,title`)).body.title as string;

it('sends reads of a client that has not written to the replica', async () => {
  const [{ id }] = (await sql.query<{ id: number }>('select id from product order by id limit 1')).rows;
  const before = await titleOf(a, reader, id);
  const replicaReads = await readsOn(a, 'replica-1');
  // Changed on the primary behind the service's back: the replica shows it only 1.5 s later.
  await sql.query(`update product set title = title || ' (renamed)' where id = $1`, [id]);
  expect(await titleOf(a, reader, id)).toBe(before);
  expect(await readsOn(a, 'replica-1')).toBeGreaterThan(replicaReads);
  // A /graphql query goes there too.
  const graphqlReads = await readsOn(a, 'replica-1');
  const gql = await call(a, reader, '/graphql', {
    method: 'POST',
    body: JSON.stringify({ query: `{ product(id: ${id}) { title } }` }),
  });
  expect(gql.body.data.product.title).toBe(before);
  expect(await readsOn(a, 'replica-1')).toBe(graphqlReads + 1);
  // On the replica as on the primary, PostgreSQL writes the answer: a /graphql record, a REST list.
  const written = {
    graphql: await answersBy(a, 'graphql', 'postgres'),
    rest: await answersBy(a, 'rest_list', 'postgres'),
  };
  const executed = {
    graphql: await answersBy(a, 'graphql', 'executed'),
    rest: await answersBy(a, 'rest_list', 'executed'),
  };
  const again = await call(a, reader, '/graphql', {
    method: 'POST',
    body: JSON.stringify({ query: `{ product(id: ${id}) { id title } }` }),
  });
  expect(again.body.data.product).toEqual({ id, title: before });
  const list = await call(a, reader, `/api/v1/products?fields=id,title&size=250`);
  expect(list.body.items.find((p: { id: number }) => p.id === id).title).toBe(before);
  expect(await readsOn(a, 'replica-1')).toBe(graphqlReads + 3);
  expect(await answersBy(a, 'graphql', 'postgres')).toBe(written.graphql + 1);
  expect(await answersBy(a, 'rest_list', 'postgres')).toBe(written.rest + 1);
  expect({
    graphql: await answersBy(a, 'graphql', 'executed'),
    rest: await answersBy(a, 'rest_list', 'executed'),
  }).toEqual(executed);
  await until(async () => (await titleOf(a, reader, id)) === `${before} (renamed)`, 10_000);
});

it('shows a client its own write at once, on another instance too, although the replica is behind', async () => {
  const [{ id }] = (await sql.query<{ id: number }>('select id from product order by id limit 1 offset 1')).rows;
  for (let round = 1; round <= 3; round++) {
    const title = `read-your-writes ${round}`;
    const patched = await call(a, ADMIN, `/api/v1/products/${id}`, {
      method: 'PATCH',
      body: JSON.stringify({ title }),
    });
    expect(patched.status).toBe(200);
    expect(await titleOf(b, ADMIN, id)).toBe(title);
    expect(await titleOf(a, ADMIN, id)).toBe(title);
    // GraphQL reads follow the same rule.
    const gql = await call(b, ADMIN, '/graphql', {
      method: 'POST',
      body: JSON.stringify({ query: `{ product(id: ${id}) { title } }` }),
    });
    expect(gql.body.data.product.title).toBe(title);
  }
  // Another client, which wrote nothing, still reads from the replica meanwhile.
  expect(await titleOf(b, reader, id)).not.toBe('read-your-writes 3');
});

/** An export's records (id → title), after checking its complete line. */
async function exportedTitles(server: ServerProcess, token: string): Promise<Map<number, string>> {
  const res = await fetch(`${server.url}/api/v1/products/export?fields=id,title`, {
    headers: { authorization: `Bearer ${token}` },
  });
  expect(res.status).toBe(200);
  const lines = (await res.text())
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line));
  expect(lines.at(-1)).toEqual({ complete: true, count: lines.length - 1 });
  return new Map(lines.slice(0, -1).map((line: { id: number; title: string }) => [line.id, line.title]));
}

it('runs an export in one snapshot on the replica, and shows a client its own write in its export', async () => {
  const [{ id }] = (await sql.query<{ id: number }>('select id from product order by id limit 1 offset 2')).rows;
  const before = (await exportedTitles(a, reader)).get(id);
  expect(before).toEqual(expect.any(String));
  const replicaReads = await readsOn(a, 'replica-1');
  await sql.query(`update product set title = 'exported behind its back' where id = $1`, [id]);
  expect((await exportedTitles(a, reader)).get(id)).toBe(before);
  expect(await readsOn(a, 'replica-1')).toBe(replicaReads + 1);
  const patched = await call(b, ADMIN, `/api/v1/products/${id}`, {
    method: 'PATCH',
    body: JSON.stringify({ title: 'exported own write' }),
  });
  expect(patched.status).toBe(200);
  expect((await exportedTitles(a, ADMIN)).get(id)).toBe('exported own write');
});

it('follows the event feed on the replica without a gap while commits land out of id order', async () => {
  // The reader starts from the newest event the replica has, so it follows the feed there, 1.5 s late.
  const standby = new pg.Client({ connectionString: replica.url('store') });
  await standby.connect();
  const [{ start }] = (await standby.query<{ start: number }>('select coalesce(max(id), 0)::int as start from event'))
    .rows;
  await standby.end();
  const replicaReads = await readsOn(a, 'replica-1');
  const pool = new pg.Pool({ connectionString: primary.url('store'), max: 6 });
  const inserted: number[] = [];
  // Each transaction takes its event id, then waits before committing: commits land out of id order.
  const slowWriter = async (writer: number) => {
    for (let k = 0; k < 6; k++) {
      const client = await pool.connect();
      try {
        await client.query('begin');
        const { rows } = await client.query<{ id: number }>(
          `insert into event (type, created_at, subject, subject_id, data)
           values ('product.updated', now(), 'product', $1, jsonb_build_object('id', $1::int)) returning id`,
          [1 + writer],
        );
        await client.query('select pg_sleep($1)', [((writer * 7 + k * 13) % 40) / 1000]);
        await client.query('commit');
        inserted.push(rows[0].id);
      } finally {
        client.release();
      }
    }
  };
  const seen: number[] = [];
  let writing = true;
  const writers = Promise.all([0, 1, 2, 3, 4, 5].map(slowWriter)).finally(() => {
    writing = false;
    return pool.end();
  });
  let next = `/api/v1/events?size=25&types=product.*&after=${start}`;
  for (const end = Date.now() + 30_000; ; ) {
    const res = await call(a, reader, next);
    expect(res.status).toBe(200);
    seen.push(...res.body.items.map((e: { id: number }) => e.id));
    const href = new URL(res.body._links.next.href);
    next = href.pathname + href.search;
    if (!writing && inserted.every((id) => seen.includes(id))) break;
    if (Date.now() > end) throw new Error(`the reader did not catch up (saw ${seen.length} of ${inserted.length})`);
    if (!res.body.items.length) await new Promise((r) => setTimeout(r, 50));
  }
  await writers;
  // Every committed event once, none skipped, and each page was read on the replica.
  expect(new Set(seen).size).toBe(seen.length);
  // (Events of the earlier tests that the replica had not replayed when the reader began come too.)
  const written = new Set(inserted);
  expect(seen.filter((id) => written.has(id)).sort((x, y) => x - y)).toEqual([...inserted].sort((x, y) => x - y));
  expect(await readsOn(a, 'replica-1')).toBeGreaterThan(replicaReads);

  // A cursor from the primary that the replica has not replayed yet is neither unknown (400) nor
  // purged (410): the read runs on the primary, which has it.
  const fallbacks = async () => {
    const metrics = (await call(a, ADMIN, '/metrics')).body as string;
    const line = metrics.split('\n').find((l) => l.startsWith('db_read_fallbacks_total{reason="cursor_ahead"}'));
    return line ? Number(line.split(' ').pop()) : 0;
  };
  const before = await fallbacks();
  const { rows } = await sql.query<{ id: number }>(
    `insert into event (type, created_at, subject, subject_id, data)
     values ('product.updated', now(), 'product', 1, '{}'::jsonb) returning id`,
  );
  const ahead = await call(a, reader, `/api/v1/events?types=product.*&after=${rows[0].id}`);
  expect(ahead.status).toBe(200);
  expect(ahead.body.items).toEqual([]);
  expect(await fallbacks()).toBe(before + 1);
}, 60_000);

it('answers every read while the replica stops mid-load, reports it, and returns to it once it is back', async () => {
  const statuses: number[] = [];
  let stopped = false;
  const load = async (server: ServerProcess) => {
    for (const end = Date.now() + 4000; Date.now() < end; ) {
      statuses.push((await call(server, reader, '/api/v1/products?size=5&expand=variants')).status);
    }
  };
  const stopping = (async () => {
    await new Promise((r) => setTimeout(r, 1000));
    await replica.stop();
    stopped = true;
  })();
  await Promise.all([load(a), load(a), load(b), stopping]);
  expect(stopped).toBe(true);
  expect(statuses.length).toBeGreaterThan(20);
  expect(statuses.filter((s) => s !== 200)).toEqual([]);
  const ready = await call(a, ADMIN, '/readyz');
  expect(ready.status).toBe(200);
  expect(ready.body.replicas[0].state).toBe('down');

  await replica.start();
  await until(async () => (await readyReplica(a)) === 'streaming', 20_000);
  const before = await readsOn(a, 'replica-1');
  expect((await call(a, reader, '/api/v1/products?size=1')).status).toBe(200);
  expect(await readsOn(a, 'replica-1')).toBe(before + 1);
}, 60_000);
