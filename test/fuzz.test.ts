// A bounded fuzz (docs/operations.md#security) over every REST route: wrong types, huge numbers,
// long and deep values, wide objects, unicode, SQL-looking text, missing and extra fields, bad query parameters.
// Never a 5xx, every refusal is problem+json (and matches the OpenAPI document, which the harness
// checks), and a refused request leaves the database exactly as it was.
import fc from 'fast-check';
import { buildStoreSchema } from '../src/graphql/build-schema.js';
import { deriveRestApi, type RestApi } from '../src/rest/rest-api.js';
import { routes } from '../src/rest/routes.js';
import { startTestService, type TestService } from './support/harness.js';

const SCHEMA_WALK = '__schema { types { name fields { name args { name } } } }';

let service: TestService;
/** The route table as it runs: a search's keys are its filter input's fields. */
let api: RestApi;
beforeAll(async () => {
  service = await startTestService();
  api = deriveRestApi(await buildStoreSchema(), routes);
});
afterAll(() => service.stop());

/**
 * Never a 5xx, with the request named in the failure (a bare status would not say which of the
 * generated requests got it).
 */
function expectNoServerError(request: string, status: number): void {
  expect({ request, status, serverError: status >= 500 }).toEqual({ request, status, serverError: false });
}

const nasty = fc.oneof(
  fc.constantFrom(
    "' or 1=1 --",
    'Robert"); drop table orders;--',
    '%',
    '_',
    '\\',
    '\u0000',
    '𝔘𝔫𝔦𝔠𝔬𝔡𝔢 ☃',
    'NULL',
    '',
    ' ',
    '{}',
    '[]',
    '1e308',
    '-0',
    'NaN',
  ),
  fc.string({ maxLength: 20 }),
  fc.string({ minLength: 3000, maxLength: 5000 }),
);
const number = fc.oneof(
  fc.integer(),
  fc.constantFrom(0, -1, 2147483648, Number.MAX_SAFE_INTEGER + 1, 1e308, -1e308, 0.5),
  fc.double(),
);
const value: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  leaf: fc.oneof(nasty, number, fc.boolean(), fc.constant(null)),
  node: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    tie('leaf'),
    fc.array(tie('node'), { maxLength: 4 }),
    fc.dictionary(fc.string({ maxLength: 8 }), tie('node'), { maxKeys: 4 }),
  ),
})).node;

/** A body that looks like the route's own (its keys, random values), or anything at all. */
function bodyFor(keys: string[]): fc.Arbitrary<unknown> {
  const shaped = keys.length
    ? fc.dictionary(fc.oneof(fc.constantFrom(...keys), fc.string({ maxLength: 6 })), value, { maxKeys: 5 })
    : fc.constant({});
  return fc.oneof(shaped, value, fc.array(shaped, { maxLength: 3 }));
}

const pathId = fc.oneof(
  fc.integer({ min: 1, max: 300 }).map(String),
  fc.constantFrom('0', '-1', '99999999999', 'abc', '1.5', '%27', '%00', '%F0%9D%94%98'),
);
const query = fc.dictionary(
  fc.constantFrom('page', 'size', 'sort', 'fields', 'expand', 'x'),
  fc.oneof(nasty, number.map(String)),
  { maxKeys: 4 },
);

async function digest(): Promise<string> {
  const [row] = await service.sql<{ d: string }>(`select md5(string_agg(x, '|' order by x)) as d from (
    select t::text as x from orders t union all select t::text from line_item t
      union all select t::text from fulfilment t
    union all select t::text from shipment t union all select t::text from customer t
      union all select t::text from customer_address t
    union all select t::text from product t union all select t::text from product_variant t
      union all select t::text from collection t
    union all select t::text from inventory_level t) all_rows`);
  return row.d;
}

it.each(routes.map((r) => [`${r.method} ${r.path}`, r] as const))(
  '%s never answers 5xx and changes nothing when it refuses',
  async (_name, route) => {
    const filters = api.filters.get(api.routes[routes.indexOf(route)].resource);
    const keys = route.kind === 'write' && route.body ? Object.keys(route.body) : Object.keys(filters?.shapes ?? {});
    await fc.assert(
      fc.asyncProperty(fc.tuple(pathId, pathId, query, bodyFor(keys)), async ([id1, id2, params, body]) => {
        let n = 0;
        const path =
          `/api/v1${route.path.replace(/\{\w+\}/g, () => (n++ === 0 ? id1 : id2))}` +
          `?${new URLSearchParams(params as Record<string, string>)}`;
        const before = route.method === 'GET' ? '' : await digest();
        const res = await service.send(route.method, path, route.method === 'GET' ? undefined : body);
        expectNoServerError(path, res.status);
        if (res.status >= 400) {
          expect(res.headers.get('content-type')).toMatch(/application\/problem\+json/);
          expect(res.text).not.toMatch(/\bat \S+\.(ts|js):\d+|select .* from|insert into/i);
          if (route.method !== 'GET') expect(await digest()).toBe(before);
        }
      }),
      { numRuns: 12, seed: 4242, endOnFailure: true },
    );
  },
  120_000,
);

// The hostile families of docs/operations.md#hostile-load-findings, against every body route and /graphql:
// deep nesting, bad encodings, lone surrogates, numbers outside every range, huge GraphQL
// variables, aliased mutations. Never a 5xx; a refused write changes nothing.
const bodyRoutes = routes.filter((r) => r.method !== 'GET');
const hostileText = fc.oneof(
  fc.integer({ min: 33, max: 20_000 }).map((n) => '['.repeat(n) + ']'.repeat(n)),
  fc.integer({ min: 33, max: 5_000 }).map((n) => `{"notes":${'{"a":'.repeat(n)}1${'}'.repeat(n)}}`),
  fc
    .constantFrom('\\ud800', '\\udfff', 'a\\ud83d', '\\ude00b')
    .map((s) => `{"title":"${s}","email":"${s}@example.com","notes":"${s}","items":[{"id":1,"quantity":1}]}`),
  fc
    .constantFrom('1e309', '-1e309', '1e400', '123456789012345678901234567890', '-0', '4.9e-325')
    .map(
      (n) => `{"shipping_weight":${n},"price":${n},"quantity":${n},"items":[{"id":${n},"quantity":${n}}],"id":${n}}`,
    ),
);

it('hostile bodies (deep, bad Unicode, out-of-range numbers, bad encodings) ' +
  'never get a 5xx on any body route', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.constantFrom(...bodyRoutes),
      hostileText,
      fc.constantFrom('identity', 'gzip', 'deflate', 'br', 'x-unknown'),
      async (route, text, encoding) => {
        const path = `/api/v1${route.path.replace(/\{\w+\}/g, '1')}`;
        const before = await digest();
        const headers: Record<string, string> = {
          authorization: `Bearer ${service.token}`,
          'content-type': 'application/json',
          'idempotency-key': `fuzz-${Math.random()}`,
        };
        if (encoding !== 'identity') headers['content-encoding'] = encoding; // the body is not compressed: refused
        const res = await fetch(service.url + path, { method: route.method, headers, body: text });
        const answer = await res.text();
        expectNoServerError(`${path} (${encoding})`, res.status);
        if (res.status >= 400) {
          expect(res.headers.get('content-type')).toMatch(/application\/problem\+json/);
          expect(answer).not.toMatch(/call stack|URIError|Infinity|\$input/);
          expect(await digest()).toBe(before);
        }
      },
    ),
    { numRuns: 40, seed: 1414, endOnFailure: true },
  );
}, 180_000);

// Wide objects (issue #25): many keys, at the top or nested, in bodies that are objects or lists,
// with and without an Idempotency-Key. However wide, the answer is a small 4xx, nothing changes and
// nothing large is kept for the key.
const wideRoutes = routes
  .filter((r) => r.kind === 'search' || (r.kind === 'write' && r.body))
  .map((r) => ({ method: r.method, path: r.path }));
const wide = fc.record({
  keys: fc.oneof(fc.integer({ min: 21, max: 200 }), fc.integer({ min: 1000, max: 60_000 })),
  name: fc.constantFrom('k', 'items', 'x'.repeat(300)),
  at: fc.constantFrom('top', 'nested', 'listed'),
  key: fc.boolean(),
});
const MAX_ANSWER = 8192;

it('wide objects (many keys, with and without Idempotency-Key) get a small 4xx on every body route', async () => {
  await fc.assert(
    fc.asyncProperty(fc.constantFrom(...wideRoutes), wide, async (route, { keys, name, at, key }) => {
      const object = `{${Array.from({ length: keys }, (_, i) => `"${name}${i}":1`).join(',')}}`;
      const text = at === 'top' ? object : at === 'nested' ? `{"items":[${object}],"notes":${object}}` : `[${object}]`;
      const path = `/api/v1${route.path.replace(/\{\w+\}/g, '1')}`;
      const label = `${route.method} ${path} ${keys} keys ${at}${key ? ' with a key' : ''}`;
      const before = await digest();
      const headers: Record<string, string> = {
        authorization: `Bearer ${service.token}`,
        'content-type': 'application/json',
      };
      if (key) headers['idempotency-key'] = `wide-${Math.random()}`;
      const res = await fetch(service.url + path, { method: route.method, headers, body: text });
      const answer = await res.text();
      expectNoServerError(label, res.status);
      const size = Buffer.byteLength(answer) <= MAX_ANSWER;
      expect({ label, refused: res.status >= 400, size }).toEqual({ label, refused: true, size: true });
      expect(res.headers.get('content-type')).toMatch(/application\/problem\+json/);
      expect(await digest()).toBe(before);
      if (key) {
        const [kept] = await service.sql<{ n: number }>(
          'select coalesce(max(length(response::text)), 0)::int as n from idempotency_key where key = ?',
          [headers['idempotency-key']],
        );
        expect(kept.n).toBeLessThanOrEqual(MAX_ANSWER);
      }
    }),
    { numRuns: 40, seed: 2525, endOnFailure: true },
  );
}, 180_000);

const mutationFields = [
  'createWarehouse(title: "x") { id }',
  'updateOrder(id: 1, input: { notes: "x" }) { id }',
  'deleteCustomer(id: 99999)',
  'createShippingCarrier(input: { title: "c", url: "http://x" }) { id }',
];
/** A /graphql body as JSON text (a label to name it in a failure): deep values stay text here. */
const request = (label: string, query: string, variables = '{}') => ({
  label,
  body: `{"query":${JSON.stringify(query)},"variables":${variables}}`,
});
const graphqlAbuse = fc.oneof(
  fc
    .record({ n: fc.integer({ min: 11, max: 600 }), field: fc.constantFrom(...mutationFields) })
    .map(({ n, field }) =>
      request(
        `${n} aliased ${field.slice(0, 20)}`,
        `mutation { ${Array.from({ length: n }, (_, i) => `m${i}: ${field}`).join(' ')} }`,
      ),
    ),
  fc
    .integer({ min: 30, max: 1500 })
    .map((n) =>
      request(`${n} __schema walks`, `{ ${Array.from({ length: n }, (_, i) => `s${i}: ${SCHEMA_WALK}`).join(' ')} }`),
    ),
  fc
    .integer({ min: 100_001, max: 900_000 })
    .map((n) =>
      request(
        `${n}-character filter`,
        'query($e:[String!]){orders(filter:{email:$e}){totalCount}}',
        JSON.stringify({ e: ['x'.repeat(n)] }),
      ),
    ),
  fc
    .integer({ min: 1001, max: 60_000 })
    .map((n) =>
      request(
        `${n} filter values`,
        'query($e:[String!]){customers(filter:{email:$e}){totalCount}}',
        JSON.stringify({ e: Array.from({ length: n }, () => 'a') }),
      ),
    ),
  fc
    .integer({ min: 33, max: 10_000 })
    .map((n) =>
      request(
        `variables ${n} deep`,
        'query($e:[String!]){orders(filter:{email:$e}){totalCount}}',
        `{"e":${'['.repeat(n)}${']'.repeat(n)}}`,
      ),
    ),
  fc
    .constantFrom('\\ud800', 'a\\udc00', '\\u0000')
    .map((t) => request(`text ${t}`, 'mutation($t:String!){ createWarehouse(title:$t){ id } }', `{"t":"${t}"}`)),
  fc
    .constantFrom('1e309', '-1e400', '99999999999999999999')
    .map((n) => request(`number ${n}`, 'query($s:Int){ products(size:$s){ totalCount } }', `{"s":${n}}`)),
  fc
    .integer({ min: 65, max: 30_000 })
    .map((n) => request(`document ${n} deep`, `{ a${' { a'.repeat(n)}${' }'.repeat(n + 1)}`)),
  fc.integer({ min: 101, max: 60_000 }).map((n) => {
    const input = `{${Array.from({ length: n }, (_, i) => `"k${i}":1`).join(',')}}`;
    const query = 'mutation($i: OrderPatch!){ updateOrder(id: 1, input: $i) { id } }';
    return request(`input of ${n} keys`, query, `{"i":${input}}`);
  }),
);

it('hostile GraphQL (aliased mutations, introspection bombs, huge or deep variables, bad text, deep documents) ' +
  'never gets a 5xx', async () => {
  await fc.assert(
    fc.asyncProperty(graphqlAbuse, async ({ label, body }) => {
      const before = await digest();
      const res = await fetch(`${service.url}/graphql`, {
        method: 'POST',
        headers: { authorization: `Bearer ${service.token}`, 'content-type': 'application/json' },
        body,
      });
      const answer = (await res.json()) as { errors?: { message: string }[]; data?: unknown };
      expectNoServerError(label, res.status);
      // Refused, or (a few schema walks, within the limits) answered and charged.
      expect(answer.errors?.length || answer.data).toBeTruthy();
      expect(JSON.stringify(answer.errors ?? [])).not.toMatch(/call stack|Internal server error/i);
      expect(await digest()).toBe(before);
    }),
    { numRuns: 40, seed: 1415, endOnFailure: true },
  );
}, 180_000);
