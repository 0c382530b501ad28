// docs/decisions.md#auth-and-scopes: 401 without a valid token, 403 without the scope, on REST and GraphQL alike.
import { hashSecret } from '../src/auth/api-tokens.js';
import { startTestService, type TestService } from './support/harness.js';

let service: TestService;
let noCatalogue: string;
beforeAll(async () => {
  service = await startTestService();
  noCatalogue = await service.tokenWith(['read_orders', 'read_shipping']);
});
afterAll(() => service.stop());

const restRoutes: [string, string][] = [
  ['/api/v1/products', 'read_products'],
  ['/api/v1/products/1', 'read_products'],
  ['/api/v1/collections', 'read_collections'],
  ['/api/v1/collections/1', 'read_collections'],
  ['/api/v1/warehouses', 'read_inventory'],
];

/** A token that lacks the scope of the write or search at `path`. */
const otherScope = (path: string) => (path.endsWith('search') ? readCustomers : noCatalogue);
let readCustomers: string;
beforeAll(async () => {
  readCustomers = await service.tokenWith(['read_customers']);
});

describe('REST', () => {
  it.each(restRoutes)('GET %s without a token is 401 problem+json', async (path) => {
    const res = await service.get(path, null);
    expect(res.status).toBe(401);
    expect(res.headers.get('content-type')).toMatch(/application\/problem\+json/);
    expect(res.body).toMatchObject({ status: 401, title: 'Unauthorized' });
  });

  it('refuses an unknown, malformed or revoked token with 401', async () => {
    expect((await service.get('/api/v1/products', 'sk_not-a-real-token')).status).toBe(401);
    expect((await service.get('/api/v1/products', null, { authorization: 'Basic dXNlcjpwYXNz' })).status).toBe(401);
    expect((await service.get('/api/v1/products', null, { authorization: 'Bearer' })).status).toBe(401);
    const token = await service.tokenWith(['read_products']);
    expect((await service.get('/api/v1/products', token)).status).toBe(200);
    await service.sql('update api_token set revoked_at = now() where scopes = ?', ['{read_products}']);
    expect((await service.get('/api/v1/products', token)).status).toBe(401);
  });

  it.each(restRoutes)('GET %s without the scope %s is 403 naming it', async (path, scope) => {
    const res = await service.get(path, noCatalogue);
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ status: 403, title: 'Forbidden' });
    expect(res.body.detail).toContain(scope);
  });

  it('lets a token with just the scope read', async () => {
    const token = await service.tokenWith(['read_shipping']);
    expect((await service.get('/api/v1/shipping-carriers', token)).status).toBe(200);
    expect((await service.get('/api/v1/products', token)).status).toBe(403);
  });

  it('checks the token before anything else, and says how to authenticate', async () => {
    for (const path of ['/api/v1/products?size=999', '/api/v1/products/abc', '/api/v1/products?sort=nope']) {
      const res = await service.get(path, null);
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toMatch(/^Bearer/);
      expect(res.text).not.toContain('sortable');
    }
  });

  it('reads no body before the token and the scope: 401, then 403, before the body’s 400, 413 or 415', async () => {
    const malformed = { 'content-type': 'application/json' };
    const bodies: [string, Record<string, string>, number][] = [
      ['{"notes": ', malformed, 400],
      [JSON.stringify({ notes: 'x'.repeat(1024 * 1024 + 10) }), malformed, 413],
      ['notes=x', { 'content-type': 'application/x-www-form-urlencoded' }, 415],
    ];
    for (const [body, headers, status] of bodies) {
      for (const path of ['/api/v1/orders/1', '/api/v1/orders/search']) {
        const method = path.endsWith('search') ? 'POST' : 'PATCH';
        const anonymous = await service.send(method, path, body, null, headers);
        const unknown = await service.send(method, path, body, 'sk_not-a-real-token', headers);
        // A token without the route's scope: read_orders cannot PATCH, read_customers cannot search orders.
        const lacking = await service.send(method, path, body, otherScope(path), headers);
        const allowed = await service.send(method, path, body, undefined, headers);
        expect({ path, status, got: [anonymous.status, unknown.status, lacking.status, allowed.status] }).toEqual({
          path,
          status,
          got: [401, 401, 403, status],
        });
      }
    }
  });

  it('stores only a hash of each secret', async () => {
    const rows = await service.sql<{ secret_hash: string }>('select secret_hash from api_token');
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) {
      expect(row.secret_hash).toMatch(/^[0-9a-f]{64}$/);
      expect(row.secret_hash).not.toContain(service.token);
    }
  });
});

describe('GraphQL', () => {
  it('answers 401 UNAUTHENTICATED without a token, even to introspection', async () => {
    for (const query of ['{ products { totalCount } }', '{ __schema { queryType { name } } }']) {
      const res = await service.graphql(query, {}, null);
      expect(res.status).toBe(401);
      expect(res.body.errors[0].extensions.code).toBe('UNAUTHENTICATED');
    }
  });

  it('answers 403 FORBIDDEN for a query the token has no scope for', async () => {
    const res = await service.graphql('{ products { totalCount } }', {}, noCatalogue);
    expect(res.status).toBe(403);
    expect(res.body.data).toEqual({ products: null });
    expect(res.body.errors[0].extensions.code).toBe('FORBIDDEN');
    expect(res.body.errors[0].message).toContain('read_products');
  });

  it('answers 401 with WWW-Authenticate: Bearer', async () => {
    const res = await service.graphql('{ products { totalCount } }', {}, null);
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer/);
  });

  it('answers 401 to a request without a token before its body is read: malformed, oversized, too deep', async () => {
    const bodies = [
      '{"query": ',
      JSON.stringify({ query: `{ ${'a'.repeat(2 * 1024 * 1024)} }` }),
      '{"query":"' + '{'.repeat(70) + '"}',
    ];
    for (const body of bodies) {
      const res = await fetch(`${service.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      });
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toMatch(/^Bearer/);
      expect(((await res.json()) as any).errors[0].extensions.code).toBe('UNAUTHENTICATED');
    }
  });

  // The token comes before the document's limits on every carrier: a refused document of an unknown
  // or revoked token was its 400 (QUERY_TOO_DEEP, BAD_USER_INPUT), the socket's and REST's a 401.
  it('answers 401 to a refused document of an unknown or revoked token, and its 400 to a valid token', async () => {
    const revoked = await service.tokenWith(['read_products']);
    await service.sql('update api_token set revoked_at = now() where secret_hash = ?', [hashSecret(revoked)]);
    const deep = JSON.stringify({ query: `${'{ a '.repeat(70)}${'}'.repeat(70)}` });
    const send = (token: string) =>
      fetch(`${service.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: deep,
      });
    for (const token of ['sk_unknown_0123456789abcdef', revoked]) {
      const res = await send(token);
      expect(res.status).toBe(401);
      expect(((await res.json()) as any).errors[0].extensions.code).toBe('UNAUTHENTICATED');
    }
    const valid = await send(service.token);
    expect(valid.status).toBe(400);
    expect(((await valid.json()) as any).errors[0].extensions.code).toBe('QUERY_TOO_DEEP');
  });

  it('returns the permitted part of a query that mixes scopes', async () => {
    const token = await service.tokenWith(['read_products']);
    const res = await service.graphql('{ products(size: 1) { totalCount } warehouses { totalCount } }', {}, token);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ products: { totalCount: 60 }, warehouses: null });
    expect(res.body.errors.map((e: any) => [e.path[0], e.extensions.code])).toEqual([['warehouses', 'FORBIDDEN']]);
  });

  it('guards nested data by its own scope: whole collections under a product need read_collections', async () => {
    const token = await service.tokenWith(['read_products']);
    const ids = await service.graphql('{ products(size: 60) { items { collectionIds } } }', {}, token);
    expect(ids.body.errors).toBeUndefined();
    const nested = await service.graphql('{ products(size: 60) { items { collections { title } } } }', {}, token);
    expect(nested.body.errors[0].extensions.code).toBe('FORBIDDEN');
    expect(JSON.stringify(nested.body.data)).not.toContain('title');
  });

  it('allows introspection and permitted queries for any valid token', async () => {
    const intro = await service.graphql('{ __schema { queryType { name } } }', {}, noCatalogue);
    expect(intro.status).toBe(200);
    expect(intro.body.data.__schema.queryType.name).toBe('Query');
    const carriers = await service.graphql(
      '{ shippingCarriers(size: 2) { totalCount items { id title } } }',
      {},
      noCatalogue,
    );
    expect(carriers.status).toBe(200);
    expect(carriers.body.data.shippingCarriers.items).toHaveLength(2);
  });
});
