// One set of guards for every carrier of a GraphQL document (docs/operations.md#which-guard-applies-where):
// the same hostile document sent by POST /graphql, GET /graphql, the subscription socket and a bulk
// operation's mutation is refused with the same message, and runs nothing. The operation's type is
// the carrier's (a query over HTTP, a subscription over the socket, a mutation in bulk); what makes it
// hostile is the same text. Against a real process with `npm start`'s heap limit.
import pg from 'pg';
import WebSocket from 'ws';
import { createDatabase } from './support/harness.js';
import { npmStartNodeFlags, type ServerProcess, startServerProcess } from './support/server-process.js';
import { until } from './support/until.js';

const ADMIN = 'sk_guards_by_carrier_admin_0123456789';

let server: ServerProcess;
let db: pg.Client;
let uploadId: number;
const sockets: WebSocket[] = [];

beforeAll(async () => {
  const url = await createDatabase();
  db = new pg.Client({ connectionString: url });
  await db.connect();
  server = await startServerProcess(url, ADMIN, { RATE_LIMIT_BURST: '0' }, npmStartNodeFlags());
  const uploaded = await fetch(`${server.url}/api/v1/bulk-operations/uploads`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/x-ndjson' },
    body: '{"id":1}\n',
  });
  expect(uploaded.status).toBe(201);
  uploadId = ((await uploaded.json()) as { id: number }).id;
}, 60_000);
afterAll(async () => {
  for (const socket of sockets) socket.terminate();
  await server?.stop();
  await db?.end();
});

interface Refusal {
  message: string;
  code: string | undefined;
}

const auth = { authorization: `Bearer ${ADMIN}` };
const first = (body: any): Refusal => ({ message: body.errors[0].message, code: body.errors[0].extensions?.code });

async function byPost(query: string, variables?: Record<string, unknown>): Promise<Refusal> {
  const res = await fetch(`${server.url}/graphql`, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json' },
    body: JSON.stringify({ query, variables }),
  });
  expect(res.status).toBe(400);
  return first(await res.json());
}

async function byGet(query: string, variables?: Record<string, unknown>): Promise<Refusal> {
  const params = new URLSearchParams({ query, ...(variables ? { variables: JSON.stringify(variables) } : {}) });
  const res = await fetch(`${server.url}/graphql?${params}`, { headers: auth });
  expect(res.status).toBe(400);
  return first(await res.json());
}

async function bySocket(query: string, variables?: Record<string, unknown>): Promise<Refusal> {
  const ws = new WebSocket(`${server.url.replace(/^http/, 'ws')}/graphql`, 'graphql-transport-ws');
  sockets.push(ws);
  const received: { type: string; id?: string; payload?: any }[] = [];
  ws.on('message', (data) => received.push(JSON.parse(String(data))));
  await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
  ws.send(JSON.stringify({ type: 'connection_init', payload: { Authorization: `Bearer ${ADMIN}` } }));
  await until(async () => received.some((m) => m.type === 'connection_ack'), 5000);
  ws.send(JSON.stringify({ type: 'subscribe', id: 'one', payload: { query, variables } }));
  const answer = await until(async () => received.find((m) => m.id === 'one') ?? false, 10_000);
  expect(answer.type).toBe('error');
  expect(ws.readyState).toBe(WebSocket.OPEN); // refused as an error; the socket stays
  ws.terminate();
  return { message: answer.payload[0].message, code: answer.payload[0].extensions?.code };
}

/** A bulk operation's mutation: refused when it is started, as a field error on `mutation`. */
async function byBulk(mutation: string): Promise<Refusal> {
  const res = await fetch(`${server.url}/graphql`, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json' },
    body: JSON.stringify({
      query: 'mutation ($m: String!, $u: Int!) { bulkOperationRunMutation(mutation: $m, uploadId: $u) { id } }',
      variables: { m: mutation, u: uploadId },
    }),
  });
  const body = (await res.json()) as any;
  expect(body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
  const [field] = body.errors[0].extensions.fields;
  expect(field.field).toBe('mutation');
  return { message: field.message, code: undefined };
}

const bulkOperations = async () => Number((await db.query('select count(*) from bulk_operation')).rows[0].count);

// Each hostile text, as the root selection of an operation of any type.
const NESTED = `${'{ '.repeat(100)}${'} '.repeat(100)}`;
// 21,000 one-letter fields: past the 20,000 tokens in 42 KB, within every carrier's message size.
const MANY_TOKENS = 'x '.repeat(21_000);

it('refuses brackets nested past the limit, before parsing, by every carrier', async () => {
  const before = await bulkOperations();
  const refusals = [
    await byPost(`query { orders ${NESTED} }`),
    await byGet(`query { orders ${NESTED} }`),
    await bySocket(`subscription { events ${NESTED} }`),
  ];
  for (const refusal of refusals) {
    expect(refusal).toEqual({
      message: 'The document nests brackets more than 64 levels deep',
      code: 'QUERY_TOO_DEEP',
    });
  }
  expect((await byBulk(`mutation { createWarehouse ${NESTED} }`)).message).toBe(refusals[0].message);
  expect(await bulkOperations()).toBe(before);
});

it('refuses a document past the token limit (parse and validation CPU bounded) by every carrier', async () => {
  const before = await bulkOperations();
  // GET carries no such document: its URL would be longer than Node reads (431), a bound of its own.
  const refusal = await byPost(`query { ${MANY_TOKENS} }`);
  expect(refusal).toEqual({
    message: expect.stringMatching(/^Syntax Error: .* 20000 tokens/),
    code: 'GRAPHQL_PARSE_FAILED',
  });
  expect((await bySocket(`subscription { ${MANY_TOKENS} }`)).message).toBe(refusal.message);
  expect((await byBulk(`mutation { ${MANY_TOKENS} }`)).message).toBe(refusal.message);
  expect(await bulkOperations()).toBe(before);
});

it('refuses variables past the structural input limits, naming the variable, by every carrier', async () => {
  let deep: unknown = 1;
  for (let i = 0; i < 40; i++) deep = { a: deep };
  const variables = { input: deep };
  const refusals = [
    await byPost('query ($input: JSONObject) { __typename }', variables),
    await byGet('query ($input: JSONObject) { __typename }', variables),
    await bySocket('subscription ($input: JSONObject) { events { id } }', variables),
  ];
  expect(refusals[0].code).toBe('BAD_USER_INPUT');
  expect(refusals[0].message).toMatch(/^Invalid variables: \$input\.a\.a/);
  for (const refusal of refusals) expect(refusal).toEqual(refusals[0]);
});

// The socket's one root field (events) holds no relation to nest or multiply: test/socket-guards.test.ts
// covers its limits. A query of one record and the mutation that returns it measure alike.
it('refuses an operation past the depth limit by each carrier that can nest so deep', async () => {
  const deep = `${'collections { products { items { '.repeat(4)}id${' } } }'.repeat(4)}`;
  const query = `query { product(id: 1) { ${deep} } }`;
  const refusals = [await byPost(query), await byGet(query)];
  expect(refusals[0].code).toBe('QUERY_TOO_DEEP');
  expect(refusals[1]).toEqual(refusals[0]);
  const before = await bulkOperations();
  expect((await byBulk(`mutation { updateProduct(id: 1, input: {}) { ${deep} } }`)).message).toBe(refusals[0].message);
  expect(await bulkOperations()).toBe(before);
});

it('refuses an operation past the complexity limit by each carrier that can reach it', async () => {
  const wide = `${'collections { products(size: 250) { items { '.repeat(2)}id${' } } }'.repeat(2)}`;
  const query = `query { product(id: 1) { ${wide} } }`;
  const refusals = [await byPost(query), await byGet(query)];
  expect(refusals[0].code).toBe('QUERY_TOO_COMPLEX');
  expect(refusals[1]).toEqual(refusals[0]);
  expect((await byBulk(`mutation { updateProduct(id: 1, input: {}) { ${wide} } }`)).message).toBe(refusals[0].message);
});
