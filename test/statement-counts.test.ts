// Load only what was selected, batched: the number of SQL statements of a list request does not
// grow with the page size or with how many records have relations (no N+1).
import type { RouteSpec } from '../src/rest/route-spec.js';
import { routes } from '../src/rest/routes.js';
import { PAGE_SIZE } from '../src/schema/page-size.js';
import { startTestService, type TestService } from './support/harness.js';
import { pickVariants, placeOrder, setStock } from './support/orders.js';

let service: TestService;

/** Triples the catalogue (with variants, options, images, textareas and collection links) so a page of 200 is full. */
async function growCatalogue() {
  const copyOf = "c.id <> o.id and regexp_replace(c.seo_url, '-copy[0-9]+$', '') = o.seo_url";
  await service.sql(`insert into product (title, is_multi, type, is_giftcard,
    tags, shipping_weight, auto_fulfilment, track_inventory, vendor, sku,
      seo_meta, seo_title, seo_url, is_template, is_draft, price, compare_price, created_at, updated_at, version)
    select title, is_multi, type, is_giftcard, tags, shipping_weight, auto_fulfilment, track_inventory, vendor, sku,
      seo_meta, seo_title, seo_url || '-copy' || n, is_template, is_draft, price, compare_price,
        created_at, updated_at, 1
    from product, generate_series(1, 3) n`);
  await service.sql(`insert into product_variant (product_id, position, option_values, price, compare_price,
    sku, is_default, ignore)
    select c.id, v.position, v.option_values, v.price, v.compare_price, v.sku, v.is_default, v.ignore
    from product c join product o on ${copyOf} join product_variant v on v.product_id = o.id`);
  await service.sql(`insert into product_option (product_id, position, title, changes_look, values)
    select c.id, x.position, x.title, x.changes_look, x.values from product c join product o on ${copyOf}
      join product_option x on x.product_id = o.id`);
  await service.sql(`insert into option_thumbnail (option_id, position, value, color, image_id)
    select nc.id, t.position, t.value, t.color, t.image_id
    from product c join product o on ${copyOf}
    join product_option oo on oo.product_id = o.id
      join product_option nc on nc.product_id = c.id and nc.title = oo.title
    join option_thumbnail t on t.option_id = oo.id`);
  await service.sql(`insert into product_image (product_id, image_id, position)
    select c.id, i.image_id, i.position from product c join product o on ${copyOf}
      join product_image i on i.product_id = o.id`);
  await service.sql(`insert into product_textarea (product_id, position, name, text)
    select c.id, t.position, t.name, t.text from product c join product o on ${copyOf}
      join product_textarea t on t.product_id = o.id`);
  await service.sql(`insert into collection_product (collection_id, product_id, position)
    select l.collection_id, c.id, l.position from product c join product o on ${copyOf}
      join collection_product l on l.product_id = o.id`);
}

/** An order with four fulfilments of one unit, each shipped: full pages for its record lists. */
async function orderWithRecords(): Promise<number> {
  const { tracked } = await pickVariants(service);
  await setStock(service, 1, tracked, 50);
  const order = await placeOrder(service, [{ variantId: tracked, quantity: 4 }]);
  const line = order.items[0].data.id;
  for (let i = 0; i < 4; i++) {
    const res = await service.send('POST', `/api/v1/orders/${order.id}/fulfilments`, {
      items: [{ id: line, quantity: 1, warehouse: 1 }],
    });
    expect(res.status).toBe(201);
    const fulfilment = res.body.fulfilments.at(-1).id;
    const shipped = await service.send('POST', `/api/v1/orders/${order.id}/shipments`, {
      data: { fulfilment_id: fulfilment, tracking_number: `T${i}`, shipping_carrier: 1 },
    });
    expect(shipped.status).toBe(201);
  }
  return order.id;
}

let recordsOrder: number;

beforeAll(async () => {
  service = await startTestService();
  await growCatalogue();
  recordsOrder = await orderWithRecords();
  // A metafield on every fifth order and on every product and variant: `expand=all` reads them, and
  // a search by one reads its definitions first.
  await service.sql(`insert into metafield_definition (owner_type, namespace, key, type, name, created_at)
    values ('ORDER', 'erp', 'channel', 'single_line_text_field', 'Channel', now()),
      ('PRODUCT', 'erp', 'code', 'single_line_text_field', 'Code', now()),
      ('PRODUCT_VARIANT', 'erp', 'bin', 'single_line_text_field', 'Bin', now())`);
  await service.sql(`insert into metafield (definition_id, namespace, key, type, value, order_id, created_at,
      updated_at)
    select d.id, d.namespace, d.key, d.type, 'web', o.id, now(), now() from orders o
    join metafield_definition d on d.owner_type = 'ORDER' where o.id % 5 = 0`);
  await service.sql(`insert into metafield (definition_id, namespace, key, type, value, product_id, created_at,
      updated_at)
    select d.id, d.namespace, d.key, d.type, 'P' || p.id, p.id, now(), now() from product p
    join metafield_definition d on d.owner_type = 'PRODUCT'`);
  await service.sql(`insert into metafield (definition_id, namespace, key, type, value, product_variant_id,
      created_at, updated_at)
    select d.id, d.namespace, d.key, d.type, 'B' || v.id, v.id, now(), now() from product_variant v
    join metafield_definition d on d.owner_type = 'PRODUCT_VARIANT'`);
});
afterAll(() => service.stop());

async function statementsFor(path: string): Promise<{ count: number; items: number }> {
  service.statements.reset();
  const res = await service.get(path);
  expect(res.status).toBe(200);
  return { count: service.statements.count, items: res.body.items?.length ?? 1 };
}

it.each([
  ['/api/v1/products?expand=all', 200],
  ['/api/v1/products', 200],
  ['/api/v1/collections?expand=products', 8],
  ['/api/v1/warehouses?expand=stock', 3],
  ['/api/v1/shipping-carriers', 6],
])('GET %s costs as many statements for a full page as for one record', async (path, fullPage) => {
  const one = await statementsFor(`${path}${path.includes('?') ? '&' : '?'}size=1`);
  const many = await statementsFor(`${path}${path.includes('?') ? '&' : '?'}size=${fullPage}`);
  expect(one.items).toBe(1);
  expect(many.items).toBe(fullPage);
  expect(many.count).toBe(one.count);
});

it('pins the statement count of a fully expanded product page', async () => {
  // the page with every relation aggregated into it, its count beside them and the token check
  // carried (the caller has been seen, src/auth/carried-token-check.ts)
  const { count } = await statementsFor('/api/v1/products?expand=all&size=200');
  expect(count).toBe(1);
});

it('costs the same statements for a single product however much is expanded', async () => {
  const plain = await statementsFor('/api/v1/products/5?fields=id');
  const all = await statementsFor('/api/v1/products/5?expand=all');
  expect(plain.count).toBe(2); // token, product
  expect(all.count).toBe(2); // token, product with every relation aggregated into it
});

it('GET /customers costs as many statements for 120 customers with every derived field as for 1', async () => {
  const one = await statementsFor('/api/v1/customers?size=1');
  const many = await statementsFor('/api/v1/customers?size=200');
  expect(many.items).toBe(120);
  expect(many.count).toBe(one.count);
  const search = async (size: number) => {
    service.statements.reset();
    const res = await service.send('POST', `/api/v1/customers/search?size=${size}`, { first_name: 'a' });
    expect(res.status).toBe(200);
    return service.statements.count;
  };
  expect(await search(200)).toBe(await search(1));
});

it('GET /orders costs as many statements for 200 orders with every record as for 1', async () => {
  const one = await statementsFor('/api/v1/orders?size=1');
  const many = await statementsFor('/api/v1/orders?size=200');
  expect(many.items).toBe(200);
  expect(many.count).toBe(one.count);
  const search = async (size: number) => {
    service.statements.reset();
    const res = await service.send('POST', `/api/v1/orders/search?size=${size}`, { status: [1, 2, 3, 4, 5] });
    expect(res.status).toBe(200);
    return service.statements.count;
  };
  expect(await search(200)).toBe(await search(1));
});

/**
 * Every list, search and single read of the route table is pinned: the statements one request costs,
 * at most 4, the same for a page of 1 as for a full page (no N+1), so a new statement is a conscious
 * change. A route needs no entry here. By default it is read fully expanded (`expand=all`): a list
 * without path parameters as it is, a single read `/x/{id}` on the first record of `GET /x`. A list
 * then costs 1 statement: the page with every relation its selection asks for aggregated into it
 * (src/reads/read-plan.ts), its count beside it, and the token check with its rate-limit charge
 * carried (the test's caller has been seen before, src/auth/carried-token-check.ts). A single read
 * costs 2: the token check, then the record. A full page is the whole list, up to the largest page.
 * A list the demo store leaves empty is pinned on its empty page, and its single read on a missing
 * record (a 404 costs the same two). The entries below are the exceptions: routes that need a
 * record or a body chosen for them, or cost more. A list executed rather than written by PostgreSQL
 * checks its token first, in a statement of its own.
 */
const DEFAULT_STATEMENTS = 2;
const DEFAULT_LIST_STATEMENTS = 1;
const MAX_STATEMENTS = 4;

interface ListPin {
  path: () => string;
  body?: unknown;
  /** The records of a full page; by default the whole list, up to the largest page. */
  fullPage?: number;
  statements: number;
}
interface GetPin {
  path: () => string;
  statements: number;
}

const listExceptions: Record<string, ListPin> = {
  'POST /orders/search': {
    path: () => '/api/v1/orders/search',
    body: { status: [0, 1, 2, 3, 4, 5] },
    fullPage: 200,
    statements: 1,
  },
  'POST /orders/{id}/search': {
    path: () => `/api/v1/orders/${recordsOrder}/search`,
    body: {},
    fullPage: 1,
    statements: 1,
  },
  // order exists, page with items (and carrier) and count, carrying the token check
  'GET /orders/{id}/fulfilments': {
    path: () => `/api/v1/orders/${recordsOrder}/fulfilments`,
    fullPage: 4,
    statements: 2,
  },
  'GET /orders/{id}/shipments': { path: () => `/api/v1/orders/${recordsOrder}/shipments`, fullPage: 4, statements: 2 },
  // (executed: an event's data is what the token's scopes allow) token, order exists, page and
  // count (the order was placed, then 4 fulfilments and 4 shipments: 9 events)
  'GET /orders/{id}/events': { path: () => `/api/v1/orders/${recordsOrder}/events`, fullPage: 9, statements: 3 },
  // (executed: members are computed by the domain) token, page with rules, images and manual links
  // and count, the members of every collection of the page
  'GET /collections': { path: () => '/api/v1/collections?expand=products', fullPage: 8, statements: 3 },
  'POST /customers/search': {
    path: () => '/api/v1/customers/search',
    body: { last_name: 'o' },
    fullPage: 20,
    statements: 1,
  },
  // a search by metafields reads their definitions first
  'POST /orders/search (metafields)': {
    path: () => '/api/v1/orders/search?expand=metafields',
    body: { metafields: { 'erp.channel': 'web' } },
    fullPage: 20,
    statements: 2,
  },
  'POST /products/search': {
    path: () => '/api/v1/products/search',
    body: { id: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12] },
    fullPage: 12,
    statements: 1,
  },
  // a search by display number reads the store's number format first
  'POST /orders/search (display number)': {
    path: () => '/api/v1/orders/search',
    body: { display_number: ['1'] },
    fullPage: 20,
    statements: 2,
  },
};

const getExceptions: Record<string, GetPin> = {
  // token, order with every relation (and the store's order number format): an order with records of every kind
  'GET /orders/{id}': { path: () => `/api/v1/orders/${recordsOrder}?expand=all`, statements: 2 },
  // token, collection with rules, images and manual links, its members
  'GET /collections/{id}': { path: () => '/api/v1/collections/1?expand=all', statements: 3 },
};

const keyOf = (route: RouteSpec) => `${route.method} ${route.path}`;
/** `GET /x` for a single read `GET /x/{id}`. */
const listOf = (route: RouteSpec) =>
  routes.find((r) => r.kind === 'list' && r.method === 'GET' && `${r.path}/{id}` === route.path);
const pinnedKinds = routes.filter((r) => r.kind === 'list' || r.kind === 'search' || r.kind === 'get');
const listDefaults = pinnedKinds.filter((r) => r.kind === 'list' && !r.path.includes('{') && !listExceptions[keyOf(r)]);
const getDefaults = pinnedKinds.filter((r) => r.kind === 'get' && listOf(r) && !getExceptions[keyOf(r)]);

it('pins every list, search and single read of the route table, each at most 4 statements', () => {
  const pinned = new Set(
    [...Object.keys(listExceptions), ...Object.keys(getExceptions)].map((k) => k.replace(/ \(.*\)$/, '')),
  );
  for (const route of [...listDefaults, ...getDefaults]) pinned.add(keyOf(route));
  // A route no default fits (a search, a list under a path parameter) needs an exception above.
  expect([...pinned].sort()).toEqual(pinnedKinds.map(keyOf).sort());
  const statements = Object.values({ ...listExceptions, ...getExceptions }).map((pin) => pin.statements);
  expect(Math.max(DEFAULT_STATEMENTS, ...statements)).toBeLessThanOrEqual(MAX_STATEMENTS);
});

/** The first record of a list (its default order), if it has any. */
async function firstIdOf(list: RouteSpec): Promise<number | undefined> {
  const res = await service.get(`/api/v1${list.path}?size=1`);
  expect(res.status).toBe(200);
  return res.body.items[0]?.id;
}

/** A single read's request, as far as it depends on the store: its path, the status it answers and its pin. */
type GetRun = () => Promise<{ path: string; status: number; statements: number }>;
const gets: [string, GetRun][] = [
  ...Object.entries(getExceptions).map(([key, pin]): [string, GetRun] => [
    key,
    async () => ({ path: pin.path(), status: 200, statements: pin.statements }),
  ]),
  ...getDefaults.map((route): [string, GetRun] => [
    keyOf(route),
    async () => {
      const id = await firstIdOf(listOf(route)!);
      return {
        path: `/api/v1${route.path.replace('{id}', String(id ?? 1))}?expand=all`,
        status: id === undefined ? 404 : 200,
        statements: DEFAULT_STATEMENTS,
      };
    },
  ]),
];

it.each(gets)('%s fully expanded costs no more than pinned', async (_route, pinOf) => {
  const pin = await pinOf();
  service.statements.reset();
  const res = await service.get(pin.path);
  expect({ path: pin.path, status: res.status }).toEqual({ path: pin.path, status: pin.status });
  expect({ statements: service.statements.count }).toEqual({ statements: pin.statements });
});

const lists: [string, ListPin][] = [
  ...Object.entries(listExceptions),
  ...listDefaults.map((route): [string, ListPin] => [
    keyOf(route),
    { path: () => `/api/v1${route.path}?expand=all`, statements: DEFAULT_LIST_STATEMENTS },
  ]),
];

describe.each(lists)('%s', (_route, spec) => {
  async function run(size: number) {
    const path = spec.path();
    const url = `${path}${path.includes('?') ? '&' : '?'}size=${size}`;
    service.statements.reset();
    const res = spec.body === undefined ? await service.get(url) : await service.send('POST', url, spec.body);
    expect(res.status).toBe(200);
    const items = Array.isArray(res.body) ? res.body : res.body.items;
    return {
      count: service.statements.count,
      items: items.length as number,
      total: Number(res.headers.get('x-pagination-total-count')),
    };
  }

  it('costs as many statements for a full page as for one record, and no more than pinned', async () => {
    const one = await run(1);
    const fullPage = spec.fullPage ?? Math.min(one.total, PAGE_SIZE.max);
    const many = await run(Math.max(fullPage, 1));
    expect(one.items).toBe(Math.min(fullPage, 1));
    expect(many.items).toBe(fullPage);
    expect(many.count).toBe(one.count);
    expect({ statements: one.count }).toEqual({ statements: spec.statements });
  });
});

/**
 * The bench's write mix, pinned: a fulfilment created and deleted. Each is the token, then one
 * transaction (its BEGIN, not counted, carrying the write's statement timeout; the order's lock;
 * the order's records and the warehouse named in one read; the stock move; then one statement
 * writing the record, counters, status and event) and then the answer, the whole order, read back
 * in one statement.
 */
it('pins the statements of a fulfilment created and deleted', async () => {
  const { tracked } = await pickVariants(service);
  await setStock(service, 1, tracked, 10);
  const order = await placeOrder(service, [{ variantId: tracked, quantity: 2 }]);
  const line = order.items[0].data.id;
  service.statements.reset();
  const created = await service.send('POST', `/api/v1/orders/${order.id}/fulfilments`, {
    items: [{ id: line, quantity: 1, warehouse: 1 }],
  });
  expect(created.status).toBe(201);
  const create = service.statements.count;
  service.statements.reset();
  const deleted = await service.send(
    'DELETE',
    `/api/v1/orders/${order.id}/fulfilments/${created.body.fulfilments.at(-1).id}`,
  );
  expect(deleted.status).toBe(200);
  expect({ create, delete: service.statements.count }).toEqual({ create: 6, delete: 6 });
});

/**
 * A record's id travels as a bind parameter: two orders send the same statement texts, so one
 * prepared statement (planned once per connection) serves every id, and no id is written into SQL.
 */
it('sends the same statement texts for different ids (values bound, not written in)', async () => {
  const textsOf = async (path: string) => {
    service.statements.reset();
    const res = await service.get(path);
    expect(res.status).toBe(200);
    return service.statements.texts;
  };
  const [a, b] = await service.sql<{ id: number }>('select id from orders order by id limit 2');
  const first = await textsOf(`/api/v1/orders/${a.id}?expand=all`);
  expect(await textsOf(`/api/v1/orders/${b.id}?expand=all`)).toEqual(first);
  expect(first.join(' ')).not.toContain(`in (${a.id})`);
});
