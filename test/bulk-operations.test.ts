// Bulk operations (docs/decisions.md#bulk-writes) against a real PostgreSQL: both forms, results in
// input order, each line answered as its single request is (refusals, scopes, If-Match), a malformed
// file refused whole, BULK_MAX_RUNNING, cancel, the finished event. The crash of a runner mid-way is
// test/bulk-crash.test.ts.
import { Readable } from 'node:stream';
import pg from 'pg';
import { hashSecret } from '../src/auth/api-tokens.js';
import { purgeBulkOperations } from '../src/bulk/retention.js';
import { storeUpload } from '../src/bulk/uploads.js';
import { createDatabase, startTestService, type TestService } from './support/harness.js';
import { lockWaits } from './support/lock-waits.js';
import { pickVariants, placeOrder, setStock, stockOf } from './support/orders.js';
import { until } from './support/until.js';

let service: TestService;
let databaseUrl: string;
let variants: { tracked: number; untracked: number };
beforeAll(async () => {
  databaseUrl = await createDatabase();
  // Two operations at once on this process, one per token: the limits below are told apart.
  service = await startTestService({ databaseUrl, bulk: { pollMs: 50, concurrency: 2, maxRunning: 1 } });
  variants = await pickVariants(service);
  await setStock(service, 1, variants.tracked, 1000);
}, 30_000);
afterAll(() => service.stop());

const WAREHOUSE = 1;
const ndjson = (lines: unknown[]) => `${lines.map((line) => JSON.stringify(line)).join('\n')}\n`;
const upload = (path: string, body: string, token?: string) =>
  service.send('POST', `/api/v1/bulk-operations${path}`, body, token, { 'content-type': 'application/x-ndjson' });
const operation = async (id: number, token?: string) =>
  (await service.get(`/api/v1/bulk-operations/${id}`, token)).body;
const statusOf = async (id: number, token?: string) => (await operation(id, token)).status as string;
const finished = (id: number, token?: string, ms = 30_000) =>
  until(async () => {
    const body = await operation(id, token);
    return ['completed', 'failed', 'canceled'].includes(body.status) && body;
  }, ms);
const results = async (id: number, token?: string, query = '') => {
  const res = await service.get(`/api/v1/bulk-operations/${id}/results${query}`, token);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^application\/x-ndjson/);
  return res.text
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line));
};
const fulfil = (orderId: number, lineItem: number, quantity: number) => ({
  method: 'POST',
  path: `/orders/${orderId}/fulfilments`,
  body: { items: [{ id: lineItem, quantity, warehouse: WAREHOUSE }] },
});
const newOrder = async (quantity = 2) => {
  const order = await placeOrder(service, [{ variantId: variants.tracked, quantity }]);
  return { id: order.id as number, line: order.items[0].data.id as number };
};

/** Resolves once `count` statements wait for a lock: a line blocked on a held order (then a cancel waiting for it). */
const lineWaiting = (count = 1) => lockWaits(service, count);

/** Holds an order's row lock from another connection, so a line writing it waits until `release`. */
async function holdOrder(orderId: number) {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  await client.query('begin');
  await client.query('select id from orders where id = $1 for update', [orderId]);
  return async () => {
    await client.query('rollback');
    await client.end();
  };
}

describe('the REST form', () => {
  it('answers 202, applies the lines in file order and reports each as its request would have', async () => {
    const order = await newOrder(2);
    const before = await service.get(`/api/v1/orders/${order.id}`);
    const staleEtag = before.headers.get('etag')!;
    const lines = [
      fulfil(order.id, order.line, 1),
      fulfil(order.id, order.line, 5),
      { method: 'PATCH', path: `/orders/${order.id}`, body: { notes: 'too late' }, headers: { 'If-Match': staleEtag } },
      { method: 'PATCH', path: '/orders/99999999', body: { notes: 'nobody' } },
      { method: 'PATCH', path: `/orders/${order.id}`, body: { notes: 5 } },
      { method: 'PATCH', path: `/orders/${order.id}?fields=id,notes`, body: { notes: 'packed' } },
      { method: 'DELETE', path: `/orders/${order.id}/fulfilments/99999999` },
    ];
    const made = await upload('', ndjson(lines));
    expect(made.status).toBe(202);
    expect(made.headers.get('location')).toBe(`/api/v1/bulk-operations/${made.body.id}`);
    // As it is when answered: made, or already claimed by a runner polling meanwhile (this process's
    // own are woken only after the answer is read).
    expect(made.body).toMatchObject({ total_lines: 7 });
    expect(['created', 'running', 'completed']).toContain(made.body.status);
    const done = await finished(made.body.id);
    expect(done).toMatchObject({ status: 'completed', total_lines: 7, processed_lines: 7, failed_lines: 5 });
    expect(done.completed_at).toBeGreaterThanOrEqual(done.created_at);

    const got = await results(made.body.id);
    expect(got.map((r) => [r.line, r.status])).toEqual([
      [1, 201],
      [2, 409],
      [3, 412],
      [4, 404],
      [5, 422],
      [6, 200],
      [7, 404],
    ]);
    // The order as the last write left it: the fulfilment of line 1 and the notes of line 6.
    const now = await service.get(`/api/v1/orders/${order.id}`);
    expect(got[0].body.fulfilments).toHaveLength(1);
    expect(got[5].body).toEqual({ id: order.id, notes: 'packed' });
    expect(got[5].etag).toBe(now.headers.get('etag'));
    expect(now.body.notes).toBe('packed');

    // Each refusal is what the single request answers, status and body (the state it met is the same);
    // the stale If-Match's names the version the order had then (line 6 has moved it on since).
    expect(got[2].body.detail).toMatch(/its version is now 2\b/);
    for (const at of [1, 3, 4, 6]) {
      const line = lines[at] as { method: string; path: string; body?: unknown; headers?: Record<string, string> };
      const single = await service.send(line.method, `/api/v1${line.path}`, line.body, undefined, line.headers);
      expect({ line: at + 1, status: got[at].status, body: got[at].body }).toEqual({
        line: at + 1,
        status: single.status,
        body: single.body,
      });
    }
  });

  it('undoes a line whose write failed midway, and runs the next line after it', async () => {
    // Two tracked variants, the first in stock and the second not: the fulfilment takes the first's
    // units, then finds the second short (409), so the line's effects so far must be undone.
    const [first, second] = await service.sql<{ id: number }>(
      'select v.id from product_variant v join product p on p.id = v.product_id ' +
        'where p.track_inventory and v.id <> ? order by v.id limit 2',
      [variants.tracked],
    );
    await setStock(service, WAREHOUSE, first.id, 7);
    await setStock(service, WAREHOUSE, second.id, 0);
    const order = await placeOrder(service, [
      { variantId: first.id, quantity: 1 },
      { variantId: second.id, quantity: 1 },
    ]);
    const [a, b] = order.items.map((item: any) => item.data.id as number);
    const movements = async () =>
      (
        await service.sql<{ n: number }>('select count(*)::int as n from inventory_movement where variant_id = ?', [
          first.id,
        ])
      )[0].n;
    const movedBefore = await movements();
    const both = {
      items: [
        { id: a, quantity: 1, warehouse: WAREHOUSE },
        { id: b, quantity: 1, warehouse: WAREHOUSE },
      ],
    };
    const lines = [
      { method: 'POST', path: `/orders/${order.id}/fulfilments`, body: both },
      { method: 'PATCH', path: `/orders/${order.id}`, body: { notes: 'after the refusal' } },
    ];
    const made = await upload('', ndjson(lines));
    expect(await finished(made.body.id)).toMatchObject({ status: 'completed', processed_lines: 2, failed_lines: 1 });
    const got = await results(made.body.id);
    const single = await service.send('POST', `/api/v1/orders/${order.id}/fulfilments`, both);
    expect(single.status).toBe(409);
    expect(got.map((r) => [r.line, r.status])).toEqual([
      [1, 409],
      [2, 200],
    ]);
    expect(got[0].body).toEqual(single.body);
    // Nothing of the refused line is left: the first variant's units, its movements, the order's fulfilments.
    expect(await stockOf(service, WAREHOUSE, first.id)).toBe(7);
    expect(await movements()).toBe(movedBefore);
    const now = await service.get(`/api/v1/orders/${order.id}`);
    expect(now.body.fulfilments).toEqual([]);
    expect(now.body.notes).toBe('after the refusal');
  });

  it('gives each line its usual event and timeline entry, by the token that started the operation', async () => {
    const order = await newOrder(3);
    const made = await upload('', ndjson([fulfil(order.id, order.line, 1), fulfil(order.id, order.line, 1)]));
    await finished(made.body.id);
    const timeline = await service.get(`/api/v1/orders/${order.id}/events`);
    const created = timeline.body.items.filter((e: any) => e.type === 'fulfilment.created');
    expect(created).toHaveLength(2);
    expect(created[0].actor.name).toBe('test (all scopes)');
  });

  it('holds each line to the scope of its own write, with the token of the operation', async () => {
    const order = await newOrder(1);
    const ordersOnly = await service.tokenWith(['write_orders', 'read_orders']);
    const lines = [
      { method: 'PATCH', path: `/orders/${order.id}`, body: { notes: 'allowed' } },
      { method: 'PATCH', path: '/customers/1', body: { note: 'not allowed' } },
      { method: 'POST', path: '/inventory-levels/adjustments', body: { reason: 'other', changes: [] } },
    ];
    const made = await upload('', ndjson(lines), ordersOnly);
    expect(made.status).toBe(202);
    await finished(made.body.id, ordersOnly);
    const got = await results(made.body.id, ordersOnly);
    expect(got.map((r) => r.status)).toEqual([200, 403, 403]);
    for (const at of [1, 2]) {
      const single = await service.send(lines[at].method, `/api/v1${lines[at].path}`, lines[at].body, ordersOnly);
      expect(got[at].body).toEqual(single.body);
    }
    // A token with no scope of any write may not start one at all.
    const reader = await service.tokenWith(['read_orders']);
    const refused = await upload('', ndjson([lines[0]]), reader);
    expect(refused.status).toBe(403);
  });

  it('refuses a malformed line with a 400 naming it, and keeps nothing of the file', async () => {
    const order = await newOrder(1);
    const good = { method: 'PATCH', path: `/orders/${order.id}`, body: { notes: 'never' } };
    const [{ count: uploadsBefore }] = await service.sql<{ count: string }>('select count(*) from bulk_upload');
    const cases: [string, number, RegExp][] = [
      [`${ndjson([good, good, good])}{"method": "PATCH", "path": \n`, 4, /not valid JSON/],
      [`${ndjson([good, [1, 2], good])}`, 2, /not a JSON object/],
      [`${ndjson([good])}\n${ndjson([good])}`, 2, /empty/],
      [ndjson([good, { ...good, method: 'GET' }]), 2, /method/],
      [ndjson([good, good, { ...good, path: '/orders' }]), 3, /no write route PATCH \/orders/],
      [ndjson([{ ...good, path: '/bulk-operations/1/cancel', method: 'POST' }]), 1, /no write route/],
      // A path of its own (as for the router, whose answer is a 405), not an order with the id "search".
      [ndjson([good, { ...good, path: '/orders/search' }]), 2, /no write route PATCH \/orders\/search/],
      [ndjson([{ ...good, headers: { 'Idempotency-Key': 'k' } }]), 1, /only If-Match/],
      [ndjson([{ ...good, extra: 1 }]), 1, /unknown keys extra/],
      // JSON lets a \u escape write text no field takes and PostgreSQL's JSON functions cannot read.
      [ndjson([good, { ...good, body: { notes: 'a\u0000b' } }]), 2, /body\.notes must not contain the NUL/],
      [ndjson([good, good, { ...good, body: { tags: ['x', '\ud800'] } }]), 3, /body\.tags\[1\] .*unpaired surrogate/],
      [ndjson([{ ...good, body: { 'no\u0000te': 'x' } }]), 1, /a key of body must not contain the NUL/],
    ];
    for (const [file, line, message] of cases) {
      const res = await upload('', file);
      expect(res.status).toBe(400);
      expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(res.body.errors[0].field).toBe(`line ${line}`);
      expect(res.body.detail).toMatch(message);
    }
    const [{ count: uploadsAfter }] = await service.sql<{ count: string }>('select count(*) from bulk_upload');
    expect(uploadsAfter).toBe(uploadsBefore);
    expect((await service.get(`/api/v1/orders/${order.id}`)).body.notes).not.toBe('never');
    // Not NDJSON at all; no lines.
    expect((await service.send('POST', '/api/v1/bulk-operations', [good])).status).toBe(415);
    expect((await upload('', '')).status).toBe(400);
  });

  it('answers an upload whose COPY PostgreSQL ended midway with 503, and keeps nothing', async () => {
    const order = await newOrder(1);
    const patch = { method: 'PATCH', path: `/orders/${order.id}`, body: { notes: 'x'.repeat(2000) } };
    const line = `${JSON.stringify(patch)}\n`;
    const [{ count: before }] = await service.sql<{ count: string }>('select count(*) from bulk_upload');
    let sent = 0;
    let cut = false;
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        if (sent === 2000 && !cut) {
          // The file is under way: end the backend that copies it, then send the last lines.
          cut = true;
          const copying = "from pg_stat_activity where query like 'copy bulk_line%' and datname = current_database()";
          await until(async () => (await service.sql(`select pid ${copying}`)).length > 0, 10_000);
          await service.sql(`select pg_terminate_backend(pid) ${copying}`);
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
        if (sent === 2010) return controller.close();
        sent++;
        controller.enqueue(new TextEncoder().encode(line));
      },
    });
    const res = await fetch(`${service.url}/api/v1/bulk-operations`, {
      method: 'POST',
      headers: { authorization: `Bearer ${service.token}`, 'content-type': 'application/x-ndjson' },
      body,
      duplex: 'half',
    } as RequestInit);
    expect(cut).toBe(true);
    expect({ status: res.status, retryAfter: res.headers.get('retry-after') }).toEqual({
      status: 503,
      retryAfter: '2',
    });
    const [{ count: after }] = await service.sql<{ count: string }>('select count(*) from bulk_upload');
    expect(after).toBe(before);
    // The service's pool is whole: a request needing a connection answers.
    expect((await service.get(`/api/v1/orders/${order.id}`)).status).toBe(200);
  }, 30_000);

  it('takes an Idempotency-Key as any writing POST: a repeat replays the operation, another file 422', async () => {
    const order = await newOrder(1);
    const file = ndjson([{ method: 'PATCH', path: `/orders/${order.id}`, body: { notes: 'once' } }]);
    const count = async (table: string) =>
      Number((await service.sql<{ n: string }>(`select count(*) as n from ${table}`))[0].n);
    const keyed = (body: string, path = '') =>
      service.send('POST', `/api/v1/bulk-operations${path}`, body, undefined, {
        'content-type': 'application/x-ndjson',
        'idempotency-key': `sync-${order.id}${path}`,
      });
    const first = await keyed(file);
    expect(first.status).toBe(202);
    const [operations, uploads] = [await count('bulk_operation'), await count('bulk_upload')];
    const again = await keyed(file);
    expect({ status: again.status, id: again.body.id, location: again.headers.get('location') }).toEqual({
      status: 202,
      id: first.body.id,
      location: first.headers.get('location'),
    });
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toMatchObject({ id: first.body.id, total_lines: 1 });
    const other = await keyed(ndjson([{ method: 'PATCH', path: `/orders/${order.id}`, body: { notes: 'twice' } }]));
    expect(other.status).toBe(422);
    expect(other.body.errors[0].field).toBe('Idempotency-Key');
    expect([await count('bulk_operation'), await count('bulk_upload')]).toEqual([operations, uploads]);
    // The variables of a GraphQL operation alike.
    const variables = ndjson([{ id: order.id }]);
    const uploaded = await keyed(variables, '/uploads');
    expect(uploaded.status).toBe(201);
    const replayed = await keyed(variables, '/uploads');
    expect({ status: replayed.status, body: replayed.body }).toEqual({ status: 201, body: uploaded.body });
    expect(await count('bulk_upload')).toBe(uploads + 1);
    // A key that is not one is refused before the file is read: nothing kept.
    const bad = await service.send('POST', '/api/v1/bulk-operations', file, undefined, {
      'content-type': 'application/x-ndjson',
      'idempotency-key': 'x'.repeat(300),
    });
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0].field).toBe('Idempotency-Key');
    expect(await count('bulk_upload')).toBe(uploads + 1);
  });

  it('answers a line whose body is over 1 MiB with the 413 of its single request', async () => {
    const order = await newOrder(1);
    const body = { notes: 'x'.repeat(1024 * 1024) };
    const single = await service.send('PATCH', `/api/v1/orders/${order.id}`, body);
    expect(single.status).toBe(413);
    const made = await upload('', ndjson([{ method: 'PATCH', path: `/orders/${order.id}`, body }]));
    expect(made.status).toBe(202);
    await finished(made.body.id);
    const [line] = await results(made.body.id);
    expect({ status: line.status, detail: line.body.detail }).toEqual({ status: 413, detail: single.body.detail });
  });

  it('answers a method the bulk paths do not take with 405 naming theirs', async () => {
    const cases: [string, string, string][] = [
      ['PUT', '/api/v1/bulk-operations', 'GET, POST'],
      ['GET', '/api/v1/bulk-operations/uploads', 'POST'],
      ['DELETE', '/api/v1/bulk-operations/1/results', 'GET'],
    ];
    for (const [method, path, allow] of cases) {
      const res = await service.send(method, path);
      expect({ method, path, status: res.status, allow: res.headers.get('allow') }).toEqual({
        method,
        path,
        status: 405,
        allow,
      });
    }
  });

  it('streams a result line per input line in input order, and the failed ones alone on request', async () => {
    const order = await newOrder(1);
    // Past a chunk of lines read (500) and of results streamed (1000).
    const lines = Array.from({ length: 1100 }, (_, i) =>
      i % 100 === 99
        ? { method: 'PATCH', path: '/orders/99999999', body: { notes: `${i}` } }
        : { method: 'PATCH', path: `/orders/${order.id}`, body: { notes: `note ${i + 1}` } },
    );
    const made = await upload('', ndjson(lines));
    const done = await finished(made.body.id, undefined, 100_000);
    expect(done).toMatchObject({ processed_lines: 1100, failed_lines: 11 });
    const got = await results(made.body.id);
    expect(got.map((r) => r.line)).toEqual(lines.map((_, i) => i + 1));
    expect((await service.get(`/api/v1/orders/${order.id}`)).body.notes).toBe('note 1099');
    const failed = await results(made.body.id, undefined, '?failed=true');
    expect(failed.map((r) => r.line)).toEqual([100, 200, 300, 400, 500, 600, 700, 800, 900, 1000, 1100]);
    expect((await service.get(`/api/v1/bulk-operations/${made.body.id}/results?failed=maybe`)).status).toBe(400);
  }, 120_000);
});

describe('an operation belongs to the token that started it', () => {
  it('is not found by another token: the operation, its results, its cancel', async () => {
    const order = await newOrder(1);
    const made = await upload('', ndjson([{ method: 'PATCH', path: `/orders/${order.id}`, body: { notes: 'x' } }]));
    const other = await service.tokenWith(['write_orders']);
    expect((await service.get(`/api/v1/bulk-operations/${made.body.id}`, other)).status).toBe(404);
    expect((await service.get(`/api/v1/bulk-operations/${made.body.id}/results`, other)).status).toBe(404);
    expect(
      (await service.send('POST', `/api/v1/bulk-operations/${made.body.id}/cancel`, undefined, other)).status,
    ).toBe(404);
    const list = await service.get('/api/v1/bulk-operations', other);
    expect(list.body.items.map((o: any) => o.id)).not.toContain(made.body.id);
    // Finished first: the list and the record are read one after the other, and a running
    // operation may move between the two reads.
    await finished(made.body.id);
    const mine = await service.get('/api/v1/bulk-operations');
    expect(mine.body.items[0].id).toBe(made.body.id); // newest first
    // The list's items (PostgreSQL writes them, the status in lower case) are the records as read one by one.
    const one = await service.get(`/api/v1/bulk-operations/${made.body.id}`);
    expect(mine.body.items[0]).toEqual(one.body);
    expect(one.body.status).toMatch(/^[a-z]+$/);
  });
});

describe('BULK_MAX_RUNNING and cancel', () => {
  /**
   * Runs `test` while the token's first operation runs, its line waiting on an order another
   * connection holds; `release` lets it finish (done at the end in any case). `free`: an order
   * nothing holds.
   */
  async function whileOneRuns(test: (free: number, first: number, release: () => Promise<void>) => Promise<void>) {
    const held = await newOrder(1);
    const free = await newOrder(1);
    const unlock = await holdOrder(held.id);
    let released = false;
    const release = async () => {
      if (released) return;
      released = true;
      await unlock();
    };
    try {
      const first = await upload('', ndjson([{ method: 'PATCH', path: `/orders/${held.id}`, body: { notes: 'A' } }]));
      await until(async () => (await statusOf(first.body.id)) === 'running', 10_000);
      await test(free.id, first.body.id, release);
    } finally {
      await release();
    }
  }
  const notes = (orderId: number, text: string) =>
    ndjson([{ method: 'PATCH', path: `/orders/${orderId}`, body: { notes: text } }]);

  it('runs one operation per token at a time (the next waits in created), and others’ beside it', () =>
    whileOneRuns(async (free, first, release) => {
      const second = await upload('', notes(free, 'B'));
      const someoneElse = await service.tokenWith(['write_orders']);
      const third = await upload('', notes(free, 'C'), someoneElse);
      // Another token's operation runs while the first token's second one waits.
      await finished(third.body.id, someoneElse);
      expect(await statusOf(second.body.id)).toBe('created');
      expect((await service.get(`/api/v1/orders/${free}`)).body.notes).toBe('C');
      await release();
      expect(await finished(first)).toMatchObject({ status: 'completed', processed_lines: 1 });
      expect(await finished(second.body.id)).toMatchObject({ status: 'completed', processed_lines: 1 });
      expect((await service.get(`/api/v1/orders/${free}`)).body.notes).toBe('B');
    }));

  it(
    'a token with many operations waiting holds back none of another token’s',
    () =>
      whileOneRuns(async (free, _, release) => {
        // More waiting operations than a claim looks at in one go (20), all older than the other token's.
        const waiting: number[] = [];
        for (let i = 0; i < 25; i++) waiting.push((await upload('', notes(free, `A${i}`))).body.id);
        const someoneElse = await service.tokenWith(['write_orders']);
        const other = await upload('', notes(free, 'other'), someoneElse);
        expect(await finished(other.body.id, someoneElse, 10_000)).toMatchObject({ status: 'completed' });
        expect(await statusOf(waiting[0])).toBe('created');
        await release();
        for (const id of waiting) expect(await finished(id)).toMatchObject({ status: 'completed' });
        expect((await service.get(`/api/v1/orders/${free}`)).body.notes).toBe('A24');
      }),
    60_000,
  );

  it('cancels a waiting operation before any line and a running one after the line under way', async () => {
    const held = await newOrder(1);
    const free = await newOrder(3);
    const release = await holdOrder(held.id);
    let released = false;
    try {
      const running = await upload(
        '',
        ndjson([
          { method: 'PATCH', path: `/orders/${held.id}`, body: { notes: 'line 1' } },
          fulfil(free.id, free.line, 1),
          fulfil(free.id, free.line, 1),
        ]),
      );
      await lineWaiting();
      const waiting = await upload('', ndjson([fulfil(free.id, free.line, 1)]));
      expect(await statusOf(waiting.body.id)).toBe('created');
      const canceledWaiting = await service.send('POST', `/api/v1/bulk-operations/${waiting.body.id}/cancel`);
      expect(canceledWaiting.status).toBe(200);
      expect(canceledWaiting.body).toMatchObject({ status: 'canceled', processed_lines: 0 });

      // The cancel waits for the line under way (blocked on the held order), which is then applied whole.
      const cancel = service.send('POST', `/api/v1/bulk-operations/${running.body.id}/cancel`);
      await lineWaiting(2);
      await release();
      released = true;
      const canceled = await cancel;
      expect(canceled.status).toBe(200);
      expect(canceled.body).toMatchObject({ status: 'canceled', total_lines: 3, processed_lines: 1 });
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(await operation(running.body.id)).toMatchObject({ status: 'canceled', processed_lines: 1 });
      expect((await results(running.body.id)).map((r) => [r.line, r.status])).toEqual([[1, 200]]);
      expect((await service.get(`/api/v1/orders/${held.id}`)).body.notes).toBe('line 1');
      expect((await service.get(`/api/v1/orders/${free.id}`)).body.fulfilments).toEqual([]);
      // Again: the same answer. A completed operation cannot be canceled.
      expect((await service.send('POST', `/api/v1/bulk-operations/${running.body.id}/cancel`)).status).toBe(200);
      const done = await upload('', ndjson([{ method: 'PATCH', path: `/orders/${free.id}`, body: { notes: 'x' } }]));
      await finished(done.body.id);
      expect((await service.send('POST', `/api/v1/bulk-operations/${done.body.id}/cancel`)).status).toBe(409);
    } finally {
      if (!released) await release();
    }
  });
});

describe('a token revoked while its operation runs', () => {
  it('fails the operation before its next line: the line under way is the last applied', async () => {
    const held = await newOrder(1);
    const free = await newOrder(3);
    const token = await service.tokenWith(['write_orders', 'read_orders']);
    const release = await holdOrder(held.id);
    let released = false;
    try {
      const running = await upload(
        '',
        ndjson([
          { method: 'PATCH', path: `/orders/${held.id}`, body: { notes: 'before the revocation' } },
          fulfil(free.id, free.line, 1),
          fulfil(free.id, free.line, 1),
        ]),
        token,
      );
      await lineWaiting();
      await service.sql('update api_token set revoked_at = now() where secret_hash = ?', [hashSecret(token)]);
      await release();
      released = true;
      await until(async () => {
        const [row] = await service.sql<{ status: string }>('select status from bulk_operation where id = ?', [
          running.body.id,
        ]);
        return row.status === 'failed';
      }, 10_000);
      const [row] = await service.sql<{ processed_lines: number }>(
        'select processed_lines from bulk_operation where id = ?',
        [running.body.id],
      );
      expect(row.processed_lines).toBe(1);
      expect((await service.get(`/api/v1/orders/${free.id}`)).body.fulfilments).toEqual([]);
    } finally {
      if (!released) await release();
    }
  });
});

describe('the GraphQL form', () => {
  const MUTATION =
    'mutation ($id: Int!, $notes: String) { updateOrder(id: $id, input: { notes: $notes }) { id notes } }';
  const run = (mutation: string, uploadId: number, token?: string) =>
    service.graphql(
      `mutation ($mutation: String!, $uploadId: Int!) {
        bulkOperationRunMutation(mutation: $mutation, uploadId: $uploadId) { id status totalLines }
      }`,
      { mutation, uploadId },
      token,
    );

  it('uploads variables, runs the mutation once per line, and answers each line as /graphql would', async () => {
    const order = await newOrder(1);
    const variables = [
      { id: order.id, notes: 'first' },
      { id: 99999999, notes: 'nobody' },
      { id: order.id, notes: 7 },
    ];
    const uploaded = await upload('/uploads', ndjson(variables));
    expect(uploaded.status).toBe(201);
    expect(uploaded.body).toEqual({ id: expect.any(Number), lines: 3 });
    const started = await run(MUTATION, uploaded.body.id);
    expect(started.body.errors).toBeUndefined();
    const { id, totalLines } = started.body.data.bulkOperationRunMutation;
    expect(totalLines).toBe(3);
    await finished(id);
    const read = await service.graphql(
      'query ($id: Int!) { bulkOperation(id: $id) { ' +
        'id status totalLines processedLines failedLines createdAt completedAt } }',
      { id },
    );
    expect(read.body.data.bulkOperation).toMatchObject({ status: 'COMPLETED', processedLines: 3, failedLines: 2 });
    const got = await results(id);
    expect(got[0]).toEqual({ line: 1, data: { updateOrder: { id: order.id, notes: 'first' } } });
    for (const at of [1, 2]) {
      const single = await service.graphql(MUTATION, variables[at]);
      expect(got[at].line).toBe(at + 1);
      expect(got[at].errors.map((e: any) => e.extensions.code)).toEqual(
        single.body.errors.map((e: any) => e.extensions.code),
      );
      expect(got[at].errors[0].message).toBe(single.body.errors[0].message);
    }
    // An upload runs once.
    expect((await run(MUTATION, uploaded.body.id)).body.errors[0].extensions.code).toBe('CONFLICT');
  });

  it('refuses a mutation that is not one mutation field of a line, and an upload not its own', async () => {
    const uploaded = await upload('/uploads', ndjson([{ id: 1 }]));
    const refusals = [
      '{ orders { totalCount } }',
      'mutation { a: updateOrder(id: 1, input: {}) { id } b: updateOrder(id: 2, input: {}) { id } }',
      'mutation ($m: String!, $u: Int!) { bulkOperationRunMutation(mutation: $m, uploadId: $u) { id } }',
      'mutation { nope }',
      'mutation {',
      // Answers holding a secret shown once: kept as results, they would be read again.
      'mutation { createApiToken(name: "bulk", scopes: ["read_orders"]) { secret } }',
      'mutation { createWebhookSubscription(url: "https://example.com/h", events: ["order.created"]) { secret } }',
    ];
    for (const mutation of refusals) {
      const res = await run(mutation, uploaded.body.id);
      expect(res.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
    }
    const other = await service.tokenWith(['write_orders']);
    expect((await run(MUTATION, uploaded.body.id, other)).body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
    const restUpload = await upload('', ndjson([{ method: 'PATCH', path: '/orders/1', body: { notes: 'x' } }]));
    const [{ upload_id }] = await service.sql<{ upload_id: number }>(
      'select upload_id from bulk_operation where id = ?',
      [restUpload.body.id],
    );
    expect((await run(MUTATION, upload_id)).body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
    // A line of variables must be an object.
    const bad = await upload('/uploads', ndjson([{ id: 1 }, 'two']));
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0].field).toBe('line 2');
  });

  it('lists and cancels over GraphQL', async () => {
    const listed = await service.graphql('{ bulkOperations(page: 1, size: 5) { totalCount items { id status } } }');
    expect(listed.body.data.bulkOperations.totalCount).toBeGreaterThan(0);
    const held = await newOrder(1);
    const release = await holdOrder(held.id);
    try {
      const uploaded = await upload(
        '/uploads',
        ndjson([
          { id: held.id, notes: 'a' },
          { id: held.id, notes: 'b' },
        ]),
      );
      const started = await run(MUTATION, uploaded.body.id);
      const { id } = started.body.data.bulkOperationRunMutation;
      await lineWaiting();
      const cancel = service.graphql(
        'mutation ($id: Int!) { cancelBulkOperation(id: $id) { status processedLines } }',
        {
          id,
        },
      );
      await lineWaiting(2);
      await release();
      const canceled = await cancel;
      expect(canceled.body.data.cancelBulkOperation).toEqual({ status: 'CANCELED', processedLines: 1 });
    } finally {
      await release().catch(() => undefined);
    }
  });
});

describe('bulk_operation.finished', () => {
  it('carries the counts, in the feed of the token that started it only', async () => {
    const order = await newOrder(1);
    const made = await upload(
      '',
      ndjson([
        { method: 'PATCH', path: `/orders/${order.id}`, body: { notes: 'x' } },
        { method: 'PATCH', path: '/orders/99999999', body: { notes: 'x' } },
      ]),
    );
    await finished(made.body.id);
    const read = (token?: string) =>
      service.get('/api/v1/events?types=bulk_operation.finished&size=250', token).then((r) => r.body.items);
    const event = await until(async () => (await read()).find((e: any) => e.data.id === made.body.id), 10_000);
    expect(event.data).toMatchObject({ status: 'completed', total_lines: 2, processed_lines: 2, failed_lines: 1 });
    const reader = await service.tokenWith(['read_orders']);
    expect((await read(reader)).filter((e: any) => e.data.id === made.body.id)).toEqual([]);
  });
});

describe('sharing the service', () => {
  // The driver's read timeout (35 s in the service; here half a second) bounds a statement waiting
  // on a hung server, not a COPY that lasts as long as its client sends: it cut such an upload with
  // a 500.
  it('keeps an upload that lasts longer than the driver read timeout', async () => {
    const pool = new pg.Pool({ connectionString: databaseUrl, query_timeout: 500 });
    try {
      const body = Readable.from(
        (async function* () {
          yield Buffer.from('{"a":1}\n');
          await new Promise((resolve) => setTimeout(resolve, 1200));
          yield Buffer.from('{"a":2}\n');
        })(),
      );
      const [{ token }] = await service.sql<{ token: number }>('select min(id) as token from api_token');
      const kept = await storeUpload(
        pool,
        body,
        { tokenId: token, form: 'graphql', check: () => undefined },
        { maxBytes: 1_000_000 },
        async (_, stored) => stored,
      );
      expect(kept.lines).toBe(2);
      const lines = await service.sql('select line from bulk_line where upload_id = ? order by line', [kept.id]);
      expect(lines).toEqual([{ line: 1 }, { line: 2 }]);
    } finally {
      await pool.end();
    }
  });

  it('queues bulk_operation.finished only for webhook subscriptions made by the token that started it', async () => {
    const [{ id: owner }] = await service.sql<{ id: number }>(
      "select id from api_token where name = 'test (all scopes)'",
    );
    const other = await service.tokenWith(['manage_webhooks']);
    const [{ id: otherId }] = await service.sql<{ id: number }>('select id from api_token where secret_hash = ?', [
      hashSecret(other),
    ]);
    const subscribe = async (tokenId: number) =>
      (
        await service.sql<{ id: number }>(
          `insert into webhook_subscription (url, events, secret, created_at, created_by_token_id)
            values ('https://receiver.example/hook', '{bulk_operation.finished}', 'whsec_x', now(), ?) returning id`,
          [tokenId],
        )
      )[0].id;
    const mine = await subscribe(owner);
    const theirs = await subscribe(otherId);
    const order = await newOrder(1);
    const made = await upload('', ndjson([{ method: 'PATCH', path: `/orders/${order.id}`, body: { notes: 'hook' } }]));
    await finished(made.body.id);
    const queued = await service.sql<{ subscription_id: number }>(
      `select d.subscription_id from webhook_delivery d join event e on e.id = d.event_id
        where e.type = 'bulk_operation.finished' and e.subject_id = ?`,
      [made.body.id],
    );
    expect(queued.map((row) => row.subscription_id)).toEqual([mine]);
    await service.sql('delete from webhook_subscription where id in (?, ?)', [mine, theirs]);
  });

  it('charges the rate limit once per operation, not per line', async () => {
    const limited = await startTestService({ rateLimit: { burst: 5, rps: 0.01 }, bulk: { pollMs: 50 } });
    try {
      const order = await placeOrder(limited, [{ variantId: variants.untracked, quantity: 1 }]);
      const before = Number((await limited.get('/api/v1/bulk-operations')).headers.get('ratelimit-remaining'));
      const lines = Array.from({ length: 20 }, (_, i) => ({
        method: 'PATCH',
        path: `/orders/${order.id}`,
        body: { notes: `${i}` },
      }));
      const made = await limited.send('POST', '/api/v1/bulk-operations', ndjson(lines), undefined, {
        'content-type': 'application/x-ndjson',
      });
      expect(made.status).toBe(202);
      expect(Number(made.headers.get('ratelimit-remaining'))).toBe(before - 1);
      await until(async () => {
        const [row] = await limited.sql<{ status: string }>('select status from bulk_operation where id = ?', [
          made.body.id,
        ]);
        return row.status === 'completed';
      }, 30_000);
      // Twenty lines applied, none charged: the next request finds the bucket where the upload left it.
      const after = await limited.get(`/api/v1/bulk-operations/${made.body.id}`);
      expect(after.body).toMatchObject({ processed_lines: 20, failed_lines: 0 });
      expect(Number(after.headers.get('ratelimit-remaining'))).toBe(before - 2);
    } finally {
      await limited.stop();
    }
  });

  it('purges finished operations, their lines and results after BULK_RETENTION_DAYS', async () => {
    const order = await newOrder(1);
    const made = await upload('', ndjson([{ method: 'PATCH', path: `/orders/${order.id}`, body: { notes: 'old' } }]));
    await finished(made.body.id);
    const never = await upload('/uploads', ndjson([{ id: order.id }]));
    const count = async () =>
      (
        await service.sql<{ n: number }>(
          `select (select count(*) from bulk_operation where id = ?)
            + (select count(*) from bulk_result where operation_id = ?)
            + (select count(*) from bulk_upload where id = ?)::int as n`,
          [made.body.id, made.body.id, never.body.id],
        )
      )[0].n;
    expect(Number(await count())).toBe(3);
    await purgeBulkOperations(service.orm, 7, new Date(Date.now() + 6 * 86_400_000));
    expect(Number(await count())).toBe(3);
    await purgeBulkOperations(service.orm, 7, new Date(Date.now() + 8 * 86_400_000));
    expect(Number(await count())).toBe(0);
  });

  // Each upload holds a pooled connection while its client sends: trickling uploads took them all.
  it('receives at most a quarter of the pool of uploads at once; one more is a 503 overloaded', async () => {
    const small = await startTestService({ databaseUrl, poolMax: 4 });
    try {
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      const body = new ReadableStream<Uint8Array>({
        async start(controller) {
          controller.enqueue(new TextEncoder().encode('{"id":1}\n'));
          await held;
          controller.close();
        },
      });
      const first = fetch(`${small.url}/api/v1/bulk-operations/uploads`, {
        method: 'POST',
        headers: { authorization: `Bearer ${small.token}`, 'content-type': 'application/x-ndjson' },
        body,
        duplex: 'half',
      } as RequestInit);
      const copying =
        "select pid from pg_stat_activity where datname = current_database() and query like 'copy bulk_line%'";
      await until(async () => (await service.sql(copying)).length > 0, 10_000);
      const second = await small.send('POST', '/api/v1/bulk-operations/uploads', '{"id":2}\n', undefined, {
        'content-type': 'application/x-ndjson',
      });
      expect(second.status).toBe(503);
      expect(second.body.type).toBe('/problems/overloaded');
      expect(second.headers.get('retry-after')).toBeTruthy();
      release();
      expect((await first).status).toBe(201);
      const third = await small.send('POST', '/api/v1/bulk-operations/uploads', '{"id":3}\n', undefined, {
        'content-type': 'application/x-ndjson',
      });
      expect(third.status).toBe(201);
    } finally {
      await small.stop();
    }
  }, 30_000);

  // Ten such uploads in one statement ran past the statement timeout, and the next purge tried the
  // same ten again: nothing was ever purged. Here the bound is 250 ms and the uploads 300,000 lines.
  it('purges uploads too large for one statement within the statement timeout, in slices', async () => {
    const tight = await startTestService({ databaseUrl, readTimeoutMs: 250 });
    try {
      const [{ token }] = await service.sql<{ token: number }>('select min(id) as token from api_token');
      const uploads: number[] = [];
      for (let i = 0; i < 2; i++) {
        const [{ id }] = await service.sql<{ id: number }>(
          `insert into bulk_upload (token_id, form, lines, bytes, created_at)
            values (?, 'graphql', 300000, 0, now() - interval '30 days') returning id`,
          [token],
        );
        await service.sql(
          `insert into bulk_line (upload_id, line, input) select ?, g, '{"id":1}' from generate_series(1, 300000) g`,
          [id],
        );
        uploads.push(id);
      }
      await purgeBulkOperations(tight.orm, 7);
      const left = await service.sql<{ n: number }>(
        'select count(*)::int as n from bulk_line where upload_id in (?, ?)',
        uploads,
      );
      expect(left).toEqual([{ n: 0 }]);
      expect(await service.sql('select id from bulk_upload where id in (?, ?)', uploads)).toEqual([]);
    } finally {
      await tight.stop();
    }
  }, 120_000);
});
