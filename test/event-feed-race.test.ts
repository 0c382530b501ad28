// docs/decisions.md#event-feed "Gap-free": a reader that follows the feed's cursor while writes
// commit concurrently on two service processes (and on raw connections that hold their event
// uncommitted for a while) receives every committed event exactly once and never skips one,
// although ids (a sequence) are taken in another order than the transactions commit.

import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { createDatabase } from './support/harness.js';
import { type ServerProcess, startServerProcess } from './support/server-process.js';

const ADMIN = 'sk_feed_race_admin_token_0123456789';
const HTTP_WRITERS = 12;
const WRITES_PER_HTTP_WRITER = 8;
const SLOW_WRITERS = 6;
const WRITES_PER_SLOW_WRITER = 6;
const DEADLINE_MS = 60_000;

let databaseUrl: string;
let processes: ServerProcess[] = [];
let pool: pg.Pool;
beforeAll(async () => {
  databaseUrl = await createDatabase();
  const env = { RATE_LIMIT_RPS: '0', RATE_LIMIT_BURST: '0', DB_POOL_MAX: '8' };
  processes = await Promise.all([0, 1].map(() => startServerProcess(databaseUrl, ADMIN, env)));
  pool = new pg.Pool({ connectionString: databaseUrl, max: SLOW_WRITERS });
}, 60_000);
afterAll(async () => {
  await Promise.all(processes.map((p) => p.stop()));
  await pool?.end();
});

const auth = { authorization: `Bearer ${ADMIN}` };

/** Order edits through both processes, many at once: each commits an event from the service's pool. */
async function httpWriter(writer: number): Promise<void> {
  for (let k = 0; k < WRITES_PER_HTTP_WRITER; k++) {
    const target = processes[(writer + k) % 2];
    const orderId = 1 + writer * WRITES_PER_HTTP_WRITER + k;
    const res = await fetch(`${target.url}/api/v1/orders/${orderId}`, {
      method: 'PATCH',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ notes: `race ${writer}.${k}` }),
    });
    expect(res.status).toBe(200);
    await res.arrayBuffer();
  }
}

/** A transaction that takes its event id, then waits a little before committing: commits land out of id order. */
async function slowWriter(writer: number): Promise<void> {
  for (let k = 0; k < WRITES_PER_SLOW_WRITER; k++) {
    const client = await pool.connect();
    try {
      await client.query('begin');
      await client.query(
        `insert into event (type, created_at, subject, subject_id, data)
         values ('product.updated', now(), 'product', $1, jsonb_build_object('id', $1::int))`,
        [1 + writer],
      );
      await client.query('select pg_sleep($1)', [((writer * 7 + k * 13) % 40) / 1000]);
      await client.query('commit');
    } finally {
      client.release();
    }
  }
}

it('a reader following the cursor across two processes gets every committed event once, none skipped', async () => {
  const started = Date.now();
  const seen: number[] = [];
  let writing = true;
  const writers = Promise.all([
    ...Array.from({ length: HTTP_WRITERS }, (_, w) => httpWriter(w)),
    ...Array.from({ length: SLOW_WRITERS }, (_, w) => slowWriter(w)),
  ]).finally(() => {
    writing = false;
  });

  const reader = (async () => {
    let next = `/api/v1/events?size=25`;
    let committed: number[] | undefined;
    for (let round = 0; Date.now() - started < DEADLINE_MS; round++) {
      // The cursor works on either instance: it is a position in the database, not in a process.
      const res = await fetch(`${processes[round % 2].url}${next}`, { headers: auth });
      expect(res.status).toBe(200);
      const body = (await res.json()) as { items: { id: number }[]; _links: { next: { href: string } } };
      seen.push(...body.items.map((e) => e.id));
      const href = new URL(body._links.next.href);
      next = href.pathname + href.search;
      if (body.items.length) continue;
      if (!writing) {
        committed ??= (await pool.query<{ id: number }>('select id from event order by id')).rows.map((r) => r.id);
        if (seen.length >= committed.length) return committed;
      }
      await sleep(5);
    }
    throw new Error(`the reader did not catch up within ${DEADLINE_MS} ms (saw ${seen.length})`);
  })();

  await writers;
  const committed = await reader;
  expect(committed.length).toBe(HTTP_WRITERS * WRITES_PER_HTTP_WRITER + SLOW_WRITERS * WRITES_PER_SLOW_WRITER);
  // Each committed event exactly once: no duplicate, nothing missing, nothing extra.
  expect(new Set(seen).size).toBe(seen.length);
  expect([...seen].sort((a, b) => a - b)).toEqual(committed);
  // The race was real: the feed's order (commit-safe) differs from id order somewhere, so a reader
  // paging by id would have passed ids that committed later.
  const inversions = seen.filter((id, i) => i > 0 && id < seen[i - 1]).length;
  expect(inversions).toBeGreaterThan(0);
  // Reading again from the start gives the same order (a fixed order, not one per reader).
  const again: number[] = [];
  let next = '/api/v1/events?size=250';
  for (;;) {
    const res = await fetch(`${processes[1].url}${next}`, { headers: auth });
    const body = (await res.json()) as { items: { id: number }[]; _links: { next: { href: string } } };
    if (!body.items.length) break;
    again.push(...body.items.map((e) => e.id));
    const href = new URL(body._links.next.href);
    next = href.pathname + href.search;
  }
  expect(again).toEqual(seen);
}, 90_000);
