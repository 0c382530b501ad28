// A /graphql read PostgreSQL answers, and a REST list or search page, carries its token check in
// the statement of its read (src/auth/carried-token-check.ts): one round trip instead of two. What
// the process remembers of a token is only a hint; each request is still held to the token row as
// it is now.
import { hashSecret, tokenCheckSql } from '../src/auth/api-tokens.js';
import { RateLimiter } from '../src/auth/rate-limit.js';
import { ACCOMPANIED_READ } from '../src/db/prepared-statements.js';
import { startTestService, type TestService } from './support/harness.js';

let service: TestService;
const LIMITS = { burst: 60, rps: 1 };
beforeAll(async () => {
  service = await startTestService({ rateLimit: LIMITS });
});
afterAll(() => service.stop());

const ORDERS = '{ orders(size: 3, sort: [{ field: ID, direction: DESC }]) { items { id total } } }';
const PRODUCTS = '{ products(size: 3) { items { id title } } }';

/** A token seen once by the service (so its next read carries the check), and how to change its row. */
async function knownToken(scopes: string[]) {
  const secret = await service.tokenWith(scopes);
  const seen = await service.graphql('{ __typename }', undefined, secret);
  expect(seen.status).toBe(200);
  const where = `secret_hash = '${hashSecret(secret)}'`;
  return { secret, update: (set: string) => service.sql(`update api_token set ${set} where ${where}`) };
}

async function statementsOf(document: string, secret: string) {
  service.statements.reset();
  const res = await service.graphql(document, undefined, secret);
  return { res, statements: service.statements.count };
}

it('answers a known token in one statement, charging its bucket one request each time', async () => {
  const { secret } = await knownToken(['read_orders']);
  const first = await statementsOf(ORDERS, secret);
  expect(first.res.status).toBe(200);
  expect(first.statements).toBe(1);
  expect(first.res.body.data.orders.items).toHaveLength(3);
  const second = await statementsOf(ORDERS, secret);
  // The bucket refills at 1/s, so within a second the second read leaves at most as many requests.
  const left = (res: typeof first.res) => Number(res.headers.get('ratelimit-remaining'));
  expect(left(second.res)).toBeLessThanOrEqual(left(first.res));
  expect(left(second.res)).toBeLessThan(60);
  expect(second.res.body.extensions.cost).toBe(1);
});

it('refuses a token revoked since its last request: 401 with the challenge, and no data', async () => {
  const { secret, update } = await knownToken(['read_orders']);
  await update('revoked_at = now()');
  const { res, statements } = await statementsOf(ORDERS, secret);
  expect(res.status).toBe(401);
  expect(res.headers.get('www-authenticate')).toBe('Bearer realm="store-api"');
  expect(res.body.data).toBeUndefined();
  expect(res.body.errors[0].extensions.code).toBe('UNAUTHENTICATED');
  expect(res.body.extensions.cost).toBe(0);
  expect(statements).toBe(1);
  // Forgotten: the next request checks first, and is refused the same way.
  expect((await service.graphql(ORDERS, undefined, secret)).status).toBe(401);
});

it('returns no row to a revoked token on any road a read can take', async () => {
  // Each road a read is answered by: PostgreSQL's page, PostgreSQL's record, executed (a derived
  // field), GET /graphql, REST's list, record and export. Each is sent by a caller the process has
  // seen (so a /graphql read carries its check) whose token was revoked since.
  const roads: [string, (secret: string) => ReturnType<TestService['get']>][] = [
    ['page by PostgreSQL', (t) => service.graphql(ORDERS, undefined, t)],
    ['record by PostgreSQL', (t) => service.graphql('{ order(id: 1) { id email } }', undefined, t)],
    ['executed', (t) => service.graphql('{ orders(size: 2) { items { id riskLevel { ipFail } } } }', undefined, t)],
    ['GET /graphql', (t) => service.get(`/graphql?query=${encodeURIComponent(ORDERS)}`, t)],
    ['REST list', (t) => service.get('/api/v1/orders?size=2', t)],
    ['REST record', (t) => service.get('/api/v1/orders/1', t)],
    ['REST export', (t) => service.get('/api/v1/orders/export', t)],
  ];
  for (const [road, read] of roads) {
    const { secret, update } = await knownToken(['read_orders']);
    await update('revoked_at = now()');
    const res = await read(secret);
    expect({ road, status: res.status }).toEqual({ road, status: 401 });
    expect(JSON.stringify(res.body ?? '')).not.toMatch(/"email"|"total"|"items"|"id":1\b/);
  }
});

it('refuses a revoked token whose document does not even validate: 401, not the validation error', async () => {
  const { secret, update } = await knownToken(['read_orders']);
  await update('revoked_at = now()');
  const res = await service.graphql('{ orders(size: 3) { items { noSuchField } } }', undefined, secret);
  expect(res.status).toBe(401);
  expect(res.body.errors[0].extensions.code).toBe('UNAUTHENTICATED');
});

it('holds a token to the scopes it has now: one taken away refuses, one given allows', async () => {
  const { secret, update } = await knownToken(['read_orders']);
  await update(`scopes = '{read_products}'`);
  const lost = await service.graphql(ORDERS, undefined, secret);
  expect(lost.status).toBe(403);
  expect(lost.body.errors[0].extensions.code).toBe('FORBIDDEN');
  const gained = await service.graphql(PRODUCTS, undefined, secret);
  expect(gained.status).toBe(200);
  expect(gained.body.data.products.items).toHaveLength(3);

  // Given back while the process remembers the narrower scopes: the read runs as the token is now.
  await update(`scopes = '{read_products,read_orders}'`);
  const given = await service.graphql(ORDERS, undefined, secret);
  expect(given.status).toBe(200);
  expect(given.body.data.orders.items).toHaveLength(3);
});

it('refuses with 429 a token whose bucket another process emptied, and withholds the read', async () => {
  const { secret } = await knownToken(['read_orders']);
  // Spent elsewhere (another instance): the process still believes the bucket has room.
  await service.sql(`update rate_limit_bucket set tokens = 0, refilled_at = now()
    where token_id = (select id from api_token where secret_hash = '${hashSecret(secret)}')`);
  const { res, statements } = await statementsOf(ORDERS, secret);
  expect(res.status).toBe(429);
  expect(res.body.data).toBeUndefined();
  expect(res.body.errors[0].extensions.code).toBe('RATE_LIMITED');
  expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  expect(res.headers.get('ratelimit-remaining')).toBe('0');
  expect(statements).toBe(1);
  // A refused charge took nothing: the bucket holds what the refill gave it since.
  const [bucket] = await service.sql<{ tokens: number }>(
    `select tokens from rate_limit_bucket b join api_token t on t.id = b.token_id
      where t.secret_hash = '${hashSecret(secret)}'`,
  );
  expect(Number(bucket.tokens)).toBeLessThan(1);
});

it('checks an unknown token before anything runs, as always', async () => {
  const secret = await service.tokenWith(['read_orders']);
  const { res, statements } = await statementsOf(ORDERS, secret);
  expect(res.status).toBe(200);
  expect(statements).toBe(2);
  const wrong = await service.graphql(ORDERS, undefined, 'sk_not_a_token');
  expect(wrong.status).toBe(401);
});

it("locks the token's bucket for the charge alone, not while the read it rides on runs", async () => {
  const { secret } = await knownToken(['read_orders']);
  const hash = hashSecret(secret);
  const limiter = new RateLimiter(undefined as never, LIMITS); // only its settings: no charge of its own
  const check = tokenCheckSql(hash, limiter, 1, undefined, ACCOMPANIED_READ);
  // A read that takes a second, carrying the check as the service sends it (src/db/prepared-statements.ts).
  const slow = service.sql<{ granted: boolean }>(
    `with ${ACCOMPANIED_READ} as materialized (select pg_sleep(1)), ${check.ctes}
     select c.* from (${check.select}) c left join ${ACCOMPANIED_READ} q on true`,
    check.params as unknown[],
  );
  await new Promise((resolve) => setTimeout(resolve, 300));
  // While the read sleeps, the bucket's row is free: NOWAIT would fail at once on a held lock.
  const [free] = await service.sql<{ tokens: number }>(
    `select tokens from rate_limit_bucket where token_id = (select id from api_token where secret_hash = ?)
      for update nowait`,
    [hash],
  );
  expect(free).toBeDefined();
  expect((await slow)[0].granted).toBe(true);
});

describe('a REST page carries the check of a caller seen before', () => {
  const LIST = '/api/v1/orders?size=2&sort=-id';

  async function restStatementsOf(read: () => ReturnType<TestService['get']>) {
    service.statements.reset();
    const res = await read();
    return { res, statements: service.statements.count };
  }

  it('answers a list and a search in one statement, with the rate-limit headers', async () => {
    const { secret } = await knownToken(['read_orders', 'read_customers']);
    const list = await restStatementsOf(() => service.get(LIST, secret));
    expect(list.res.status).toBe(200);
    expect(list.res.body.items).toHaveLength(2);
    expect(list.res.headers.get('link')).toContain('page=2');
    expect(Number(list.res.headers.get('ratelimit-remaining'))).toBeLessThan(60);
    expect(list.statements).toBe(1);
    const search = await restStatementsOf(() =>
      service.send('POST', '/api/v1/customers/search?size=2', { email: '@' }, secret),
    );
    expect(search.res.status).toBe(200);
    expect(search.res.body.items.length).toBeGreaterThan(0);
    expect(search.statements).toBe(1);
  });

  it('refuses a token revoked since with 401, before a parameter or a scope of the request is judged', async () => {
    for (const path of [LIST, '/api/v1/orders?size=abc', '/api/v1/products?size=2']) {
      const { secret, update } = await knownToken(['read_orders']);
      await update('revoked_at = now()');
      const res = await service.get(path, secret);
      expect({ path, status: res.status }).toEqual({ path, status: 401 });
      expect(res.headers.get('www-authenticate')).toBe('Bearer realm="store-api"');
      expect(res.headers.get('link')).toBeNull();
      expect(res.text).not.toMatch(/"items"/);
    }
  });

  it('still judges the request when the check passes: a bad parameter is its 400, charged', async () => {
    const { secret } = await knownToken(['read_orders']);
    const res = await service.get('/api/v1/orders?size=abc', secret);
    expect(res.status).toBe(400);
    expect(res.body.errors[0].field).toBe('size');
    expect(res.headers.get('ratelimit-remaining')).not.toBeNull();
  });

  it('holds the token to the scopes it has now: one taken away is a 403, one given a 200', async () => {
    const { secret, update } = await knownToken(['read_orders']);
    await update(`scopes = '{read_products}'`);
    const lost = await service.get(LIST, secret);
    expect(lost.status).toBe(403);
    expect(lost.headers.get('link')).toBeNull();
    expect(lost.text).not.toMatch(/"items"/);
    const gained = await service.get('/api/v1/products?size=3', secret);
    expect(gained.status).toBe(200);
    expect(gained.body.items).toHaveLength(3);
  });

  it('refuses with 429 a token whose bucket another process emptied, and withholds the page', async () => {
    const { secret } = await knownToken(['read_orders']);
    await service.sql(`update rate_limit_bucket set tokens = 0, refilled_at = now()
      where token_id = (select id from api_token where secret_hash = '${hashSecret(secret)}')`);
    const { res, statements } = await restStatementsOf(() => service.get(LIST, secret));
    expect(res.status).toBe(429);
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(res.headers.get('ratelimit-remaining')).toBe('0');
    expect(res.text).not.toMatch(/"items"/);
    expect(statements).toBe(1);
  });
});
