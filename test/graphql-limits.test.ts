// docs/decisions.md#graphql-limits-and-cost: depth and complexity of /graphql operations are
// limited and refused before they run; docs/decisions.md#rate-limits: GraphQL spends the token's
// rate-limit bucket by query cost.
import { getIntrospectionQuery, parse } from 'graphql';
import { buildStoreSchema } from '../src/graphql/build-schema.js';
import { MAX_ROOT_FIELDS, operationCost } from '../src/graphql/operation-cost.js';
import { MAX_COMPLEXITY, MAX_DEPTH } from '../src/graphql/query-limits.js';
import { widestOperation } from '../src/rest/rest-api.js';
import { routes } from '../src/rest/routes.js';
import { DEFAULT_PAGE_SIZE } from '../src/schema/pagination.js';
import { startTestService, type TestService } from './support/harness.js';

let service: TestService; // limits off: counts statements without the bucket's
let limited: TestService; // a large bucket refilled very slowly, so spending is exact

beforeAll(async () => {
  [service, limited] = await Promise.all([
    startTestService(),
    startTestService({ rateLimit: { burst: 1000, rps: 0.001 } }),
  ]);
});
afterAll(() => Promise.all([service.stop(), limited.stop()]));

async function refusedBeforeExecution(query: string, variables?: Record<string, unknown>) {
  service.statements.reset();
  const res = await service.graphql(query, variables);
  // The only statement is the token lookup: no resolver ran.
  expect(service.statements.count).toBe(1);
  expect(res.body.data).toBeUndefined();
  return res;
}

describe('depth', () => {
  // collections 1, items 2, products 3, … items 10, id 11
  const tooDeep = `{ collections(size: 1) { items { products(size: 1) { items {
    collections { products(size: 1) { items {
    collections { products(size: 1) { items { id } } } } } } } } } } }`;

  const deeper = `nested deeper than ${MAX_DEPTH} levels`;
  it(`refuses an operation ${deeper} with 400 QUERY_TOO_DEEP, before it runs`, async () => {
    const res = await refusedBeforeExecution(tooDeep);
    expect(res.status).toBe(400);
    expect(res.body.errors).toHaveLength(1);
    expect(res.body.errors[0].extensions.code).toBe('QUERY_TOO_DEEP');
    expect(res.body.errors[0].message).toBe(
      `The operation nests fields 11 levels deep; at most ${MAX_DEPTH} are allowed`,
    );
  });

  it('counts fields inside fragments and inline fragments', async () => {
    const res = await refusedBeforeExecution(`
      query { collections(size: 1) { items { ...P } } }
      fragment P on Collection { products(size: 1) { items { ... on Product { collections { ...Q } } } } }
      fragment Q on Collection { products(size: 1) { items {
        collections { products(size: 1) { items { collections { id } } } } } } }`);
    expect(res.body.errors[0].extensions.code).toBe('QUERY_TOO_DEEP');
  });

  it(`runs an operation exactly ${MAX_DEPTH} levels deep`, async () => {
    const res = await service.graphql(`{ collections(size: 1) { items { products(size: 1) { items {
      collections { products(size: 1) { items {
      collections { products(size: 1) { totalCount } } } } } } } } } }`);
    expect(res.status).toBe(200);
    expect(res.body.errors).toBeUndefined();
  });

  it("lets GraphiQL's introspection query through (its fields count, and fit the limit)", async () => {
    // Plain, and as GraphiQL sends it (deprecated input values, the schema's description).
    for (const query of [
      getIntrospectionQuery(),
      getIntrospectionQuery({ inputValueDeprecation: true, schemaDescription: true }),
    ]) {
      const res = await service.graphql(query);
      expect(res.status).toBe(200);
      expect(res.body.data.__schema.queryType.name).toBe('Query');
    }
  });
});

describe('complexity', () => {
  it(
    'refuses a query whose page sizes multiply past the limit ' + 'with 400 QUERY_TOO_COMPLEX, before it runs',
    async () => {
      const res = await refusedBeforeExecution(
        '{ products(size: 250) { items { id collections { products(size: 250) { items { id title } } } } } }',
      );
      expect(res.status).toBe(400);
      expect(res.body.errors[0].extensions.code).toBe('QUERY_TOO_COMPLEX');
      // 1 + 250 × (1 + 1 + 1 + (1 + 250 × (1 + 2))) = 188 501
      expect(res.body.errors[0].message).toMatch(
        new RegExp(`^The operation's complexity is 188501; at most ${MAX_COMPLEXITY} is allowed`),
      );
    },
  );

  it('takes page sizes from variables too', async () => {
    const query =
      'query ($n: Int!) { products(size: $n) { items { id collections { products(size: $n) { items { id } } } } } }';
    const small = await service.graphql(query, { n: 2 });
    expect(small.body.errors).toBeUndefined();
    const res = await refusedBeforeExecution(query, { n: 250 });
    expect(res.body.errors[0].extensions.code).toBe('QUERY_TOO_COMPLEX');
  });

  it('refuses fragment fan-out by the number of fields it expands to', async () => {
    const spreads = (i: number) => (i === 5 ? 'id title' : Array.from({ length: 6 }, () => `...F${i + 1}`).join(' '));
    const fragments = Array.from({ length: 6 }, (_, i) => `fragment F${i} on Product { ${spreads(i)} }`);
    // The same fragment spread repeatedly expands to 6^5 × 2 field visits; collapsed to a few fields in the answer.
    const res = await refusedBeforeExecution(`{ product(id: 1) { ...F0 } } ${fragments.join(' ')}`);
    expect(res.status).toBe(400);
    expect(res.body.errors[0].extensions.code).toBe('QUERY_TOO_COMPLEX');
  });

  it(`refuses more than ${MAX_ROOT_FIELDS} root fields, aliases counted: each costs a request`, async () => {
    const aliases = (n: number) => Array.from({ length: n }, (_, i) => `a${i}: order(id: 1) { id }`).join(' ');
    const res = await refusedBeforeExecution(`{ ${aliases(MAX_ROOT_FIELDS + 1)} }`);
    expect(res.status).toBe(400);
    expect(res.body.errors[0].extensions.code).toBe('QUERY_TOO_COMPLEX');
    expect(res.body.errors[0].message).toContain(`${MAX_ROOT_FIELDS + 1} root fields`);
    const most = await service.graphql(`{ ${aliases(MAX_ROOT_FIELDS)} }`);
    expect(most.body.errors).toBeUndefined();
    expect(most.body.extensions.cost).toBe(MAX_ROOT_FIELDS);
  });

  it('costs a page whose size is left out or null as the default page, as it reads', async () => {
    const schema = await buildStoreSchema();
    const items = '{ items { id } }';
    const complexity = (query: string) => operationCost(schema, parse(query), undefined, {}).complexity;
    expect(complexity(`{ events(size: null) ${items} }`)).toBe(
      complexity(`{ events(size: ${DEFAULT_PAGE_SIZE}) ${items} }`),
    );
    expect(complexity(`{ events ${items} }`)).toBe(complexity(`{ events(size: ${DEFAULT_PAGE_SIZE}) ${items} }`));
  });

  it('accepts every REST operation at its widest (all fields, every expand, 250 records)', async () => {
    const schema = await buildStoreSchema();
    for (const route of routes) {
      if (route.kind === 'position' || route.kind === 'write') continue;
      expect(() =>
        operationCost(schema, parse(widestOperation(route)), undefined, { page: 1, size: 250, id: 1, orderId: 1 }),
      ).not.toThrow();
    }
  });
});

describe('measured costs', () => {
  // Costs are kept per document and the values of the variables a cost can depend on (a `size`,
  // a directive's condition); the answer must be what measuring each request afresh gives.
  const PRODUCTS = `query P($size: Int = 250, $id: Int!, $on: Boolean!) {
    products(size: $size) { items { id variants { id price } } }
    product(id: $id) @include(if: $on) { id } }`;

  it('measures each size and directive condition, whatever the other variables', async () => {
    const schema = await buildStoreSchema();
    const document = parse(PRODUCTS);
    const cost = (variables: Record<string, unknown>) => operationCost(schema, document, 'P', variables).complexity;
    const wide = cost({ id: 1, on: true });
    expect(wide).toBe(1 + 250 * (1 + 1 + (1 + 2)) + 2);
    expect(cost({ id: 2, on: true })).toBe(wide);
    expect(cost({ size: 250, id: 3, on: true })).toBe(wide);
    expect(cost({ size: 2, id: 1, on: true })).toBe(1 + 2 * 5 + 2);
    expect(cost({ id: 1, on: false })).toBe(wide - 2);
    // A variable that does not coerce: the operation cannot run, it costs its root fields.
    expect(operationCost(schema, document, 'P', { id: 'seven', on: true })).toMatchObject({ complexity: 0, cost: 2 });
    expect(cost({ id: 4, on: true })).toBe(wide);
  });
});

describe('list arguments', () => {
  it.each([
    ['nested Collection.products', '{ collections(size: 1) { items { products(size: 251) { totalCount } } } }'],
    ['nested Collection.products', '{ collections(size: 1) { items { products(size: 0) { totalCount } } } }'],
    ['orderPage', '{ orderPage(id: 1, size: 251) }'],
    ['orderFulfilments', '{ orderFulfilments(orderId: 1, size: 251) { totalCount } }'],
    ['orderShipments', '{ orderShipments(orderId: 1, size: 251) { totalCount } }'],
    ['customers', '{ customers(size: 251) { totalCount } }'],
    ['orders', '{ orders(size: 251) { totalCount } }'],
    ['collections', '{ collections(size: 251) { totalCount } }'],
    ['shippingCarriers', '{ shippingCarriers(size: 251) { totalCount } }'],
    ['warehouses', '{ warehouses(size: 251) { totalCount } }'],
  ])('%s: size is 1..250 like REST (BAD_USER_INPUT naming size)', async (_, query) => {
    const res = await service.graphql(query);
    expect(res.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
    expect(res.body.errors[0].extensions.fields[0]).toEqual({
      field: 'size',
      message: 'size must be an integer from 1 to 250',
    });
  });
});

describe('cost against the rate limit', () => {
  const EXPENSIVE = '{ products(size: 250) { totalCount items { id title price variants { id price } } } }';

  async function remaining(res: { headers: Headers }): Promise<number> {
    const value = res.headers.get('ratelimit-remaining');
    expect(value).toMatch(/^\d+$/);
    return Number(value);
  }

  it('charges a plain query 1 and an expensive one ceil(complexity / 1000)', async () => {
    const token = await limited.tokenWith(['read_products']);
    const first = await limited.graphql('{ products { totalCount items { id title price } } }', {}, token);
    expect(first.status).toBe(200);
    expect(first.headers.get('ratelimit-limit')).toBe('1000');
    expect(await remaining(first)).toBe(999);
    expect(first.headers.get('ratelimit-reset')).toBe('1000'); // 1 request at 0.001/s

    // totalCount 1 + items (1 + 3 + variants (1 + 2)): 1 + 250 × 8 = 2001 → cost 3
    const expensive = await limited.graphql(EXPENSIVE, {}, token);
    expect(expensive.status).toBe(200);
    expect(await remaining(expensive)).toBe(999 - 3);
    expect(expensive.headers.get('ratelimit-reset')).toBe('4000');

    const plain = await limited.graphql('{ product(id: 1) { id title } }', {}, token);
    expect(await remaining(plain)).toBe(999 - 3 - 1);

    // REST spends the same bucket, 1 a request whatever it expands.
    const rest = await limited.get('/api/v1/products?size=250&expand=all', token);
    expect(rest.status).toBe(200);
    expect(await remaining(rest)).toBe(999 - 3 - 1 - 1);
  });

  it('charges an operation refused by a limit, or invalid, 1 and still answers with the headers', async () => {
    const token = await limited.tokenWith(['read_products']);
    const tooComplex = await limited.graphql(
      '{ products(size: 250) { items { collections { products(size: 250) { items { id } } } } } }',
      {},
      token,
    );
    expect(tooComplex.status).toBe(400);
    expect(await remaining(tooComplex)).toBe(999);
    const invalid = await limited.graphql('{ products { nope } }', {}, token);
    expect(invalid.status).toBe(400);
    expect(await remaining(invalid)).toBe(998);
  });

  // The first request of any operation is taken with the token check (one statement); the rest
  // of an expensive operation's cost after it is measured. A refused rest leaves that first one spent.
  it(
    'refuses an operation that costs more than is left with 429 RATE_LIMITED before it runs; ' +
      'cheaper ones still pass',
    async () => {
      const small = await startTestService({ rateLimit: { burst: 5, rps: 0.01 } });
      try {
        const token = await small.tokenWith(['read_products']);
        expect((await small.graphql(EXPENSIVE, {}, token)).status).toBe(200); // cost 3: 2 left
        small.statements.reset();
        const refused = await small.graphql(EXPENSIVE, {}, token);
        expect(small.statements.count).toBe(2); // token check with its first request, then the rest: nothing ran
        expect(refused.status).toBe(429);
        expect(refused.body.data).toBeUndefined();
        expect(refused.body.errors).toEqual([
          { message: expect.stringMatching(/^Rate limit exceeded/), extensions: { code: 'RATE_LIMITED' } },
        ]);
        expect(refused.headers.get('ratelimit-remaining')).toBe('1');
        expect(refused.headers.get('ratelimit-limit')).toBe('5');
        // When the bucket holds the whole cost (3), the retry's own check included: (3 - 1) / 0.01 per
        // second. The rest alone ((2 - 1) / 0.01) would send it back too early, refused again.
        expect(refused.headers.get('retry-after')).toBe('200');
        const cheap = await small.graphql('{ product(id: 1) { id } }', {}, token);
        expect(cheap.status).toBe(200);
        expect(cheap.headers.get('ratelimit-remaining')).toBe('0');
        expect(cheap.headers.get('retry-after')).toBeNull();
      } finally {
        await small.stop();
      }
    },
  );

  it('costs a REST request no statement more than without limits (the charge rides on the token check)', async () => {
    const path = '/api/v1/products/5?fields=id';
    service.statements.reset();
    expect((await service.get(path)).status).toBe(200);
    const without = service.statements.count;
    limited.statements.reset();
    expect((await limited.get(path)).status).toBe(200);
    expect(limited.statements.count).toBe(without);
  });
});
