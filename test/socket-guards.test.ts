// Issue #36 items 1 and 2: the subscription socket passes the guards POST /graphql applies, and a
// client that never reads cannot make the process queue answers for it. Against a real process with
// `npm start`'s heap limit: a 1,200-alias introspection document (8 at once), 500 aliased mutations
// and 5,000 nested brackets are refused over the socket as errors, with the process and the socket
// alive and nothing written; a flood of 60 KiB pings from a client that stopped reading closes its
// socket, with and without a token, and the process's peak RSS stays within the heap cap.
import { readFileSync } from 'node:fs';
import net from 'node:net';
import pg from 'pg';
import WebSocket from 'ws';
import { createDatabase } from './support/harness.js';
import { npmStartNodeFlags, type ServerProcess, startServerProcess } from './support/server-process.js';
import { until } from './support/until.js';

const ADMIN = 'sk_socket_guards_admin_0123456789';
const PEAK_RSS_MAX_BYTES = 256 * 1024 * 1024;

let server: ServerProcess;
let databaseUrl: string;
let db: pg.Client;
const open: WebSocket[] = [];

beforeAll(async () => {
  databaseUrl = await createDatabase();
  db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  server = await startServerProcess(databaseUrl, ADMIN, { RATE_LIMIT_BURST: '0' }, npmStartNodeFlags());
}, 60_000);
afterAll(async () => {
  for (const socket of open) socket.terminate();
  await server?.stop();
  await db?.end();
});

type Message = { type: string; id?: string; payload?: any };

/** A raw graphql-transport-ws socket: the messages it received, and whether it closed (with what). */
async function socket(token?: string, base = server.url) {
  const ws = new WebSocket(`${base.replace(/^http/, 'ws')}/graphql`, 'graphql-transport-ws');
  open.push(ws);
  const received: Message[] = [];
  const state: { closed?: { code: number; reason: string } } = {};
  ws.on('message', (data) => received.push(JSON.parse(String(data))));
  ws.on('close', (code, reason) => (state.closed = { code, reason: String(reason) }));
  ws.on('error', () => undefined);
  await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
  const send = (message: Message) => ws.send(JSON.stringify(message));
  if (token) {
    send({ type: 'connection_init', payload: { Authorization: `Bearer ${token}` } });
    await until(async () => received.some((m) => m.type === 'connection_ack'), 5000);
  }
  /** Sends a subscribe message and resolves with the first answer to it. */
  const subscribe = async (id: string, query: string) => {
    send({ type: 'subscribe', id, payload: { query } });
    await until(async () => received.some((m) => m.id === id) || state.closed !== undefined, 10_000).catch(
      () => undefined,
    );
    return received.find((m) => m.id === id);
  };
  return { ws, received, state, send, subscribe };
}

const peakRss = () => Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${server.pid}/status`, 'utf8'))![1]) * 1024;

async function healthy() {
  const res = await fetch(`${server.url}/healthz`);
  expect(res.status).toBe(200);
}

const aliasedIntrospection = Array.from({ length: 1200 }, (_, i) => `a${i}: __schema { types { name } }`).join(' ');

it('refuses 8 concurrent 1,200-alias introspection documents over the socket, process alive', async () => {
  const query = `query { ${aliasedIntrospection} }`;
  expect(Buffer.byteLength(query)).toBeGreaterThan(40_000);
  const client = await socket(ADMIN);
  const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => client.subscribe(`q${i}`, query)));
  for (const answer of answers) {
    expect(answer).toMatchObject({ type: 'error', payload: [{ extensions: { code: 'BAD_REQUEST' } }] });
    expect(answer!.payload[0].message).toMatch(/subscriptions only.*POST \/graphql/);
  }
  // As a subscription, the same aliases cannot even validate: one root field, of the event type.
  const asSubscription = await client.subscribe('s0', `subscription { ${aliasedIntrospection} }`);
  expect(asSubscription).toMatchObject({ type: 'error' });
  expect(client.state.closed).toBeUndefined();
  await healthy();
}, 30_000);

it('refuses 500 aliased mutations over the socket and writes nothing', async () => {
  const count = async () => Number((await db.query('select count(*) from warehouse')).rows[0].count);
  const before = await count();
  const client = await socket(ADMIN);
  const mutations = Array.from({ length: 500 }, (_, i) => `w${i}: createWarehouse(title: "W${i}") { id }`);
  const answer = await client.subscribe('m', `mutation { ${mutations.join(' ')} }`);
  expect(answer).toMatchObject({ type: 'error', payload: [{ extensions: { code: 'BAD_REQUEST' } }] });
  // A single mutation too: mutations are admitted and charged by POST /graphql only.
  const one = await client.subscribe('m1', 'mutation { createWarehouse(title: "One") { id } }');
  expect(one).toMatchObject({ type: 'error' });
  expect(await count()).toBe(before);
  expect(client.state.closed).toBeUndefined();
}, 30_000);

it('refuses 5,000 nested brackets as too deep, and the socket keeps working', async () => {
  const client = await socket(ADMIN);
  const deep = await client.subscribe(
    'd',
    `subscription { events(types: ${'['.repeat(5000)}"x"${']'.repeat(5000)}) { id } }`,
  );
  expect(deep).toMatchObject({ type: 'error', payload: [{ extensions: { code: 'QUERY_TOO_DEEP' } }] });
  expect(client.state.closed).toBeUndefined();
  // A well-formed subscription still runs on that socket: live, nothing to answer until an event commits.
  client.send({ type: 'subscribe', id: 'live', payload: { query: 'subscription { events { id } }' } });
  await new Promise((resolve) => setTimeout(resolve, 500));
  expect(client.received.filter((m) => m.id === 'live')).toEqual([]);
  client.send({ type: 'complete', id: 'live' });
  await healthy();
}, 30_000);

it('closes a socket that stops reading under a flood of 60 KiB pings, with and without a token', async () => {
  const payload = { junk: 'x'.repeat(60 * 1024) };
  for (const token of [ADMIN, undefined]) {
    const client = await socket(token);
    // Stop reading: whatever the server sends now stays queued on its side.
    (client.ws as unknown as { _socket: { pause(): void } })._socket.pause();
    let sent = 0;
    for (; sent < 1350 && client.ws.readyState === WebSocket.OPEN; sent++) {
      client.send({ type: 'ping', payload });
      if (sent % 50 === 49) await new Promise((resolve) => setTimeout(resolve, 5));
    }
    await until(async () => client.ws.readyState === WebSocket.CLOSED, 15_000);
    await healthy();
  }
  const metrics = await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${ADMIN}` } });
  expect(await metrics.text()).toMatch(/^websocket_backpressure_closes_total [1-9]/m);
}, 60_000);

// A revoked token was looked up again only every few seconds: meanwhile its subscribe messages read
// the feed with the scopes it had at connection_init.
it('refuses a subscribe of a token revoked since connection_init at once, and closes the socket', async () => {
  const created = await fetch(`${server.url}/graphql`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      query: 'mutation { createApiToken(name: "doomed", scopes: ["read_orders"]) { token { id } secret } }',
    }),
  });
  const { data } = (await created.json()) as { data: { createApiToken: { token: { id: number }; secret: string } } };
  const client = await socket(data.createApiToken.secret);
  await db.query('update api_token set revoked_at = now() where id = $1', [data.createApiToken.token.id]);
  const answer = await client.subscribe('1', 'subscription { events(after: 0) { id type } }');
  expect(answer).toMatchObject({ type: 'error', payload: [{ extensions: { code: 'UNAUTHENTICATED' } }] });
  expect(client.received.filter((m) => m.type === 'next')).toEqual([]);
  await until(async () => client.state.closed !== undefined, 5000);
  expect(client.state.closed?.code).toBe(4403);
}, 30_000);

// connection_init reached the database pool around admission control: thousands of them, each a
// token lookup, left HTTP requests waiting for the pool.
it('admits connection_init messages through the process admission slots: past them, closed with 1013', async () => {
  const small = await startServerProcess(
    databaseUrl,
    ADMIN,
    { MAX_IN_FLIGHT: '1', ADMISSION_QUEUE_MAX: '0', RATE_LIMIT_BURST: '0' },
    npmStartNodeFlags(),
  );
  try {
    const clients = await Promise.all(Array.from({ length: 30 }, () => socket(undefined, small.url)));
    for (const [i, client] of clients.entries())
      client.send({ type: 'connection_init', payload: { Authorization: `Bearer sk_bogus_${i}_0123456789` } });
    await until(async () => clients.every((client) => client.state.closed !== undefined), 10_000);
    const codes = clients.map((client) => client.state.closed?.code);
    expect(codes.filter((code) => code === 1013).length).toBeGreaterThan(0);
    expect(codes.every((code) => code === 1013 || code === 4403)).toBe(true);
    expect(clients.find((client) => client.state.closed?.code === 1013)?.state.closed?.reason).toContain(
      'limit of concurrent requests',
    );
  } finally {
    await small.stop();
  }
}, 60_000);

it('closes a connection_init whose Authorization is no string as one without a token (4403)', async () => {
  // An object whose toString is no function cannot even be turned into text.
  for (const authorization of [{ toString: 0 }, { valueOf: 1, toString: 'x' }, 42, null]) {
    const client = await socket();
    client.send({ type: 'connection_init', payload: { Authorization: authorization } });
    await until(async () => client.state.closed !== undefined, 5000);
    expect({ authorization, closed: client.state.closed?.code }).toEqual({ authorization, closed: 4403 });
  }
  await healthy();
}, 30_000);

it('closes a connection_init that found no free pool connection with 1013 (try again later)', async () => {
  // One connection, held by a REST read waiting on a locked table: the token cannot be looked up.
  const busy = await startServerProcess(databaseUrl, ADMIN, { RATE_LIMIT_BURST: '0', DB_POOL_MAX: '1' });
  const locker = new pg.Client({ connectionString: databaseUrl });
  await locker.connect();
  try {
    await locker.query('begin');
    await locker.query('lock table customer in access exclusive mode');
    const holder = fetch(`${busy.url}/api/v1/customers?size=1`, { headers: { authorization: `Bearer ${ADMIN}` } });
    await new Promise((resolve) => setTimeout(resolve, 300));
    const client = await socket(undefined, busy.url);
    client.send({ type: 'connection_init', payload: { Authorization: `Bearer ${ADMIN}` } });
    await until(async () => client.state.closed !== undefined, 15_000);
    expect(client.state.closed).toMatchObject({ code: 1013 });
    await locker.query('rollback');
    await holder;
  } finally {
    await locker.end();
    await busy.stop();
  }
}, 40_000);

it('refuses subscribe messages past 16 waiting their turn on one socket, at once and unread', async () => {
  const client = await socket(ADMIN);
  const locker = new pg.Client({ connectionString: databaseUrl });
  await locker.connect();
  try {
    // Each subscribe takes its place in this table: held, the first waits, and the rest queue behind it.
    await locker.query('begin');
    await locker.query('lock table subscription_connection in access exclusive mode');
    for (let i = 0; i < 40; i++) {
      client.send({ type: 'subscribe', id: `w${i}`, payload: { query: 'subscription { events { id } }' } });
    }
    const refused = () => client.received.filter((m) => m.type === 'error' && /waiting/.test(m.payload?.[0]?.message));
    await until(async () => refused().length >= 40 - 16, 10_000);
    expect(refused().map((m) => m.id)).toEqual(Array.from({ length: 24 }, (_, i) => `w${i + 16}`));
    expect(refused()[0].payload[0].extensions.code).toBe('RATE_LIMITED');
  } finally {
    await locker.query('rollback');
    await locker.end();
    client.ws.terminate();
  }
  await healthy();
}, 30_000);

/** Writes `request` on a raw connection and resolves with what the server answered before closing. */
function rawExchange(request: string): Promise<string> {
  const { hostname, port } = new URL(server.url);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const connection = net.connect(Number(port), hostname, () => connection.write(request));
    connection.on('data', (chunk) => chunks.push(chunk));
    connection.on('close', () => resolve(Buffer.concat(chunks).toString('latin1')));
    connection.on('error', reject);
  });
}

const upgrade = (target: string) =>
  `GET ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
  'Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n';

it('answers 404 to upgrades of targets that are no URL or another path, and a client gone at once', async () => {
  for (const target of ['//a:99999/graphql', 'http://a:99999/graphql', '/elsewhere']) {
    const answer = await rawExchange(upgrade(target));
    expect({ target, status: answer.split('\r\n')[0] }).toEqual({ target, status: 'HTTP/1.1 404 Not Found' });
  }
  // Clients that reset their connection right after asking: the answer's write fails on the server.
  const { hostname, port } = new URL(server.url);
  await Promise.all(
    Array.from(
      { length: 20 },
      () =>
        new Promise<void>((resolve) => {
          const connection = net.connect(Number(port), hostname, () => {
            connection.write(upgrade('/elsewhere'));
            connection.resetAndDestroy();
          });
          connection.on('close', () => resolve());
          connection.on('error', () => undefined);
        }),
    ),
  );
  await new Promise((resolve) => setTimeout(resolve, 200));
  await healthy();
}, 30_000);

it('kept its peak RSS within the npm start heap cap through every attack above', () => {
  const peak = peakRss();
  process.stdout.write(`socket-guards: peak RSS of the service ${(peak / 1024 / 1024).toFixed(0)} MB\n`);
  expect(peak).toBeLessThanOrEqual(PEAK_RSS_MAX_BYTES);
});
