// No silent fallback (issue 37): every REST list and search, at its default selection and at
// `expand=all`, every export, and every GraphQL scenario of the bench is answered with the JSON
// PostgreSQL writes, not executed and serialised in the service. The roads are read from the
// service's own counters (`answers_by_road_total`, `export_chunks_total` in /metrics). A shape that
// truly needs execution is named in EXECUTED with its reason; any other executed answer fails here.
import { CUSTOMER_SEARCH, ORDERS_PAGE, Q1, Q1_WITHOUT_COUNT, Q2, Q3, Q4 } from '../bench/graphql-queries.js';
import { routes } from '../src/rest/routes.js';
import { startTestService, type TestService } from './support/harness.js';

let service: TestService;
let metricsToken: string;

beforeAll(async () => {
  service = await startTestService();
  metricsToken = await service.tokenWith(['read_metrics']);
  // Metafields on every other record of each kind that keeps them: `expand=all` writes their values too.
  await service.sql(`insert into metafield_definition (owner_type, namespace, key, type, name, created_at)
    select o, 'erp', 'no', 'single_line_text_field', 'No', now()
    from unnest(array['ORDER', 'CUSTOMER', 'PRODUCT', 'PRODUCT_VARIANT', 'COLLECTION']) o`);
  for (const [owner, table] of [
    ['order', 'orders'],
    ['customer', 'customer'],
    ['product', 'product'],
    ['product_variant', 'product_variant'],
    ['collection', 'collection'],
  ]) {
    await service.sql(`insert into metafield (definition_id, namespace, key, type, value, ${owner}_id, created_at,
        updated_at)
      select d.id, d.namespace, d.key, d.type, 'N-' || r.id, r.id, now(), now() from ${table} r
      join metafield_definition d on d.owner_type = upper('${owner}') where r.id % 2 = 0`);
  }
});
afterAll(() => service.stop());

/** Shapes that execute, by request, and why. Each is a known gap of the one road, not a silent one. */
const TIMELINE =
  "an event's `data` is what the token's scopes allow (src/domain/event-visibility.ts: an order's contact " +
  'details only with read_customers), and the SQL of a shape is written once for every token';
const EXECUTED: Record<string, string> = {
  'GET /orders/{id}/events': TIMELINE,
  'GET /orders/{id}/events?expand=all': TIMELINE,
  'GET /collections?expand=all':
    "a collection's member products (`products`) are its rules evaluated by domain code " +
    '(src/domain/collection-membership.ts), which no SQL declaration states',
};

async function counts(): Promise<Record<string, number>> {
  const res = await service.get('/metrics', metricsToken);
  expect(res.status).toBe(200);
  const out: Record<string, number> = {};
  for (const match of (res.text as string).matchAll(
    /^(answers_by_road_total|export_chunks_total)\{([^}]*)\} (\d+)$/gm,
  )) {
    out[`${match[1]}{${match[2]}}`] = Number(match[3]);
  }
  return out;
}

/** What a request added to each counter (only the counters that moved). */
async function roadsOf(send: () => Promise<{ status: number }>): Promise<Record<string, number>> {
  const before = await counts();
  const res = await send();
  expect(res.status).toBe(200);
  const after = await counts();
  return Object.fromEntries(
    Object.entries(after)
      .map(([key, n]) => [key, n - (before[key] ?? 0)] as const)
      .filter(([, n]) => n > 0),
  );
}

/** A route's path with its `{id}` filled in by a record that exists in the seeded store. */
const concrete = (path: string) => path.replace('{id}', '1');

const lists = routes.filter((r) => r.kind === 'list' || r.kind === 'search');
const listCases = lists.flatMap((route) =>
  ['', '?expand=all'].map((query) => ({ name: `${route.method} ${route.path}${query}`, route, query })),
);

it.each(listCases)('$name: the items are written by PostgreSQL', async ({ name, route, query }) => {
  const path = `/api/v1${concrete(route.path)}${query}`;
  const roads = await roadsOf(() =>
    route.method === 'GET'
      ? service.get(path)
      : service.send(route.method, path, route.kind === 'search' ? {} : undefined),
  );
  const road = EXECUTED[name] ? 'executed' : 'postgres';
  expect({ name, roads }).toEqual({
    name,
    roads: { [`answers_by_road_total{carrier="rest_list",road="${road}"}`]: 1 },
  });
});

const exportCases = routes
  .filter((r) => r.kind === 'export')
  .flatMap((route) => ['', '?expand=all'].map((query) => ({ name: `${route.path}${query}`, route, query })));

it.each(exportCases)('$name: every chunk is written by PostgreSQL', async ({ route, query }) => {
  const roads = await roadsOf(() => service.get(`/api/v1${route.path}${query}`));
  expect(Object.keys(roads)).toEqual(['export_chunks_total{road="postgres"}']);
});

// Each with its variables (three values a row: jest takes a test function with more parameters than
// its row for one that waits for `done`).
const scenarios: [string, string, Record<string, unknown>][] = [
  ['Q1', Q1, {}],
  ['Q1 without totalCount', Q1_WITHOUT_COUNT, {}],
  ['Q2', Q2, { id: 2 }],
  ['Q3', Q3, {}],
  ['Q4', Q4, {}],
  ['orders page', ORDERS_PAGE, { page: 3, sort: [{ field: 'TOTAL', direction: 'DESC' }] }],
  ['customer search', CUSTOMER_SEARCH, { email: ['.7@', 'ada.lovelace'] }],
];

it.each(scenarios)('GraphQL %s of the bench: the answer is written by PostgreSQL', async (_name, query, variables) => {
  // Twice: the first request checks the token first, the second carries the check in its read.
  for (let i = 0; i < 2; i++) {
    const roads = await roadsOf(() => service.graphql(query, variables));
    expect(roads).toEqual({ 'answers_by_road_total{carrier="graphql",road="postgres"}': 1 });
  }
});

it('counts a shape that needs execution as executed: the counters can tell the roads apart', async () => {
  const roads = await roadsOf(() => service.graphql('{ __schema { queryType { name } } }'));
  expect(roads).toEqual({ 'answers_by_road_total{carrier="graphql",road="executed"}': 1 });
});
