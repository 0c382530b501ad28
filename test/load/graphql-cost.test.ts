// D1/D2/D8 of docs/operations.md#hostile-load-findings: the cost of a /graphql operation cannot be dodged by
// introspection, aliases or batching mutations; it is charged to the token's one bucket and
// reported in extensions.cost of every answer, and /healthz keeps answering while abuse runs.
import { MAX_MUTATION_FIELDS } from '../../src/graphql/operation-cost.js';
import { whileAbusing } from '../support/abuse.js';
import { startTestService, type TestService } from '../support/harness.js';

let limited: TestService; // a large bucket refilled very slowly, so every charge is visible exactly
beforeAll(async () => {
  limited = await startTestService({ rateLimit: { burst: 1000, rps: 0.001 } });
});
afterAll(() => limited.stop());

const remaining = (res: { headers: Headers }) => Number(res.headers.get('ratelimit-remaining'));
const SCHEMA_WALK = '__schema { types { name fields { name args { name } } } }';
const noteUpdates = (n: number) =>
  Array.from({ length: n }, (_, i) => `u${i}: updateOrder(id: 3, input: { notes: "n${i}" }) { id }`).join(' ');
const warehouseCreations = (n: number, title: string) =>
  Array.from({ length: n }, (_, i) => `w${i}: createWarehouse(title: "${title}${i}") { id }`).join(' ');

it(
  'D1: the introspection bomb (1 400 aliased __schema walks) is refused before it runs; ' + '/healthz stays fast',
  async () => {
    const token = await limited.tokenWith(['read_orders']);
    const bomb = `{ ${Array.from({ length: 1400 }, (_, i) => `s${i}: ${SCHEMA_WALK}`).join(' ')} }`;
    const { results, healthzMs } = await whileAbusing(limited.url, 4, () => limited.graphql(bomb, {}, token));
    for (const res of results) {
      // Over the token bound, refused while parsing (parse and validation CPU stay bounded too).
      expect(res.status).toBe(400);
      expect(res.body.errors[0].message).toMatch(/more tha[nt] 20000 tokens/);
      expect(res.body.data).toBeUndefined();
      expect(res.text.length).toBeLessThan(2000);
    }
    expect(healthzMs).toBeLessThan(200);
    // Under the token bound, its cost refuses it before it runs, and it is charged 1.
    const hundred = `{ ${Array.from({ length: 100 }, (_, i) => `s${i}: ${SCHEMA_WALK}`).join(' ')} }`;
    const before = remaining(await limited.graphql('{ __typename }', {}, token));
    const { results: refused, healthzMs: meanwhile } = await whileAbusing(limited.url, 2, () =>
      limited.graphql(hundred, {}, token),
    );
    for (const res of refused) {
      expect(res.status).toBe(400);
      expect(res.body.errors[0].extensions.code).toBe('QUERY_TOO_COMPLEX');
      expect(res.body.extensions).toEqual({ cost: 1 });
    }
    expect(remaining(refused[1])).toBeLessThanOrEqual(before - 2);
    expect(meanwhile).toBeLessThan(200);
  },
);

it(
  'charges introspection like any field: 20 aliased schema walks cost 20 × their complexity, ' + 'one walk at least 1',
  async () => {
    const token = await limited.tokenWith(['read_orders']);
    const one = await limited.graphql(`{ ${SCHEMA_WALK} }`, {}, token);
    expect(one.status).toBe(200);
    const single = one.body.extensions.cost;
    expect(single).toBeGreaterThanOrEqual(2); // every type × its fields × their args, not "1"
    expect(remaining(one)).toBe(1000 - single);
    const twenty = await limited.graphql(
      `{ ${Array.from({ length: 20 }, (_, i) => `s${i}: ${SCHEMA_WALK}`).join(' ')} }`,
      {},
      token,
    );
    expect(twenty.status).toBe(200);
    expect(twenty.body.extensions.cost).toBeGreaterThanOrEqual(20 * (single - 1));
    expect(remaining(twenty)).toBe(1000 - single - twenty.body.extensions.cost);
  },
);

it('charges every root field at least one request: 30 aliased cheap reads cost 30', async () => {
  const token = await limited.tokenWith(['read_products']);
  const res = await limited.graphql(
    `{ ${Array.from({ length: 30 }, (_, i) => `p${i}: product(id: ${i + 1}) { id }`).join(' ')} }`,
    {},
    token,
  );
  expect(res.status).toBe(200);
  expect(res.body.extensions.cost).toBe(30);
  expect(remaining(res)).toBe(1000 - 30);
});

it(
  'D8: 2 000 aliased updateOrder mutations, or 300 createWarehouse, ' + 'are refused whole; nothing is applied',
  async () => {
    const token = await limited.tokenWith(['write_orders', 'read_orders', 'write_inventory', 'read_inventory']);
    const [before] = await limited.sql<{ notes: string | null }>('select notes from orders where id = 3');
    const updates = `mutation { ${noteUpdates(2000)} }`;
    const { results, healthzMs } = await whileAbusing(limited.url, 3, () => limited.graphql(updates, {}, token));
    for (const res of results) {
      expect(res.status).toBe(400);
      expect(res.body.errors[0].message).toMatch(/more tha[nt] 20000 tokens/);
    }
    const fifty = `mutation { ${noteUpdates(50)} }`;
    const refused = await limited.graphql(fifty, {}, token);
    expect(refused.status).toBe(400);
    expect(refused.body.errors[0].extensions.code).toBe('TOO_MANY_MUTATIONS');
    expect(refused.body.errors[0].message).toBe(
      `The document holds 50 mutation fields; at most ${MAX_MUTATION_FIELDS} are allowed in one request`,
    );
    expect(healthzMs).toBeLessThan(200);
    expect((await limited.sql<{ notes: string | null }>('select notes from orders where id = 3'))[0]).toEqual(before);
    const warehouses = async () => (await limited.sql<{ n: number }>('select count(*)::int as n from warehouse'))[0].n;
    const count = await warehouses();
    const many = await limited.graphql(`mutation { ${warehouseCreations(300, 'W')} }`, {}, token);
    expect(many.body.errors[0].extensions.code).toBe('TOO_MANY_MUTATIONS');
    expect(await warehouses()).toBe(count);
    // Fragments on Mutation are expanded before counting.
    const spread = await limited.graphql(
      `mutation { ...M } fragment M on Mutation { ${warehouseCreations(MAX_MUTATION_FIELDS + 1, 'F')} }`,
      {},
      token,
    );
    expect(spread.body.errors[0].extensions.code).toBe('TOO_MANY_MUTATIONS');
    expect(await warehouses()).toBe(count);
    // At the limit they run, and each costs one request.
    const before2 = await limited.graphql('{ warehouses { totalCount } }', {}, token);
    const allowed = await limited.graphql(`mutation { ${warehouseCreations(MAX_MUTATION_FIELDS, 'Ok')} }`, {}, token);
    expect(allowed.status).toBe(200);
    expect(allowed.body.extensions.cost).toBe(MAX_MUTATION_FIELDS);
    expect(remaining(allowed)).toBe(remaining(before2) - MAX_MUTATION_FIELDS);
    expect(await warehouses()).toBe(count + MAX_MUTATION_FIELDS);
  },
);

it(
  'D2: a 900 000-character filter value is refused as a filter value (as REST does), naming it; ' +
    '/healthz stays fast',
  async () => {
    const token = await limited.tokenWith(['read_orders']);
    const huge = 'x'.repeat(900_000);
    const { results, healthzMs } = await whileAbusing(limited.url, 6, () =>
      limited.graphql('query($e:[String!]){orders(filter:{email:$e}){totalCount}}', { e: [huge] }, token),
    );
    for (const res of results) {
      expect(res.body.errors[0].extensions).toEqual({
        code: 'BAD_USER_INPUT',
        fields: [{ field: 'email[0]', message: 'must be at most 1000 characters' }],
      });
    }
    expect(healthzMs).toBeLessThan(200);
    const rest = await limited.send('POST', '/api/v1/orders/search', { email: 'x'.repeat(1001) }, token);
    expect(rest.status).toBe(422);
    expect(rest.body.errors[0].field).toBe('email');
    const many = await limited.graphql(
      'query($e:[String!]){orders(filter:{email:$e}){totalCount}}',
      { e: Array.from({ length: 101 }, () => 'a') },
      token,
    );
    expect(many.body.errors[0].extensions.fields).toEqual([{ field: 'email', message: 'may hold at most 100 values' }]);
  },
);

it('reports extensions.cost in every answer: the charge, or 0 when refused at the door before any charge', async () => {
  const token = await limited.tokenWith(['read_products']);
  expect((await limited.graphql('{ products { totalCount } }', {}, token)).body.extensions).toEqual({ cost: 1 });
  expect((await limited.graphql('{ products { nope } }', {}, token)).body.extensions).toEqual({ cost: 1 });
  expect((await limited.graphql(`{ a${' { a'.repeat(100)}${' }'.repeat(101)}`, {}, token)).body.extensions).toEqual({
    cost: 0,
  });
});
