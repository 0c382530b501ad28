// Issue #25 item 1: six writes with a body of 50 000 unknown keys, each with its own Idempotency-Key,
// took a process with `npm start`'s heap limit down ("JavaScript heap out of memory"); so did 1 MiB
// of nested lists (500 000 values, one schema error each), key or not. Against a real process with
// those flags, all six admitted at once: every answer is a small 422 naming the body, the process
// keeps answering, and nothing large (nor any write) is kept.
import pg from 'pg';
import { INPUT_LIMITS } from '../src/domain/input-limits.js';
import { createDatabase } from './support/harness.js';
import { npmStartNodeFlags, type ServerProcess, startServerProcess } from './support/server-process.js';

const ADMIN = 'wide-body-crash-admin-token-0123456789';
const WIDE = 50_000;
const wideBody = `{${Array.from({ length: WIDE }, (_, i) => `"k${i}":1`).join(',')}}`;
/** 1 MiB of fulfilment changes, each with a list of 1000 non-objects: 500 000 values. */
const change = (i: number) => `{"id":${i + 1},"items":[${Array(1000).fill(1).join(',')}]}`;
const manyValues = `[${Array.from({ length: 500 }, (_, i) => change(i)).join(',')}]`;

let url: string;
let db: pg.Client;
let server: ServerProcess;
beforeAll(async () => {
  url = await createDatabase();
  db = new pg.Client({ connectionString: url });
  await db.connect();
  // All six at once (the default admits 2 per core): the heap has to hold them together.
  const env = { RATE_LIMIT_BURST: '0', MAX_IN_FLIGHT: '8', MAX_IN_FLIGHT_PER_TOKEN: '8' };
  server = await startServerProcess(url, ADMIN, env, npmStartNodeFlags());
}, 60_000);
afterAll(async () => {
  await server?.stop();
  await db?.end();
});

async function send(method: string, path: string, key?: string, body = wideBody) {
  const headers: Record<string, string> = { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' };
  if (key) headers['idempotency-key'] = key;
  const res = await fetch(`${server.url}${path}`, { method, headers, body });
  const text = await res.text();
  const type = res.headers.get('content-type');
  return { status: res.status, type, size: Buffer.byteLength(text), body: JSON.parse(text) };
}

const fingerprint = async () =>
  (
    await db.query<{ d: string }>(`select md5(string_agg(t::text, '|' order by t::text)) as d from (
    select o::text as t from orders o union all select f::text from fulfilment f) rows`)
  ).rows[0].d;

it('survives six wide bodies with keys under the npm start heap limit, each a small 422 naming the body', async () => {
  expect(npmStartNodeFlags()).toContain('--max-old-space-size=256');
  const { rows } = await db.query<{ id: number }>('select id from orders order by id limit 1');
  const orderId = rows[0].id;
  const before = await fingerprint();
  const answers = await Promise.all(
    Array.from({ length: 6 }, (_, i) =>
      i % 2
        ? send('PATCH', `/api/v1/orders/${orderId}`, `wide-${i}`)
        : send('POST', `/api/v1/orders/${orderId}/fulfilments`, `wide-${i}`),
    ),
  );
  const health = await fetch(`${server.url}/healthz`);
  expect(health.status).toBe(200);
  for (const answer of answers) {
    expect(answer.status).toBe(422);
    expect(answer.type).toMatch(/application\/problem\+json/);
    expect(answer.size).toBeLessThan(4096);
    expect(answer.body.errors).toEqual([{ field: 'body', message: `may hold at most ${INPUT_LIMITS.keys} keys` }]);
  }
  expect(await fingerprint()).toBe(before);
  // A refusal at the edge never reaches the key store: a retry with the same key is refused the same way.
  const kept = await db.query<{ n: number; longest: number | null }>(
    `select count(*)::int as n, max(length(response::text))::int as longest
     from idempotency_key where key like 'wide-%'`,
  );
  expect(kept.rows[0].longest ?? 0).toBeLessThan(4096);
  const again = await send('PATCH', `/api/v1/orders/${orderId}`, 'wide-1');
  expect({ status: again.status, errors: again.body.errors }).toEqual({ status: 422, errors: answers[1].body.errors });
}, 120_000);

it('survives six bodies of 500 000 values, with and without keys, each a small 422 naming the body', async () => {
  expect(manyValues.length).toBeLessThan(1024 * 1024);
  const { rows } = await db.query<{ id: number }>('select id from orders order by id limit 1');
  const before = await fingerprint();
  const path = `/api/v1/orders/${rows[0].id}/fulfilments`;
  const answers = await Promise.all(
    Array.from({ length: 6 }, (_, i) => send('PATCH', path, i % 2 ? `values-${i}` : undefined, manyValues)),
  );
  expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
  for (const answer of answers) {
    expect({ status: answer.status, size: answer.size < 4096 }).toEqual({ status: 422, size: true });
    const message = `may hold at most ${INPUT_LIMITS.values} values in all`;
    expect(answer.body.errors).toEqual([{ field: 'body', message }]);
  }
  expect(await fingerprint()).toBe(before);
}, 120_000);
