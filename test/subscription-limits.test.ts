// docs/decisions.md#instances: the per-token limits on WebSocket connections and subscriptions
// hold across service processes and WEB_CONCURRENCY workers on one PostgreSQL (rows of
// `subscription_connection`, renewed by a heartbeat, so a killed process's places come free), and
// subscriptions spend the token's rate-limit bucket like requests (docs/integrations.md#subscriptions).
import { type Client, createClient } from 'graphql-ws';
import pg from 'pg';
import WebSocket from 'ws';
import { createDatabase } from './support/harness.js';
import { type ServerProcess, startServerProcess } from './support/server-process.js';

const ADMIN = 'sk_subscription_limits_admin_0123456789';
const HEARTBEAT_MS = 200;
const LIMITS = {
  SUBSCRIPTION_CONNECTIONS_PER_TOKEN: '2',
  SUBSCRIPTIONS_PER_TOKEN: '2',
  SUBSCRIPTION_HEARTBEAT_MS: String(HEARTBEAT_MS),
};
let databaseUrl: string;
let pool: pg.Pool;
/** A and B count limits only; C also has a small rate-limit bucket (a refill of one request per 100 s). */
let a: ServerProcess;
let b: ServerProcess;
let c: ServerProcess;
const started: ServerProcess[] = [];
const clients: Client[] = [];

beforeAll(async () => {
  databaseUrl = await createDatabase();
  pool = new pg.Pool({ connectionString: databaseUrl, max: 2 });
  const unlimited = { ...LIMITS, RATE_LIMIT_RPS: '0', RATE_LIMIT_BURST: '0' };
  const bucket = { ...LIMITS, SUBSCRIPTIONS_PER_TOKEN: '20', RATE_LIMIT_RPS: '0.01', RATE_LIMIT_BURST: '5' };
  [a, b, c] = await Promise.all(
    [unlimited, unlimited, bucket].map((env) => startServerProcess(databaseUrl, ADMIN, env)),
  );
  started.push(a, b, c);
}, 60_000);
afterAll(async () => {
  await Promise.all(started.map((p) => p.stop()));
  await Promise.all(clients.map((x) => x.dispose()));
  await pool?.end();
}, 60_000);

const wsUrl = (p: ServerProcess) => `${p.url.replace(/^http/, 'ws')}/graphql`;

type Outcome = { client: Client; connected: boolean; code?: number; reason?: string };

/** A connection of `secret` to `p`: connected (acknowledged) or closed with a code and reason. */
function connect(p: ServerProcess, secret: string): Promise<Outcome> {
  return new Promise((resolve) => {
    const client: Client = createClient({
      url: wsUrl(p),
      webSocketImpl: WebSocket,
      connectionParams: { Authorization: `Bearer ${secret}` },
      retryAttempts: 0,
      lazy: false,
      on: {
        connected: () => resolve({ client, connected: true }),
        closed: (event) => {
          const { code, reason } = event as CloseEvent;
          resolve({ client, connected: false, code, reason });
        },
      },
      onNonLazyError: () => undefined,
    });
    clients.push(client);
  });
}

async function connected(p: ServerProcess, secret: string): Promise<Client> {
  const outcome = await connect(p, secret);
  expect(outcome).toMatchObject({ connected: true });
  return outcome.client;
}

async function newToken(): Promise<{ id: number; secret: string }> {
  const res = await fetch(`${a.url}/graphql`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      query: 'mutation { createApiToken(name: "limits", scopes: ["read_orders"]) { secret token { id } } }',
    }),
  });
  const { data } = (await res.json()) as { data: any };
  return { id: data.createApiToken.token.id, secret: data.createApiToken.secret };
}

/** The token's rows in `subscription_connection` that still count: [connections, subscriptions]. */
async function held(tokenId: number): Promise<[number, number]> {
  const { rows } = await pool.query(
    `select count(*)::int as n, coalesce(sum(subscriptions), 0)::int as s
       from subscription_connection where token_id = $1 and expires_at > now()`,
    [tokenId],
  );
  return [rows[0].n, rows[0].s];
}

/** Polls until the token holds what is expected (the server gives places back after the socket closes). */
async function until(tokenId: number, expected: [number, number], ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  let now = await held(tokenId);
  while (JSON.stringify(now) !== JSON.stringify(expected) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 50));
    now = await held(tokenId);
  }
  expect(now).toEqual(expected);
}

const EVENTS = 'subscription { events(types: ["order.*"]) { id } }';

/** Starts a subscription; resolves with its first error (a refusal) or undefined once it runs. */
function subscribe(client: Client): { refused: Promise<any[] | undefined>; stop: () => void } {
  let settle: (errors: any[] | undefined) => void = () => undefined;
  const refused = new Promise<any[] | undefined>((resolve) => (settle = resolve));
  const stop = client.subscribe(
    { query: EVENTS },
    { next: () => undefined, error: (e) => settle(e as any[]), complete: () => settle(undefined) },
  );
  return { refused, stop };
}

it('refuses on B a token that holds its connections on A, and frees the place when one closes', async () => {
  const token = await newToken();
  const [first] = await Promise.all([connected(a, token.secret), connected(a, token.secret)]);
  await until(token.id, [2, 0]);
  const onB = await connect(b, token.secret);
  expect(onB).toMatchObject({ connected: false, code: 4429 });
  expect(onB.reason).toBe('Too many connections: a token may hold 2 over all instances');
  await first.dispose();
  await until(token.id, [1, 0]);
  await connected(b, token.secret);
  await until(token.id, [2, 0]);
  expect(await connect(a, token.secret)).toMatchObject({ connected: false, code: 4429 });
}, 60_000);

it('admits exactly the limit when many connections race on both instances', async () => {
  const token = await newToken();
  const outcomes = await Promise.all([a, b, a, b, a, b, a, b].map((p) => connect(p, token.secret)));
  expect(outcomes.filter((o) => o.connected)).toHaveLength(2);
  expect(outcomes.filter((o) => !o.connected).map((o) => o.code)).toEqual(Array(6).fill(4429));
  await until(token.id, [2, 0]);
}, 60_000);

it('counts subscriptions over both instances, and an ended one frees its place', async () => {
  const token = await newToken();
  const [onA, onB] = await Promise.all([connected(a, token.secret), connected(b, token.secret)]);
  const one = subscribe(onA);
  const two = subscribe(onA);
  await until(token.id, [2, 2]);
  const third = subscribe(onB);
  const refusal = await third.refused;
  expect(refusal).toEqual([
    expect.objectContaining({
      message: 'Too many subscriptions: a token may run 2 at once over all instances',
      extensions: { code: 'RATE_LIMITED' },
    }),
  ]);
  await until(token.id, [2, 2]);
  one.stop();
  await until(token.id, [2, 1]);
  const again = subscribe(onB);
  await until(token.id, [2, 2]);
  // A closed connection gives back its subscriptions with its place.
  await onA.dispose();
  await until(token.id, [1, 1]);
  for (const s of [two, again]) s.stop();
  await until(token.id, [1, 0]);
}, 60_000);

// Heartbeats that failed for a while (a failover) let a live socket's row expire; a purge deleted it,
// and every later subscribe of that socket was refused as over the limit.
it('lets a live socket whose row expired and was purged subscribe again', async () => {
  const token = await newToken();
  const client = await connected(a, token.secret);
  await until(token.id, [1, 0]);
  await pool.query("update subscription_connection set expires_at = now() - interval '1 minute' where token_id = $1", [
    token.id,
  ]);
  await pool.query('delete from subscription_connection where token_id = $1', [token.id]);
  const running = subscribe(client);
  const settled = await Promise.race([running.refused, new Promise((r) => setTimeout(() => r('running'), 1000))]);
  expect(settled).toBe('running');
  await until(token.id, [1, 1]);
  running.stop();
  await client.dispose();
}, 30_000);

it('holds the limit over the workers of WEB_CONCURRENCY=2 (each worker counts in the same table)', async () => {
  const workers = await startServerProcess(databaseUrl, ADMIN, {
    ...LIMITS,
    // Rows that outlive a busy machine's stalls (3 beats): at 200 ms a worker's late beat can let
    // its row expire mid-test (a check on a loaded machine saw the third connection admitted).
    // Expiry has its own test below.
    SUBSCRIPTION_HEARTBEAT_MS: '2000',
    RATE_LIMIT_RPS: '0',
    WEB_CONCURRENCY: '2',
    SHUTDOWN_GRACE_MS: '2000',
  });
  started.push(workers);
  const token = await newToken();
  // One after another: the supervisor hands connections to the workers in turn.
  const outcomes: Outcome[] = [];
  for (let i = 0; i < 4; i++) outcomes.push(await connect(workers, token.secret));
  // With each refusal's code and reason, so that a failure says which worker refused what.
  expect(outcomes.map(({ connected, code, reason }) => ({ connected, code, reason }))).toEqual([
    { connected: true, code: undefined, reason: undefined },
    { connected: true, code: undefined, reason: undefined },
    { connected: false, code: 4429, reason: expect.any(String) },
    { connected: false, code: 4429, reason: expect.any(String) },
  ]);
  const { rows } = await pool.query(
    'select count(distinct instance)::int as instances from subscription_connection where token_id = $1',
    [token.id],
  );
  expect(rows[0].instances).toBe(2);
  await workers.stop();
  await until(token.id, [0, 0]);
}, 60_000);

it("frees a killed process's places once its heartbeat stops, within the bound", async () => {
  const doomed = await startServerProcess(databaseUrl, ADMIN, { ...LIMITS, RATE_LIMIT_RPS: '0' });
  started.push(doomed);
  const token = await newToken();
  const [x] = await Promise.all([connected(doomed, token.secret), connected(doomed, token.secret)]);
  subscribe(x);
  await until(token.id, [2, 1]);
  // Well past the expiry (3 beats): the heartbeat keeps the rows counting while the process lives.
  await new Promise((r) => setTimeout(r, 6 * HEARTBEAT_MS));
  expect(await held(token.id)).toEqual([2, 1]);
  expect(await connect(a, token.secret)).toMatchObject({ connected: false, code: 4429 });
  expect(await doomed.signal('SIGKILL')).toBeNull();
  const killedAt = Date.now();
  let outcome = await connect(a, token.secret);
  while (!outcome.connected && Date.now() - killedAt < 10_000) {
    expect(outcome.code).toBe(4429);
    await new Promise((r) => setTimeout(r, 100));
    outcome = await connect(a, token.secret);
  }
  expect(outcome.connected).toBe(true);
  await connected(b, token.secret);
  // The dead process's rows were purged by the admissions; the two live ones count.
  const { rows } = await pool.query('select count(*)::int as n from subscription_connection where token_id = $1', [
    token.id,
  ]);
  expect(rows[0].n).toBe(2);
}, 60_000);

it('charges connection_init and each subscribe to the rate limit, and refuses both once it is empty', async () => {
  const token = await newToken();
  const bucket = async () =>
    Number((await pool.query('select tokens from rate_limit_bucket where token_id = $1', [token.id])).rows[0]?.tokens);
  const client = await connected(c, token.secret);
  expect(await bucket()).toBeCloseTo(4, 0);
  const running = [subscribe(client), subscribe(client), subscribe(client)];
  await until(token.id, [1, 3]);
  expect(Math.floor(await bucket())).toBe(1);
  // A request over HTTP spends the same bucket: its headers show what the subscriptions took.
  const res = await fetch(`${c.url}/api/v1/orders/1`, { headers: { authorization: `Bearer ${token.secret}` } });
  expect(res.status).toBe(200);
  expect(res.headers.get('ratelimit-remaining')).toBe('0');
  const refused = await subscribe(client).refused;
  expect(refused).toEqual([
    expect.objectContaining({
      message: expect.stringMatching(
        /^Rate limit exceeded: this token's bucket holds 5 requests .* retry after \d+ s$/,
      ),
      extensions: { code: 'RATE_LIMITED' },
    }),
  ]);
  await until(token.id, [1, 3]);
  const late = await connect(c, token.secret);
  expect(late).toMatchObject({ connected: false, code: 4429 });
  expect(late.reason).toMatch(/^Rate limit exceeded/);
  await until(token.id, [1, 3]);
  for (const s of running) s.stop();
  await until(token.id, [1, 0]);
}, 60_000);

it('charges a subscribe one request before its document is judged, as HTTP does: refused ones too', async () => {
  const token = await newToken();
  const bucket = async () =>
    Number((await pool.query('select tokens from rate_limit_bucket where token_id = $1', [token.id])).rows[0]?.tokens);
  const client = await connected(c, token.secret);
  expect(await bucket()).toBeCloseTo(4, 0);
  // A flood of documents the guards refuse (one that does not parse): each spends its request, so
  // after the bucket's four the refusal is the rate limit's, not the parser's.
  const answers: any[][] = [];
  for (let i = 0; i < 6; i++) {
    answers.push(
      await new Promise<any[]>((resolve) =>
        client.subscribe(
          { query: 'subscription { events(' },
          { next: () => undefined, error: (e) => resolve(e as any[]), complete: () => resolve([]) },
        ),
      ),
    );
  }
  const codes = answers.map((errors) => errors[0]?.extensions?.code ?? (errors[0]?.message ? 'PARSE' : 'NONE'));
  expect(codes.slice(0, 4).every((code) => code !== 'RATE_LIMITED')).toBe(true);
  expect(codes.slice(4)).toEqual(['RATE_LIMITED', 'RATE_LIMITED']);
  expect(Math.floor(await bucket())).toBe(0);
}, 30_000);
