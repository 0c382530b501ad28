// docs/decisions.md#event-feed "Subscriptions": Subscription.events over graphql-ws at /graphql.
// A change written through process B reaches a subscriber connected to process A (LISTEN/NOTIFY
// wakes it, the feed is the source of truth, so `after` resumes without loss); the same scope rules
// as the feed; a socket without a token, with another subprotocol or with a revoked token is closed.
import { type Client, createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { createDatabase } from './support/harness.js';
import { type ServerProcess, startServerProcess } from './support/server-process.js';

const ADMIN = 'sk_subscription_admin_token_0123456789';
let processes: ServerProcess[] = [];
const clients: Client[] = [];
beforeAll(async () => {
  const databaseUrl = await createDatabase();
  const limits = { SUBSCRIPTION_CONNECTIONS_PER_TOKEN: '3', SUBSCRIPTIONS_PER_TOKEN: '3' };
  const env = { RATE_LIMIT_RPS: '0', RATE_LIMIT_BURST: '0', ...limits };
  processes = await Promise.all([0, 1].map(() => startServerProcess(databaseUrl, ADMIN, env)));
}, 60_000);
afterAll(async () => {
  await Promise.all(processes.map((p) => p.stop()));
  await Promise.all(clients.map((c) => c.dispose()));
}, 60_000);

const wsUrl = (p: ServerProcess) => `${p.url.replace(/^http/, 'ws')}/graphql`;

function client(p: ServerProcess, token: string | null, onClose?: (code: number, reason: string) => void): Client {
  const made = createClient({
    url: wsUrl(p),
    webSocketImpl: WebSocket,
    connectionParams: token === null ? {} : { Authorization: `Bearer ${token}` },
    retryAttempts: 0,
    lazy: false,
    on: { closed: (event) => onClose?.((event as CloseEvent).code, (event as CloseEvent).reason) },
    onNonLazyError: () => undefined,
  });
  clients.push(made);
  return made;
}

async function graphql(p: ServerProcess, query: string, variables?: Record<string, unknown>, token = ADMIN) {
  const res = await fetch(`${p.url}/graphql`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ query, variables }),
  });
  return (await res.json()) as { data?: any; errors?: any[] };
}

async function patchNotes(p: ServerProcess, orderId: number, notes: string) {
  const res = await fetch(`${p.url}/api/v1/orders/${orderId}`, {
    method: 'PATCH',
    headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ notes }),
  });
  expect(res.status).toBe(200);
}

async function tokenWith(scopes: string[]): Promise<{ id: number; secret: string }> {
  const mutation = 'mutation ($s: [String!]!) { createApiToken(name: "sub", scopes: $s) { secret token { id } } }';
  const made = await graphql(processes[0], mutation, { s: scopes });
  return { id: made.data.createApiToken.token.id, secret: made.data.createApiToken.secret };
}

/** The next `count` results of a subscription, or a failure after `ms`. */
async function take(iterator: AsyncIterator<any>, count: number, ms = 10_000): Promise<any[]> {
  const results: any[] = [];
  const deadline = Date.now() + ms;
  while (results.length < count) {
    let timer: NodeJS.Timeout | undefined;
    const left = Math.max(deadline - Date.now(), 0);
    const timeout = new Promise<'timeout'>((r) => (timer = setTimeout(() => r('timeout'), left)));
    // finally: a rejected next() (a refused subscription) must not leave the timer holding the worker.
    const next = await Promise.race([iterator.next(), timeout]).finally(() => clearTimeout(timer));
    if (next === 'timeout') {
      throw new Error(`only ${results.length} of ${count} results within ${ms} ms: ${JSON.stringify(results)}`);
    }
    if (next.done) break;
    results.push(next.value);
  }
  return results;
}

const EVENTS = `subscription ($after: Int, $types: [String!]) {
  events(after: $after, types: $types) { id type data actor { name } }
}`;

it('pushes to a subscriber on A the change written through B, and resumes after a cursor without loss', async () => {
  const subscriber = client(processes[0], ADMIN);
  const live = subscriber.iterate({ query: EVENTS, variables: { after: 0, types: ['order.*'] } });
  await patchNotes(processes[1], 1, 'written on B');
  const [first] = await take(live, 1);
  expect(first.errors).toBeUndefined();
  expect(first.data.events).toMatchObject({
    type: 'order.notes_changed',
    data: { id: 1, notes: 'written on B' },
    actor: { name: expect.any(String) },
  });
  const started = Date.now();
  await patchNotes(processes[1], 2, 'second');
  const [second] = await take(live, 1);
  expect(second.data.events).toMatchObject({ data: { id: 2, notes: 'second' } });
  // Woken by NOTIFY, not found by a poll alone: well within the 1 s poll on an idle machine; bounded generously here.
  expect(Date.now() - started).toBeLessThan(5000);
  await live.return?.();
  // A subscription resuming after the first event gets the second (written while it was away), then new ones.
  const resumeAfter = { after: first.data.events.id, types: ['order.*'] };
  const resumed = client(processes[1], ADMIN).iterate({ query: EVENTS, variables: resumeAfter });
  const [again] = await take(resumed, 1);
  expect(again.data.events.id).toBe(second.data.events.id);
  await patchNotes(processes[0], 3, 'third');
  const [third] = await take(resumed, 1);
  expect(third.data.events).toMatchObject({ data: { id: 3, notes: 'third' } });
  await resumed.return?.();
}, 60_000);

it('shows a token only the events its read scopes cover, and refuses bad arguments and missing scopes', async () => {
  const productsOnly = await tokenWith(['read_products']);
  const live = client(processes[0], productsOnly.secret).iterate({ query: EVENTS, variables: { after: 0 } });
  await patchNotes(processes[1], 4, 'not for the catalogue');
  const res = await fetch(`${processes[1].url}/api/v1/products/1`, {
    method: 'PATCH',
    headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ title: 'Renamed over B' }),
  });
  expect(res.status).toBe(200);
  const [only] = await take(live, 1);
  expect(only.data.events).toMatchObject({ type: 'product.updated', data: { id: 1, title: 'Renamed over B' } });
  await live.return?.();

  const admin = client(processes[0], ADMIN);
  const unknown = await take(admin.iterate({ query: EVENTS, variables: { types: ['order.shipped'] } }), 1);
  expect(unknown[0].errors[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', fields: [{ field: 'types' }] });
  const beyond = await take(admin.iterate({ query: EVENTS, variables: { after: 2_000_000_000 } }), 1);
  expect(beyond[0].errors[0]).toMatchObject({ extensions: { code: 'BAD_USER_INPUT', fields: [{ field: 'after' }] } });
  const shippingOnly = await tokenWith(['read_shipping']);
  const refused = await take(client(processes[0], shippingOnly.secret).iterate({ query: EVENTS }), 1);
  expect(refused[0].errors[0].extensions.code).toBe('FORBIDDEN');
  // Variables it cannot take are refused before it starts, naming each, as POST /graphql does.
  const badVariables = await take(admin.iterate({ query: EVENTS, variables: { after: 'abc' } }), 1).catch(
    (errors: unknown) => errors as any[],
  );
  expect(badVariables[0]).toMatchObject({ extensions: { code: 'BAD_USER_INPUT', fields: [{ field: 'after' }] } });
  // A subscription sent over HTTP is refused, saying where it runs (its root field has nothing to answer there).
  const overHttp = await fetch(`${processes[0].url}/graphql`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ query: 'subscription { events { id } }' }),
  });
  expect(overHttp.status).toBe(400);
  expect(((await overHttp.json()) as any).errors[0]).toMatchObject({
    message: expect.stringContaining('WebSocket'),
    extensions: { code: 'BAD_REQUEST' },
  });
}, 60_000);

it('closes a socket without a token (4403), without the subprotocol (4406), with a revoked token (4403)', async () => {
  const closed = (p: ServerProcess, token: string | null) =>
    new Promise<number>((resolve) => {
      client(p, token, (code) => resolve(code));
    });
  expect(await closed(processes[0], null)).toBe(4403);
  expect(await closed(processes[0], 'sk_not_a_token_at_all')).toBe(4403);

  // The legacy subscriptions-transport-ws protocol is not agreed to: the handshake names no
  // subprotocol (the client gives up), and a socket that asks for none is closed with 4406.
  const legacy = new WebSocket(wsUrl(processes[0]), 'graphql-ws');
  const legacyError = await new Promise<string>((resolve) => legacy.on('error', (e) => resolve(e.message)));
  expect(legacyError).toBe('Server sent no subprotocol');
  const bare = new WebSocket(wsUrl(processes[0]));
  const code = await new Promise<number>((resolve) => bare.on('close', (c) => resolve(c)));
  expect(code).toBe(4406);

  const notWs = new WebSocket(`${processes[0].url.replace(/^http/, 'ws')}/api/v1/orders`);
  const refusedUpgrade = await new Promise<string>((resolve) => notWs.on('error', (e) => resolve(String(e.message))));
  expect(refusedUpgrade).toContain('404');
  for (const socket of [legacy, bare, notWs]) socket.terminate();

  const doomed = await tokenWith(['read_orders']);
  const whenClosed = closed(processes[0], doomed.secret);
  await new Promise((r) => setTimeout(r, 300));
  const revoke = 'mutation ($id: Int!) { revokeApiToken(id: $id) { id } }';
  const revoked = await graphql(processes[1], revoke, { id: doomed.id });
  expect(revoked.errors).toBeUndefined();
  const started = Date.now();
  expect(await whenClosed).toBe(4403);
  expect(Date.now() - started).toBeLessThan(15_000);
}, 60_000);

it('limits a token to its connections and subscriptions over both instances, and gives them back', async () => {
  const { secret } = await tokenWith(['read_orders']);
  const codes: number[] = [];
  const [a, b, c] = [0, 1, 2].map(() => client(processes[0], secret, (code) => codes.push(code)));
  const live = [a, b, c].map((x) => x.iterate({ query: EVENTS }));
  await new Promise((r) => setTimeout(r, 500));
  const fourth = await new Promise<number>((resolve) => {
    client(processes[0], secret, (code) => resolve(code));
  });
  expect(fourth).toBe(4429);
  // The places are counted in PostgreSQL: the other instance refuses the token too.
  const elsewhere = await new Promise<number>((resolve) => {
    client(processes[1], secret, (code) => resolve(code));
  });
  expect(elsewhere).toBe(4429);
  expect(codes).toEqual([]);
  // A subscription over the limit is refused with an error message (the iterator rejects).
  const refusedHere = await take(a.iterate({ query: EVENTS }), 1).catch((errors: unknown) => errors);
  const tooMany = { extensions: { code: 'RATE_LIMITED' }, message: expect.stringContaining('Too many subscriptions') };
  expect(refusedHere).toEqual([expect.objectContaining(tooMany)]);
  // One ends: its place is free again.
  await live[0].return?.();
  await new Promise((r) => setTimeout(r, 300));
  const cursor = (await graphql(processes[0], '{ events(size: 250) { next } }')).data.events.next ?? 0;
  const replacement = a.iterate({ query: EVENTS, variables: { after: cursor, types: ['order.*'] } });
  await patchNotes(processes[1], 6, 'still counted right');
  const [delivered] = await take(replacement, 1);
  expect(delivered.data.events).toMatchObject({ data: { id: 6 } });
  await Promise.all([replacement, ...live.slice(1)].map((it) => it.return?.()));
}, 60_000);
