// Issue #36 item 3: a page had no byte bound. A product PATCH with 4 textareas of 99 000 characters
// is within every input limit and records a 396 KB event; with 250 of them, one
// `GET /api/v1/events?size=250` (or GraphQL `events(size: 250)`) took a process with `npm start`'s
// 256 MB heap down, so did 5 subscribers replaying them into sockets that never read, and a list of
// such products answered at 575 to 748 MB resident. Against a real process started as `npm start`
// starts it: the feed ends a page early at the answer's bound (following `next` still reaches every
// event once), an offset page over the bound is a 400 naming it, an export streams every record,
// the server closes the non-reading subscribers' sockets, and each process's peak resident set
// stays within 256 MB.
import { readFileSync } from 'node:fs';
import pg from 'pg';
import WebSocket from 'ws';
import { DEFAULT_ANSWER_MAX_BYTES } from '../src/config.js';
import { INPUT_LIMITS } from '../src/domain/input-limits.js';
import { createDatabase } from './support/harness.js';
import { npmStartNodeFlags, type ServerProcess, startServerProcess } from './support/server-process.js';
import { until } from './support/until.js';

const ADMIN = 'page-bytes-crash-admin-token-0123456789';
const EVENTS = 250;
const TEXT = 99_000;
const BOUND = DEFAULT_ANSWER_MAX_BYTES;
const MiB = 1024 * 1024;
/** `npm start`'s environment besides its Node flags (its malloc arenas); no rate limit for the setup. */
const ENV = { RATE_LIMIT_BURST: '0', MALLOC_ARENA_MAX: '2' };

let url: string;
let db: pg.Client;
/** The process the pages are read from. */
let server: ServerProcess;
/** The last event before the test's writes: the feed is read after it. */
let head: number;
/** The events the PATCHes recorded, in the feed's order. */
let written: number[];

const headers = { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' };

async function call(method: string, path: string, body?: unknown) {
  const res = await fetch(`${server.url}${path}`, {
    method,
    headers,
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, type: res.headers.get('content-type') ?? '', bytes: Buffer.byteLength(text), text };
}

/** A process's peak resident set (VmHWM) so far, in MB. */
function peakRssMb({ pid } = server): number {
  const kb = Number(/^VmHWM:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);
  if (!kb) throw new Error(`no VmHWM in /proc/${pid}/status`);
  return kb / 1024;
}

/** The service still answers (it did not die under the page). */
async function alive({ url } = server) {
  expect((await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(5000) })).status).toBe(200);
}

/**
 * The attack's shape: 250 PATCHes, each of 4 textareas of 99 000 characters (a 396 KB body and
 * event), over the store's products, a few at once (never two on one product).
 */
async function writeLargeEvents() {
  const presets = (await db.query<{ name: string }>('select name from textarea_preset order by id')).rows;
  const products = (await db.query<{ id: number }>('select id from product order by id')).rows.map((r) => r.id);
  expect(presets).toHaveLength(4);
  expect(TEXT).toBeLessThanOrEqual(INPUT_LIMITS.text);
  const patch = async (i: number) => {
    const text = (n: number) => `${i}.${n} `.padEnd(TEXT, 'lorem ipsum ');
    const body = { textareas: presets.map(({ name }, n) => ({ name, text: text(n) })) };
    const res = await call('PATCH', `/api/v1/products/${products[i % products.length]}`, body);
    expect(res.status).toBe(200);
  };
  const parallel = 3; // within the default per-token admission on 2 cores
  for (let i = 0; i < EVENTS; i += parallel) {
    await Promise.all(Array.from({ length: Math.min(parallel, EVENTS - i) }, (_, k) => patch(i + k)));
  }
}

beforeAll(async () => {
  url = await createDatabase();
  db = new pg.Client({ connectionString: url });
  await db.connect();
  head = (await db.query<{ id: number }>('select coalesce(max(id), 0)::int as id from event')).rows[0].id;
  // The events are written through one process and read from another (instances share the
  // database), so the reader's peak resident set is what the reads cost.
  server = await startServerProcess(url, ADMIN, ENV, npmStartNodeFlags());
  await writeLargeEvents();
  process.stdout.write(`page-bytes-crash: the writing process peaked at ${peakRssMb().toFixed(0)} MB resident\n`);
  await server.stop();
  server = await startServerProcess(url, ADMIN, ENV, npmStartNodeFlags());
  // The feed's order: commit order (the writing transaction's id), then the event's.
  const feedOrder = 'select id, octet_length(data::text) as bytes from event where id > $1 order by xid, id';
  const rows = (await db.query<{ id: number; bytes: number }>(feedOrder, [head])).rows;
  written = rows.map((r) => r.id);
  expect(written).toHaveLength(EVENTS);
  expect(Math.min(...rows.map((r) => r.bytes))).toBeGreaterThan(4 * TEXT);
  // The feed shows an event once every older transaction has ended (other files' too): wait for all.
  for (let i = 0; ; i++) {
    const res = await call('GET', `/api/v1/events?size=1&after=${head}&fields=id`);
    if (JSON.parse(res.text)._meta.totalCount === EVENTS) break;
    if (i > 200) throw new Error('the feed did not show the events written');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}, 240_000);
afterAll(async () => {
  await server?.stop();
  await db?.end();
});

/** Pages the whole feed needs at least: its events' JSON over the bound. */
const fewestPages = Math.ceil((EVENTS * 4 * TEXT) / BOUND);

it('GET /api/v1/events?size=250 pages through 250 events of 396 KB, each page within the bound', async () => {
  const seen: number[] = [];
  let path = `/api/v1/events?size=250&after=${head}`;
  for (let pages = 0; ; pages++) {
    expect(pages).toBeLessThan(EVENTS);
    const res = await call('GET', path);
    expect(res.status).toBe(200);
    expect(res.bytes).toBeLessThanOrEqual(BOUND);
    const page = JSON.parse(res.text);
    if (!page.items.length) {
      expect(pages).toBeGreaterThanOrEqual(fewestPages);
      break;
    }
    seen.push(...page.items.map((event: { id: number }) => event.id));
    const next = new URL(page._links.next.href);
    expect(next.searchParams.get('after')).toBe(String(page.items.at(-1).id));
    path = `${next.pathname}${next.search}`;
  }
  expect(seen).toEqual(written);
  await alive();
}, 120_000);

it('GraphQL events(size: 250) pages through them the same way', async () => {
  const query = 'query ($after: Int) { events(after: $after, size: 250) { next items { id type data } } }';
  const seen: number[] = [];
  let after: number | null = head;
  for (let pages = 0; ; pages++) {
    expect(pages).toBeLessThan(EVENTS);
    const res = await call('POST', '/graphql', { query, variables: { after } });
    expect(res.status).toBe(200);
    expect(res.bytes).toBeLessThanOrEqual(BOUND);
    const { data, errors } = JSON.parse(res.text);
    expect(errors).toBeUndefined();
    const { items, next } = data.events as { items: { id: number }[]; next: number | null };
    if (!items.length) {
      expect(pages).toBeGreaterThanOrEqual(fewestPages);
      break;
    }
    seen.push(...items.map((event) => event.id));
    expect(next).toBe(items.at(-1)!.id);
    after = next;
  }
  expect(seen).toEqual(written);
  await alive();
}, 120_000);

describe('an offset page whose JSON would exceed the bound', () => {
  it.each(['/api/v1/products?size=250&expand=textareas', '/api/v1/products?size=250&expand=all'])(
    '%s is a 400 naming the bound, not a crash',
    async (path) => {
      const res = await call('GET', path);
      expect(res.status).toBe(400);
      expect(res.type).toMatch(/application\/problem\+json/);
      expect(res.bytes).toBeLessThan(4096);
      const problem = JSON.parse(res.text);
      expect(problem).toMatchObject({ type: '/problems/answer-too-large', status: 400 });
      expect(problem.detail).toContain(`${BOUND / MiB} MiB`);
      expect(problem.errors).toEqual([{ field: 'size', message: expect.stringContaining(`${BOUND / MiB} MiB`) }]);
      await alive();
    },
  );

  it.each([
    // PostgreSQL writes this answer's JSON (src/graphql/answer-passthrough.ts) …
    '{ products(size: 250) { totalCount items { id textareas { name text } } } }',
    // … and this one is executed (a fragment), from rows.
    '{ products(size: 250) { items { ...P } } } fragment P on Product { id textareas { name text } }',
  ])('is ANSWER_TOO_LARGE on /graphql, naming the bound: %s', async (query) => {
    const res = await call('POST', '/graphql', { query });
    expect(res.status).toBe(200); // an error of the page field, as GraphQL reports a field's errors
    expect(res.bytes).toBeLessThan(4096);
    const { errors } = JSON.parse(res.text);
    expect(errors[0]).toMatchObject({ extensions: { code: 'ANSWER_TOO_LARGE', maxBytes: BOUND } });
    expect(errors[0].message).toContain(`${BOUND / MiB} MiB`);
    await alive();
  });

  it("is ANSWER_TOO_LARGE for a collection's products page too", async () => {
    const products = (await db.query<{ id: number }>('select id from product order by id')).rows.map((r) => r.id);
    const created = await call('POST', '/api/v1/collections', {
      title: 'Everything',
      type: 0,
      seo_title: 'Everything',
      seo_url: 'everything-page-bytes',
      match_products: products,
    });
    expect(created.status).toBe(201);
    const id = JSON.parse(created.text).id as number;
    const query = `{ collection(id: ${id}) { products(size: 250) { items { id textareas { name text } } } } }`;
    const res = await call('POST', '/graphql', { query });
    expect(res.bytes).toBeLessThan(4096);
    const { errors } = JSON.parse(res.text);
    expect(errors[0]).toMatchObject({ extensions: { code: 'ANSWER_TOO_LARGE', maxBytes: BOUND } });
    const small = `{ collection(id: ${id}) { products(size: 8) { items { id textareas { name text } } } } }`;
    const answered = JSON.parse((await call('POST', '/graphql', { query: small })).text);
    expect(answered.errors).toBeUndefined();
    expect(answered.data.collection.products.items).toHaveLength(8);
    await alive();
  });

  it('a page of the same list within the bound answers', async () => {
    const res = await call('GET', '/api/v1/products?size=8&expand=textareas');
    expect(res.status).toBe(200);
    expect(res.bytes).toBeLessThanOrEqual(BOUND);
    expect(JSON.parse(res.text).items).toHaveLength(8);
  });
});

describe('root fields share the bound of their answer', () => {
  it('ten aliased feed pages end early at a tenth of it each: the whole answer within the bound', async () => {
    const aliases = Array.from(
      { length: 10 },
      (_, i) => `a${i}: events(after: ${head}, size: 250) { next items { id data } }`,
    );
    const res = await call('POST', '/graphql', { query: `{ ${aliases.join(' ')} }` });
    expect(res.status).toBe(200);
    expect(res.bytes).toBeLessThanOrEqual(BOUND + 4096);
    const { data, errors } = JSON.parse(res.text);
    expect(errors).toBeUndefined();
    for (let i = 0; i < 10; i++) expect(data[`a${i}`].items.length).toBeGreaterThan(0);
    await alive();
  }, 60_000);

  it('two aliased offset pages, each within the bound alone, are ANSWER_TOO_LARGE together', async () => {
    const page = 'products(size: 8) { items { id textareas { name text } } }';
    const alone = JSON.parse((await call('POST', '/graphql', { query: `{ ${page} }` })).text);
    expect(alone.errors).toBeUndefined();
    const res = await call('POST', '/graphql', { query: `{ a: ${page} b: ${page} }` });
    expect(res.bytes).toBeLessThan(8192);
    const { errors } = JSON.parse(res.text);
    expect(errors[0]).toMatchObject({ extensions: { code: 'ANSWER_TOO_LARGE', maxBytes: BOUND / 2 } });
    expect(errors[0].message).toContain('root fields share it');
    await alive();
  });
});

it('an export of those products streams every one, its chunks ending early at the bound', async () => {
  const res = await fetch(`${server.url}/api/v1/products/export?expand=textareas`, { headers });
  expect(res.status).toBe(200);
  const lines = (await res.text()).trimEnd().split('\n');
  const [{ n }] = (await db.query<{ n: number }>('select count(*)::int as n from product')).rows;
  expect(n * 4 * TEXT).toBeGreaterThan(2 * BOUND);
  expect(JSON.parse(lines.at(-1)!)).toEqual({ complete: true, count: n });
  const ids = lines.slice(0, -1).map((line) => JSON.parse(line).id as number);
  expect(new Set(ids).size).toBe(n);
  expect(ids).toEqual([...ids].sort((a, b) => a - b));
  await alive();
}, 120_000);

it("keeps the reading process's peak resident set within npm start's heap cap", () => {
  expect(npmStartNodeFlags()).toContain('--max-old-space-size=256');
  const peak = peakRssMb();
  process.stdout.write(`page-bytes-crash: the reading process peaked at ${peak.toFixed(0)} MB resident\n`);
  expect(peak).toBeLessThanOrEqual(256);
});

// Aliases repeat a field's value: a product's 396 KB of textareas 700 times is 277 MB of JSON, within
// every document limit (about 4,200 tokens, cost 2), which took the process down. After the reading
// process's peak was checked: validating 700 aliases of one field (graphql-js compares each pair)
// costs memory of its own, which is no page's.
describe('a record whose fields, repeated under aliases, would exceed the bound', () => {
  const repeated = Array.from({ length: 700 }, (_, i) => `a${i}: textareas { text }`).join(' ');
  const firstProduct = async () => (await db.query<{ id: number }>('select min(id) as id from product')).rows[0].id;

  it.each([
    ['a plain selection', (id: number) => `{ product(id: ${id}) { id ${repeated} } }`],
    ['in a fragment', (id: number) => `{ product(id: ${id}) { ...P } } fragment P on Product { id ${repeated} }`],
    // One field given again and again, each time with another alias below it: merged, one field of 50 (20 MB).
    [
      'below a field given 50 times',
      (id: number) =>
        `{ product(id: ${id}) { id ${Array.from({ length: 50 }, (_, i) => `textareas { a${i}: text }`).join(' ')} } }`,
    ],
  ])(
    'is ANSWER_TOO_LARGE on /graphql, naming the fields (%s)',
    async (_, query) => {
      const res = await call('POST', '/graphql', { query: query(await firstProduct()) });
      expect(res.bytes).toBeLessThan(4096);
      const { errors } = JSON.parse(res.text);
      expect(errors[0]).toMatchObject({ extensions: { code: 'ANSWER_TOO_LARGE', maxBytes: BOUND, field: 'fields' } });
      expect(errors[0].message).toContain('The answer would be more than');
      await alive();
    },
    60_000,
  );

  it('is the result of a bulk line whose mutation answers so, the operation going on', async () => {
    const id = await firstProduct();
    const uploaded = await fetch(`${server.url}/api/v1/bulk-operations/uploads`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/x-ndjson' },
      body: `{"id":${id}}\n{"id":${id}}\n`,
    });
    expect(uploaded.status).toBe(201);
    const mutation = `mutation ($id: Int!) { updateProduct(id: $id, input: {}) { id ${repeated} } }`;
    const run = await call('POST', '/graphql', {
      query: 'mutation ($m: String!, $u: Int!) { bulkOperationRunMutation(mutation: $m, uploadId: $u) { id } }',
      variables: { m: mutation, u: ((await uploaded.json()) as { id: number }).id },
    });
    const operation = JSON.parse(run.text).data.bulkOperationRunMutation.id;
    const ended = await until(async () => {
      const op = JSON.parse((await call('GET', `/api/v1/bulk-operations/${operation}`)).text);
      return op.status === 'completed' && op;
    }, 60_000);
    expect(ended).toMatchObject({ processed_lines: 2, failed_lines: 2 });
    const results = (await call('GET', `/api/v1/bulk-operations/${operation}/results`)).text.trim().split('\n');
    for (const line of results) {
      expect(JSON.parse(line).errors[0].extensions).toMatchObject({ code: 'ANSWER_TOO_LARGE', field: 'fields' });
    }
    await alive();
  }, 60_000);
});

// Uploaded through a process that runs no bulk work (a file of 90 MB, each line parsed as it comes,
// takes a process near its heap cap by itself), run and read by the reading process, after its
// peak was checked: each lives through it (RSS grows with the garbage of 400 KB answers, checked by
// no goal here).
describe('bulk operations of large lines and large results', () => {
  const ndjsonHeaders = { ...headers, 'content-type': 'application/x-ndjson' };
  let uploader: ServerProcess;
  beforeAll(async () => {
    uploader = await startServerProcess(url, ADMIN, { ...ENV, BULK_CONCURRENCY: '0' }, npmStartNodeFlags());
  }, 60_000);
  afterAll(async () => {
    process.stdout.write(
      `page-bytes-crash: bulk: the uploading process peaked at ${peakRssMb(uploader).toFixed(0)} MB resident, ` +
        `the running one at ${peakRssMb().toFixed(0)} MB\n`,
    );
    await uploader?.stop();
  });
  const finished = (id: number) =>
    until(async () => {
      const op = JSON.parse((await call('GET', `/api/v1/bulk-operations/${id}`)).text);
      return ['completed', 'failed', 'canceled'].includes(op.status) && op;
    }, 120_000);

  // 90 lines of a megabyte each, 350,000 values apiece (each line refused as its request is): read
  // 500 lines at a time and parsed, they were gigabytes of heap, and the next process to take the
  // operation over died the same way.
  it('runs lines of a megabyte each, a few at a time, each refused as its request is', async () => {
    const line = JSON.stringify({ method: 'PATCH', path: '/orders/1', body: Array(350_000).fill({}) });
    expect(line.length).toBeGreaterThan(1_000_000);
    const res = await fetch(`${uploader.url}/api/v1/bulk-operations`, {
      method: 'POST',
      headers: ndjsonHeaders,
      body: `${Array(90).fill(line).join('\n')}\n`,
    });
    expect(res.status).toBe(202);
    const op = await finished(((await res.json()) as { id: number }).id);
    expect(op).toMatchObject({ status: 'completed', processed_lines: 90, failed_lines: 90 });
    await alive();
  }, 180_000);

  // 300 results of 396 KB each: read a thousand at a time, 120 MB at once, and more than that again as text.
  it('streams results of 396 KB each, every one in line order', async () => {
    const id = (await db.query<{ id: number }>('select min(id) as id from product')).rows[0].id;
    const line = JSON.stringify({ method: 'PATCH', path: `/products/${id}?expand=textareas`, body: {} });
    const res = await fetch(`${uploader.url}/api/v1/bulk-operations`, {
      method: 'POST',
      headers: ndjsonHeaders,
      body: `${Array(300).fill(line).join('\n')}\n`,
    });
    expect(res.status).toBe(202);
    const operation = ((await res.json()) as { id: number }).id;
    expect(await finished(operation)).toMatchObject({ status: 'completed', processed_lines: 300, failed_lines: 0 });
    const results = await fetch(`${server.url}/api/v1/bulk-operations/${operation}/results`, { headers });
    expect(results.status).toBe(200);
    const lines = (await results.text()).trimEnd().split('\n');
    expect(lines.map((text) => JSON.parse(text).line)).toEqual(Array.from({ length: 300 }, (_, i) => i + 1));
    expect(lines.every((text) => text.length > 4 * TEXT)).toBe(true);
    await alive();
  }, 180_000);
});

describe('5 subscribers replaying the 250 events into sockets that never read', () => {
  /** A process of its own, started as `npm start` starts it: its peak resident set is this attack's alone. */
  let replaying: ServerProcess;
  /** Its peak resident set once it has started, before any subscriber. */
  let started: number;
  const sockets: WebSocket[] = [];
  beforeAll(async () => {
    replaying = await startServerProcess(url, ADMIN, ENV, npmStartNodeFlags());
    started = peakRssMb(replaying);
  }, 60_000);
  afterAll(async () => {
    for (const socket of sockets) socket.terminate();
    await replaying?.stop();
  });

  /**
   * A raw graphql-transport-ws socket: `connection_init` with the token, then a subscription to the
   * feed from before the first of the 250 events. One that does not read pauses its socket after
   * that, so what the server sends stays queued on the server's side; it still writes (a `ping`
   * message now and then), which is how it learns that the server dropped the connection.
   */
  async function subscriber(reads: boolean) {
    const ws = new WebSocket(`${replaying.url.replace(/^http/, 'ws')}/graphql`, 'graphql-transport-ws');
    sockets.push(ws);
    const state: { acked: boolean; ids: number[]; closed?: number } = { acked: false, ids: [] };
    ws.on('message', (data) => {
      const message = JSON.parse(String(data));
      if (message.type === 'connection_ack') state.acked = true;
      if (message.type === 'next') state.ids.push(message.payload.data.events.id);
    });
    ws.on('close', (code) => (state.closed = code));
    ws.on('error', () => undefined);
    await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
    ws.send(JSON.stringify({ type: 'connection_init', payload: { Authorization: `Bearer ${ADMIN}` } }));
    await until(async () => state.acked, 5000);
    const query = 'subscription ($after: Int) { events(after: $after) { id type data } }';
    ws.send(JSON.stringify({ type: 'subscribe', id: 'replay', payload: { query, variables: { after: head } } }));
    if (!reads) (ws as unknown as { _socket: { pause(): void } })._socket.pause();
    return { ws, state };
  }

  it('are closed by the server, the process answering /healthz throughout', async () => {
    // Each subscription holds one round of the feed (at most 1 MiB of events) and has at most one event
    // queued (graphql-ws sends the next when the socket took the last), so no 1 MiB queue of
    // socket-backpressure.ts builds up: what ends these sockets is the server's keep-alive, whose
    // protocol ping (every 12 s) goes unanswered for 12 s, and graphql-ws terminates the socket.
    const subscribers = await Promise.all(Array.from({ length: 5 }, () => subscriber(false)));
    const open = () => subscribers.filter(({ state }) => state.closed === undefined);
    for (const since = Date.now(); open().length; ) {
      expect(Date.now() - since).toBeLessThan(60_000);
      await alive(replaying);
      for (const { ws } of open()) ws.send(JSON.stringify({ type: 'ping' }));
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    // Closed without a close frame: the server dropped the connection, the client never closed it.
    expect(subscribers.map(({ state }) => state.closed)).toEqual(Array(5).fill(1006));
    await alive(replaying);
  }, 90_000);

  it('a subscriber that reads gets each of the 250 events once, in the order of the feed', async () => {
    const { ws, state } = await subscriber(true);
    await until(async () => state.ids.length >= EVENTS, 60_000);
    // The rounds end early at their bound of bytes: none is skipped or repeated (the tests above
    // wrote a later event or two, a collection's).
    expect(state.ids.slice(0, EVENTS)).toEqual(written);
    ws.terminate();
  }, 90_000);

  // Aliases repeating an event's data (396 KB) 700 times: 277 MB for each `next`.
  it('answers a subscriber whose aliases repeat the data past the bound ANSWER_TOO_LARGE', async () => {
    const ws = new WebSocket(`${replaying.url.replace(/^http/, 'ws')}/graphql`, 'graphql-transport-ws');
    sockets.push(ws);
    const received: { type: string; id?: string; payload?: any }[] = [];
    ws.on('message', (data) => received.push(JSON.parse(String(data))));
    await new Promise((resolve) => ws.once('open', resolve));
    ws.send(JSON.stringify({ type: 'connection_init', payload: { Authorization: `Bearer ${ADMIN}` } }));
    await until(async () => received.some((m) => m.type === 'connection_ack'), 5000);
    const repeated = Array.from({ length: 700 }, (_, i) => `a${i}: data`).join(' ');
    const query = `subscription ($after: Int) { events(after: $after) { id ${repeated} } }`;
    ws.send(JSON.stringify({ type: 'subscribe', id: 'aliases', payload: { query, variables: { after: head } } }));
    await until(async () => received.some((m) => m.id === 'aliases'), 30_000);
    const first = received.find((m) => m.id === 'aliases')!;
    expect(first.type).toBe('next');
    expect(first.payload.data).toBeNull();
    expect(first.payload.errors[0].extensions).toMatchObject({ code: 'ANSWER_TOO_LARGE', field: 'fields' });
    ws.terminate();
    await alive(replaying);
  }, 60_000);

  it("keeps that process's peak resident set within npm start's heap cap", () => {
    const peak = peakRssMb(replaying);
    const figures = `${peak.toFixed(0)} MB resident (${started.toFixed(0)} MB once started)`;
    process.stdout.write(`page-bytes-crash: the subscribers' process peaked at ${figures}\n`);
    expect(peak).toBeLessThanOrEqual(256);
  });
});
