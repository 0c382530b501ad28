// docs/decisions.md#api-tokens: API tokens over GraphQL under `manage_tokens`; revocation holds at once
// for every server process; `lastUsedAt` is written at most once a minute, with no extra statement.
import { createDatabase, startTestService, type TestService } from './support/harness.js';
import { type ServerProcess, startServerProcess } from './support/server-process.js';

const ADMIN = 'admin-token-for-api-token-tests';
let service: TestService;
let other: ServerProcess;

beforeAll(async () => {
  const url = await createDatabase();
  service = await startTestService({ databaseUrl: url });
  // A second server process on the same database: a revocation made through one is seen by the other.
  other = await startServerProcess(url, ADMIN);
});
afterAll(async () => {
  await other?.stop();
  await service?.stop();
});

const CREATE =
  'mutation ($name: String!, $scopes: [String!]!) { createApiToken(name: $name, scopes: $scopes) ' +
  '{ secret token { id name scopes createdAt lastUsedAt revokedAt } } }';

async function create(name: string, scopes: string[], as?: string) {
  const res = await service.graphql(CREATE, { name, scopes }, as);
  return res;
}

async function graphqlAt(base: string, query: string, token: string) {
  const res = await fetch(`${base}/graphql`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ query }),
  });
  return { status: res.status, body: (await res.json()) as any };
}

describe('createApiToken', () => {
  it('gives a token that reads orders with only read_orders and is refused elsewhere', async () => {
    const res = await create('order reader', ['read_orders']);
    expect(res.status).toBe(200);
    const { secret, token } = res.body.data.createApiToken;
    expect(secret).toMatch(/^sk_[A-Za-z0-9_-]{43}$/);
    expect(token).toMatchObject({ name: 'order reader', scopes: ['read_orders'], lastUsedAt: null, revokedAt: null });
    expect(typeof token.createdAt).toBe('number');

    expect((await service.get('/api/v1/orders?size=1', secret)).status).toBe(200);
    expect((await service.get('/api/v1/orders/1', secret)).status).toBe(200);
    const products = await service.get('/api/v1/products', secret);
    expect(products.status).toBe(403);
    expect(products.body.detail).toContain('read_products');
    const gql = await service.graphql('{ products { totalCount } }', {}, secret);
    expect(gql.status).toBe(403);
    expect(gql.body.errors[0].extensions.code).toBe('FORBIDDEN');
    const tokens = await service.graphql('{ apiTokens { totalCount } }', {}, secret);
    expect(tokens.body.errors[0].extensions.code).toBe('FORBIDDEN');
  });

  it('cannot be called by a token without manage_tokens', async () => {
    const weak = await service.tokenWith(['read_orders', 'write_orders']);
    const before = await service.sql('select count(*)::int as n from api_token');
    const res = await create('sneaky', ['read_orders'], weak);
    expect(res.status).toBe(403);
    expect(res.body.errors[0].extensions.code).toBe('FORBIDDEN');
    expect(await service.sql('select count(*)::int as n from api_token')).toEqual(before);
  });

  it('grants only scopes the caller holds, and refuses unknown scopes naming the valid ones', async () => {
    const manager = await service.tokenWith(['manage_tokens', 'read_orders']);
    const stronger = await create('escalation', ['read_orders', 'write_orders'], manager);
    expect(stronger.body.errors[0].extensions.code).toBe('FORBIDDEN');
    expect(stronger.body.errors[0].message).toContain('write_orders');
    const ok = await create('fine', ['read_orders'], manager);
    expect(ok.body.data.createApiToken.token.scopes).toEqual(['read_orders']);
    const unknown = await create('bad', ['read_everything']);
    expect(unknown.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
    expect(unknown.body.errors[0].message).toContain('manage_webhooks');
    const empty = await create('  ', ['read_orders']);
    expect(empty.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
  });
});

describe('revokeApiToken', () => {
  it('makes that token 401 on REST and GraphQL at once, in every process, while others keep working', async () => {
    const victim = (await create('to revoke', ['read_orders'])).body.data.createApiToken;
    const bystander = (await create('bystander', ['read_orders'])).body.data.createApiToken;
    // Both processes have seen the token working (nothing may be cached from that).
    expect((await service.get('/api/v1/orders?size=1', victim.secret)).status).toBe(200);
    expect((await graphqlAt(other.url, '{ orders(size: 1) { totalCount } }', victim.secret)).status).toBe(200);

    const res = await service.graphql('mutation ($id: Int!) { revokeApiToken(id: $id) { id revokedAt } }', {
      id: victim.token.id,
    });
    expect(res.body.data.revokeApiToken.revokedAt).toEqual(expect.any(Number));

    expect((await service.get('/api/v1/orders?size=1', victim.secret)).status).toBe(401);
    expect((await service.graphql('{ orders(size: 1) { totalCount } }', {}, victim.secret)).status).toBe(401);
    const elsewhere = await graphqlAt(other.url, '{ orders(size: 1) { totalCount } }', victim.secret);
    expect(elsewhere.status).toBe(401);
    expect(elsewhere.body.errors[0].extensions.code).toBe('UNAUTHENTICATED');
    const restElsewhere = await fetch(`${other.url}/api/v1/orders?size=1`, {
      headers: { authorization: `Bearer ${victim.secret}` },
    });
    expect(restElsewhere.status).toBe(401);

    expect((await service.get('/api/v1/orders?size=1', bystander.secret)).status).toBe(200);
    expect((await graphqlAt(other.url, '{ orders(size: 1) { totalCount } }', bystander.secret)).status).toBe(200);
  });

  it('revokes only tokens whose scopes the caller holds all of; others are FORBIDDEN and stay active', async () => {
    const REVOKE = 'mutation ($id: Int!) { revokeApiToken(id: $id) { id revokedAt } }';
    const manager = (await create('token manager', ['manage_tokens', 'read_orders'])).body.data.createApiToken;
    const stronger = (await create('orders app', ['read_orders', 'write_orders'])).body.data.createApiToken;
    const adminScopes = ['manage_tokens', 'read_orders', 'read_customers'];
    const admin = (await create('second admin', adminScopes)).body.data.createApiToken;
    for (const target of [stronger, admin]) {
      const refused = await service.graphql(REVOKE, { id: target.token.id }, manager.secret);
      expect(refused.status).toBe(403);
      expect(refused.body.errors[0].extensions.code).toBe('FORBIDDEN');
      const lacking = target === admin ? 'read_customers' : 'write_orders';
      expect(refused.body.errors[0].message).toBe(
        `A token can revoke only tokens whose scopes it holds itself; this one lacks ${lacking}`,
      );
      const [row] = await service.sql('select revoked_at from api_token where id = ?', [target.token.id]);
      expect(row).toEqual({ revoked_at: null });
      expect((await service.get('/api/v1/orders?size=1', target.secret)).status).toBe(200);
    }

    // A subset (or the same scopes, or itself) is the manager's to revoke.
    const weaker = (await create('order reader', ['read_orders'])).body.data.createApiToken;
    const peer = (await create('peer manager', ['read_orders', 'manage_tokens'])).body.data.createApiToken;
    for (const target of [weaker, peer, manager]) {
      const res = await service.graphql(REVOKE, { id: target.token.id }, manager.secret);
      expect(res.body.errors).toBeUndefined();
      expect(res.body.data.revokeApiToken).toEqual({ id: target.token.id, revokedAt: expect.any(Number) });
      expect((await service.get('/api/v1/orders?size=1', target.secret)).status).toBe(401);
    }
    // The admin (every scope) revokes the stronger ones.
    const byAdmin = await service.graphql(REVOKE, { id: stronger.token.id });
    expect(byAdmin.body.data.revokeApiToken.revokedAt).toEqual(expect.any(Number));
  });

  it('answers NOT_FOUND for an unknown id', async () => {
    const res = await service.graphql('mutation { revokeApiToken(id: 999999) { id } }');
    expect(res.body.errors[0].extensions.code).toBe('NOT_FOUND');
  });
});

describe('apiTokens', () => {
  it('lists tokens with their dates and never a secret or its hash', async () => {
    const made = (await create('listed', ['read_orders'])).body.data.createApiToken;
    const res = await service.graphql(
      '{ apiTokens(size: 250, sort: [{ field: ID, direction: DESC }]) ' +
        '{ totalCount items { id name scopes createdAt lastUsedAt revokedAt } } }',
    );
    expect(res.status).toBe(200);
    const listed = res.body.data.apiTokens.items.find((t: any) => t.id === made.token.id);
    expect(listed).toMatchObject({ name: 'listed', scopes: ['read_orders'], revokedAt: null });
    const hashes = await service.sql<{ secret_hash: string }>('select secret_hash from api_token');
    for (const { secret_hash } of hashes) expect(res.text).not.toContain(secret_hash);
    expect(res.text).not.toContain(made.secret);
    expect(res.text).not.toContain(service.token);
    const type = await service.graphql('{ __type(name: "ApiToken") { fields { name } } }');
    expect(type.body.data.__type.fields.map((f: any) => f.name).sort()).toEqual([
      'createdAt',
      'id',
      'lastUsedAt',
      'name',
      'revokedAt',
      'scopes',
    ]);
  });
});

describe('lastUsedAt', () => {
  it('is written at most once a minute, inside the authenticating statement', async () => {
    const { secret, token } = (await create('usage', ['read_shipping'])).body.data.createApiToken;
    const lastUsed = async () =>
      (await service.sql<{ at: Date | null }>('select last_used_at as at from api_token where id = ?', [token.id]))[0]
        .at;
    expect(await lastUsed()).toBeNull();

    // The token, then the page; later, the page carrying the check (the caller has been seen).
    service.statements.reset();
    expect((await service.get('/api/v1/shipping-carriers', secret)).status).toBe(200);
    expect(service.statements.count).toBe(2);
    expect(await lastUsed()).not.toBeNull();

    // Used again 30 s later: left alone. Over a minute later: moved to now.
    await service.sql("update api_token set last_used_at = now() - interval '30 seconds' where id = ?", [token.id]);
    const recent = await lastUsed();
    service.statements.reset();
    await service.get('/api/v1/shipping-carriers', secret);
    expect(service.statements.count).toBe(1);
    expect(await lastUsed()).toEqual(recent);

    // The check told this process the touch is due in 30 s: until then its checks leave it out.
    service.statements.reset();
    expect((await service.get('/api/v1/shipping-carriers', secret)).status).toBe(200);
    expect(service.statements.count).toBe(1);
    expect(service.statements.texts.some((text) => text.includes('touched as'))).toBe(false);

    // A process that finds the stored time over a minute old moves it to now.
    await service.sql("update api_token set last_used_at = now() - interval '2 minutes' where id = ?", [token.id]);
    expect((await graphqlAt(other.url, '{ __typename }', secret)).status).toBe(200);
    expect(Date.now() - new Date((await lastUsed())!).getTime()).toBeLessThan(10_000);

    const listed = await service.graphql(`{ apiTokens(size: 250) { items { id lastUsedAt } } }`);
    expect(listed.body.data.apiTokens.items.find((t: any) => t.id === token.id).lastUsedAt).toEqual(expect.any(Number));
  });
});
