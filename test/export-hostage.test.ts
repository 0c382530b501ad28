// Exports taken hostage (issue 36 item 5; docs/rest.md#exports): every export holds a pooled
// connection for as long as its client reads, and a process holds at most half its pool of them.
// One token that starts exports and stops reading may hold at most EXPORTS_PER_TOKEN of those
// places, a stalled export gives its place back after EXPORT_STALL_TIMEOUT_MS, a HEAD opens
// nothing, and SIGTERM ends within its grace whatever exports are still open.
import { get, type IncomingMessage } from 'node:http';
import pg from 'pg';
import { EXPORT_CHUNK } from '../src/rest/export-lines.js';
import { createDatabase, startTestService, type TestService } from './support/harness.js';
import { startServerProcess } from './support/server-process.js';

const STALL_MS = 1500;
/** What a stalling client reads of each export before it stops. */
const TAKEN = 64 * 1024;
/**
 * About 20 MB of customers: far more than the socket buffers between a client and the service
 * hold, so an export whose client stops reading really waits for it.
 */
const BIG_CUSTOMERS = `insert into customer (email, first_name, last_name, notes, created_at)
  select 'held.' || n || '@example.com', 'Held', 'Customer ' || n, repeat('x', 2000), now()
  from generate_series(1, 40 * ${EXPORT_CHUNK}) n`;

/** A response the client has stopped reading (`status` 200), or a refusal read whole. */
interface Opened {
  status: number;
  headers: IncomingMessage['headers'];
  text: string;
  res: IncomingMessage;
}

/**
 * GETs `path` on a connection of its own; a 200 is read until `TAKEN` characters have come and then
 * left unread (the client holds the socket open and takes nothing more).
 */
async function open(base: string, path: string, token: string): Promise<Opened> {
  const res = await new Promise<IncomingMessage>((resolve, reject) =>
    get(new URL(path, base), { agent: false, headers: { authorization: `Bearer ${token}` } }, resolve).on(
      'error',
      reject,
    ),
  );
  res.on('error', () => undefined); // a cut connection; what the test looks at is the text
  res.setEncoding('utf8');
  let text = '';
  if (res.statusCode !== 200) {
    for await (const chunk of res) text += chunk;
    return { status: res.statusCode ?? 0, headers: res.headers, text, res };
  }
  await new Promise<void>((resolve) => {
    const taking = (chunk: string) => {
      text += chunk;
      if (text.length < TAKEN) return;
      res.pause();
      res.off('data', taking);
      resolve();
    };
    res.on('data', taking);
  });
  return { status: 200, headers: res.headers, text, res };
}

/** Resumes a paused export and reads what is left of it: the whole text, however it ended. */
async function rest(opened: Opened): Promise<string> {
  let text = opened.text;
  opened.res.on('data', (chunk: string) => (text += chunk));
  const ended = new Promise<void>((resolve) => opened.res.once('close', resolve));
  opened.res.resume();
  await ended;
  return text;
}

const completeLine = (text: string) => text.trimEnd().split('\n').pop() ?? '';

describe('in one process', () => {
  let service: TestService;
  let other: string;

  beforeAll(async () => {
    // A pool of ten: five exports at once on this process, two per token.
    service = await startTestService({ poolMax: 10, exports: { perToken: 2, stallMs: STALL_MS } });
    other = await service.tokenWith(['read_customers']);
    await service.sql(BIG_CUSTOMERS);
  }, 120_000);
  afterAll(() => service?.stop(), 60_000);

  /** Transactions other than the asking one, open on this service's database. */
  async function openTransactions(): Promise<number> {
    const [{ n }] = await service.sql<{ n: number }>(
      'select count(*)::int as n from pg_stat_activity ' +
        'where datname = current_database() and xact_start is not null and pid <> pg_backend_pid()',
    );
    return n;
  }

  async function eventually(check: () => Promise<boolean>, ms: number): Promise<void> {
    const until = Date.now() + ms;
    while (!(await check())) {
      if (Date.now() > until) throw new Error('condition not reached in time');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /** A whole export of ids by `token`: its status and its last line. */
  async function exportIds(token = service.token): Promise<{ status: number; last: string }> {
    const res = await fetch(`${service.url}/api/v1/customers/export?fields=id`, {
      headers: { authorization: `Bearer ${token}` },
    });
    return { status: res.status, last: completeLine(await res.text()) };
  }

  it('six HEADs open nothing: the headers a GET answers, no snapshot, and an export after them works', async () => {
    for (let i = 0; i < 6; i++) {
      const res = await fetch(`${service.url}/api/v1/customers/export`, {
        method: 'HEAD',
        headers: { authorization: `Bearer ${service.token}` },
      });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^application\/x-ndjson/);
      expect(res.headers.get('cache-control')).toBe('no-store');
      expect(await res.text()).toBe('');
    }
    // No snapshot held: none stays open (a background task's statement may pass through a moment).
    await eventually(async () => (await openTransactions()) === 0, 2000);
    const after = await exportIds();
    expect(after.status).toBe(200);
    expect(JSON.parse(after.last)).toMatchObject({ complete: true });
    // A HEAD is refused as its GET is: without the scope, a 403.
    const refused = await fetch(`${service.url}/api/v1/orders/export`, {
      method: 'HEAD',
      headers: { authorization: `Bearer ${other}` },
    });
    expect(refused.status).toBe(403);
  }, 30_000);

  it("a token holding exports it does not read takes two places, never another token's", async () => {
    const held = await Promise.all(
      Array.from({ length: 5 }, () => open(service.url, '/api/v1/customers/export', service.token)),
    );
    try {
      expect(held.map((h) => h.status).sort()).toEqual([200, 200, 429, 429, 429]);
      for (const refused of held.filter((h) => h.status === 429)) {
        expect(refused.headers['content-type']).toMatch(/^application\/problem\+json/);
        expect(refused.headers['retry-after']).toBe('1');
        const problem = JSON.parse(refused.text);
        expect(problem).toMatchObject({ status: 429, type: '/problems/rate-limited' });
        expect(problem.detail).toContain('EXPORTS_PER_TOKEN (2)');
      }
      // Another token's export runs meanwhile, to its end.
      const theirs = await exportIds(other);
      expect(theirs.status).toBe(200);
      expect(JSON.parse(theirs.last)).toMatchObject({ complete: true });
    } finally {
      for (const h of held) h.res.destroy();
      await eventually(async () => (await openTransactions()) === 0, 10_000);
    }
  }, 30_000);

  it('a stalled export is cut after EXPORT_STALL_TIMEOUT_MS: its snapshot closed, its place given back', async () => {
    const started = Date.now();
    const held = [
      await open(service.url, '/api/v1/customers/export', service.token),
      await open(service.url, '/api/v1/customers/export', service.token),
    ];
    expect(held.map((h) => h.status)).toEqual([200, 200]);
    expect((await open(service.url, '/api/v1/customers/export?fields=id', service.token)).status).toBe(429);
    expect(await openTransactions()).toBe(2);
    // Once the socket buffers are full the clock starts; then both are cut.
    await eventually(async () => (await openTransactions()) === 0, STALL_MS + 10_000);
    expect(Date.now() - started).toBeGreaterThanOrEqual(STALL_MS);
    const again = await exportIds();
    expect(again.status).toBe(200);
    expect(JSON.parse(again.last)).toMatchObject({ complete: true });
    // What the cut exports' clients get when they read on: the export ends without its complete line.
    for (const h of held) expect(await rest(h)).not.toContain('"complete"');
  }, 30_000);
});

it('SIGTERM with stalled exports and HEADs behind it exits within SHUTDOWN_GRACE_MS', async () => {
  const GRACE = 2000;
  const ADMIN = 'admin-token-for-export-hostage-tests';
  const databaseUrl = await createDatabase();
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query(BIG_CUSTOMERS);
  } finally {
    await client.end();
  }
  // The stall clock far away: only the shutdown ends these exports.
  const server = await startServerProcess(databaseUrl, ADMIN, {
    SHUTDOWN_GRACE_MS: String(GRACE),
    DB_POOL_MAX: '10',
    EXPORT_STALL_TIMEOUT_MS: '600000',
  });
  const held: Opened[] = [];
  try {
    // Three HEADs and two exports: within the five places a pool of ten gives, however HEADs count.
    for (let i = 0; i < 3; i++) {
      const res = await fetch(`${server.url}/api/v1/orders/export`, {
        method: 'HEAD',
        headers: { authorization: `Bearer ${ADMIN}` },
      });
      expect(res.status).toBe(200);
    }
    held.push(await open(server.url, '/api/v1/customers/export', ADMIN));
    held.push(await open(server.url, '/api/v1/customers/export', ADMIN));
    expect(held.map((h) => h.status)).toEqual([200, 200]);
    const signalled = Date.now();
    const exited = server.signal('SIGTERM');
    let timer: NodeJS.Timeout | undefined;
    const hung = new Promise((resolve) => (timer = setTimeout(resolve, GRACE + 8000, 'still running')));
    const code = await Promise.race([exited, hung]).finally(() => clearTimeout(timer));
    expect(code).toBe(0);
    // The grace, then the pool closed and the process gone: well within the primary's own deadline.
    expect(Date.now() - signalled).toBeLessThan(GRACE + 3000);
  } finally {
    for (const h of held) h.res.destroy();
    await server.signal('SIGKILL');
  }
}, 60_000);
