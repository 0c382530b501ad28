// A /graphql query by a caller this process has seen checks its token in the statement of its read
// (src/auth/carried-token-check.ts); a first-time caller is checked first. Both go through Apollo's
// one pipeline (src/graphql/koa-apollo.ts). A client must not be able to tell: the answer is the
// same, byte for byte, and the request costs the same.
import { startTestService, type TestService } from './support/harness.js';

let service: TestService;
// Below a bucket of 100 there is no lease, so every answer's RateLimit-Remaining is the bucket's.
const LIMITS = { burst: 90, rps: 0.001 };
beforeAll(async () => {
  service = await startTestService({ rateLimit: LIMITS });
});
afterAll(() => service.stop());

const remaining = (res: { headers: Headers }) => Number(res.headers.get('ratelimit-remaining'));

const CASES: { name: string; query: string; variables?: Record<string, unknown> }[] = [
  {
    name: 'a page PostgreSQL writes',
    query: '{ orders(size: 3, sort: [{ field: ID, direction: DESC }]) { totalCount items { id total } } }',
  },
  {
    name: 'a record with variables',
    query: 'query One($id: Int!) { order(id: $id) { id email lineItems { id title } } }',
    variables: { id: 2 },
  },
  { name: 'a derived field', query: '{ orders(size: 2) { items { id riskLevel { ipFail zipFail } } } }' },
  {
    name: 'two root fields (cost 2)',
    query: '{ products(size: 2) { items { id title } } customers(size: 2) { items { id } } }',
  },
  { name: 'introspection', query: '{ __schema { queryType { name } } __typename }' },
  {
    name: 'a missing record (an error beside data)',
    query: 'query One($id: Int!) { order(id: $id) { id } }',
    variables: { id: 987654321 },
  },
  {
    name: 'variables that do not coerce',
    query: 'query One($id: Int!) { order(id: $id) { id } }',
    variables: { id: 'seven' },
  },
];

it.each(CASES)(
  'answers $name to a known caller as to a first-time caller, and charges it the same',
  async ({ query, variables }) => {
    const secret = await service.tokenWith(['read_orders', 'read_products', 'read_customers']);
    // An unknown caller is checked before anything runs; the next two carry the check on the read.
    const first = await service.graphql(query, variables, secret);
    const second = await service.graphql(query, variables, secret);
    const third = await service.graphql(query, variables, secret);
    expect(second.status).toBe(first.status);
    expect(second.headers.get('content-type')).toBe(first.headers.get('content-type'));
    expect(second.text).toBe(first.text);
    expect(third.text).toBe(first.text);
    const cost = first.body.extensions.cost;
    expect(cost).toBeGreaterThanOrEqual(1);
    expect(remaining(first)).toBe(LIMITS.burst - cost);
    expect(remaining(second)).toBe(LIMITS.burst - 2 * cost);
    expect(remaining(third)).toBe(LIMITS.burst - 3 * cost);
  },
);

it('answers a known caller in one statement: the token check rides on the read', async () => {
  const secret = await service.tokenWith(['read_orders']);
  const query = '{ orders(size: 2) { items { id email } } }';
  await service.graphql(query, undefined, secret);
  service.statements.reset();
  const res = await service.graphql(query, undefined, secret);
  expect(res.status).toBe(200);
  expect(res.body.data.orders.items).toHaveLength(2);
  expect(service.statements.count).toBe(1);
});

it('refuses a known caller past its scopes as a first-time caller is refused', async () => {
  const secret = await service.tokenWith(['read_products']);
  const query = '{ orders(size: 2) { items { id } } }';
  const first = await service.graphql(query, undefined, secret);
  const second = await service.graphql(query, undefined, secret);
  expect(first.body.errors[0].extensions.code).toBe('FORBIDDEN');
  expect(second.status).toBe(first.status);
  expect(second.text).toBe(first.text);
});

it('answers a known caller in another negotiated media type', async () => {
  const secret = await service.tokenWith(['read_orders']);
  const query = '{ orders(size: 1) { items { id } } }';
  await service.graphql(query, undefined, secret);
  const res = await service.send('POST', '/graphql', { query }, secret, {
    accept: 'application/graphql-response+json',
  });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^application\/graphql-response\+json/);
  expect(res.body.data.orders.items).toHaveLength(1);
});

it('refuses a known caller an operation over the complexity limit', async () => {
  const secret = await service.tokenWith(['read_products', 'read_collections']);
  const query =
    'query ($n: Int!) { products(size: $n) { items { id collections { products(size: $n) { items { id } } } } } }';
  expect((await service.graphql(query, { n: 2 }, secret)).status).toBe(200);
  expect((await service.graphql(query, { n: 2 }, secret)).status).toBe(200);
  const res = await service.graphql(query, { n: 250 }, secret);
  expect(res.status).toBe(400);
  expect(res.body.errors[0].extensions.code).toBe('QUERY_TOO_COMPLEX');
  expect(res.body.data).toBeUndefined();
});
