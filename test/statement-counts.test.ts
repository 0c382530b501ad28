// Load only what was selected, batched: the number of SQL statements of a list request does not
// grow with the page size or with how many records have relations (no N+1).
import { routes } from '../src/rest/routes.js';
import { startTestService, type TestService } from './support/harness.js';
import { placeOrder, pickVariants, setStock } from './support/orders.js';

let service: TestService;

/** Triples the catalogue (with variants, options, images, textareas and collection links) so a page of 200 is full. */
async function growCatalogue() {
  const copyOf = "c.id <> o.id and regexp_replace(c.seo_url, '-copy[0-9]+$', '') = o.seo_url";
  await service.sql(`insert into product (title, is_multi, type, is_giftcard, tags, shipping_weight, auto_fulfilment, track_inventory, vendor, sku,
      seo_meta, seo_title, seo_url, is_template, is_draft, price, compare_price, created_at, updated_at, version)
    select title, is_multi, type, is_giftcard, tags, shipping_weight, auto_fulfilment, track_inventory, vendor, sku,
      seo_meta, seo_title, seo_url || '-copy' || n, is_template, is_draft, price, compare_price, created_at, updated_at, 1
    from product, generate_series(1, 3) n`);
  await service.sql(`insert into product_variant (product_id, position, option_values, price, compare_price, sku, is_default, ignore)
    select c.id, v.position, v.option_values, v.price, v.compare_price, v.sku, v.is_default, v.ignore
    from product c join product o on ${copyOf} join product_variant v on v.product_id = o.id`);
  await service.sql(`insert into product_option (product_id, position, title, changes_look, values)
    select c.id, x.position, x.title, x.changes_look, x.values from product c join product o on ${copyOf} join product_option x on x.product_id = o.id`);
  await service.sql(`insert into option_thumbnail (option_id, position, value, color, image_id)
    select nc.id, t.position, t.value, t.color, t.image_id
    from product c join product o on ${copyOf}
    join product_option oo on oo.product_id = o.id join product_option nc on nc.product_id = c.id and nc.title = oo.title
    join option_thumbnail t on t.option_id = oo.id`);
  await service.sql(`insert into product_image (product_id, image_id, position)
    select c.id, i.image_id, i.position from product c join product o on ${copyOf} join product_image i on i.product_id = o.id`);
  await service.sql(`insert into product_textarea (product_id, position, name, text)
    select c.id, t.position, t.name, t.text from product c join product o on ${copyOf} join product_textarea t on t.product_id = o.id`);
  await service.sql(`insert into collection_product (collection_id, product_id, position)
    select l.collection_id, c.id, l.position from product c join product o on ${copyOf} join collection_product l on l.product_id = o.id`);
}

/** An order with four fulfilments of one unit, each shipped: full pages for its record lists. */
async function orderWithRecords(): Promise<number> {
  const { tracked } = await pickVariants(service);
  await setStock(service, 1, tracked, 50);
  const order = await placeOrder(service, [{ variantId: tracked, quantity: 4 }]);
  const line = order.items[0].data.id;
  for (let i = 0; i < 4; i++) {
    const res = await service.send('POST', `/api/v1/orders/${order.id}/fulfilments`, { items: [{ id: line, quantity: 1, warehouse: 1 }] });
    expect(res.status).toBe(201);
    const fulfilment = res.body.fulfilments.at(-1).id;
    const shipped = await service.send('POST', `/api/v1/orders/${order.id}/shipments`, { data: { fulfilment_id: fulfilment, tracking_number: `T${i}`, shipping_carrier: 1 } });
    expect(shipped.status).toBe(201);
  }
  return order.id;
}

let recordsOrder: number;

beforeAll(async () => {
  service = await startTestService();
  await growCatalogue();
  recordsOrder = await orderWithRecords();
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
  // token, then the page with every relation aggregated into it and its count beside them
  const { count } = await statementsFor('/api/v1/products?expand=all&size=200');
  expect(count).toBe(2);
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
 * Every list and search route of the route table, with the statements one request costs: the same
 * for a page of 1 as for a full page (no N+1), and pinned, so a new statement is a conscious change.
 * The token check (with its rate-limit charge) is one of them; a page comes with every relation its
 * selection asks for aggregated into it (src/reads/read-model.ts), and its count beside it.
 */
const listRoutes: Record<string, { path: () => string; body?: unknown; fullPage: number; statements: number }> = {
  // token; the page (line items, records, customer, number format) with its count
  'GET /orders': { path: () => '/api/v1/orders', fullPage: 200, statements: 2 },
  'POST /orders/search': { path: () => '/api/v1/orders/search', body: { status: [0, 1, 2, 3, 4, 5] }, fullPage: 200, statements: 2 },
  'POST /orders/{id}/search': { path: () => `/api/v1/orders/${recordsOrder}/search`, body: {}, fullPage: 1, statements: 2 },
  // token, order exists, page with items (and carrier) and count
  'GET /orders/{id}/fulfilments': { path: () => `/api/v1/orders/${recordsOrder}/fulfilments`, fullPage: 4, statements: 3 },
  'GET /orders/{id}/shipments': { path: () => `/api/v1/orders/${recordsOrder}/shipments`, fullPage: 4, statements: 3 },
  // token, order exists, page and count (the order was placed, then 4 fulfilments and 4 shipments: 9 events)
  'GET /orders/{id}/events': { path: () => `/api/v1/orders/${recordsOrder}/events`, fullPage: 9, statements: 3 },
  // token, page with every relation and count
  'GET /products': { path: () => '/api/v1/products?expand=all', fullPage: 200, statements: 2 },
  // token, page with rules, images and manual links and count, the members of every collection of the page
  'GET /collections': { path: () => '/api/v1/collections?expand=products', fullPage: 8, statements: 3 },
  'GET /shipping-carriers': { path: () => '/api/v1/shipping-carriers', fullPage: 6, statements: 2 },
  'GET /warehouses': { path: () => '/api/v1/warehouses?expand=stock', fullPage: 3, statements: 2 },
  'GET /customers': { path: () => '/api/v1/customers', fullPage: 120, statements: 2 },
  'POST /customers/search': { path: () => '/api/v1/customers/search', body: { last_name: 'o' }, fullPage: 20, statements: 2 },
  // a search by display number reads the store's number format first
  'POST /orders/search (display number)': { path: () => '/api/v1/orders/search', body: { display_number: ['1'] }, fullPage: 20, statements: 3 },
};

/** Every single read of the route table, fully expanded, with its pinned statements (at most 4). */
const getRoutes: Record<string, { path: () => string; statements: number }> = {
  // token, order with every relation (and the store's order number format)
  'GET /orders/{id}': { path: () => `/api/v1/orders/${recordsOrder}?expand=all`, statements: 2 },
  'GET /products/{id}': { path: () => '/api/v1/products/5?expand=all', statements: 2 },
  // token, collection with rules, images and manual links, its members
  'GET /collections/{id}': { path: () => '/api/v1/collections/1?expand=all', statements: 3 },
  'GET /customers/{id}': { path: () => '/api/v1/customers/7?expand=all', statements: 2 },
};

it('pins every single read of the route table', () => {
  const listed = routes.filter((r) => r.kind === 'get').map((r) => `${r.method} ${r.path}`);
  expect(Object.keys(getRoutes).sort()).toEqual(listed.sort());
});

it.each(Object.entries(getRoutes))('%s fully expanded costs no more than pinned', async (_route, spec) => {
  const { count } = await statementsFor(spec.path());
  expect({ statements: count }).toEqual({ statements: spec.statements });
});

it('pins every list and search route of the route table', () => {
  const listed = routes.filter((r) => r.kind === 'list' || r.kind === 'search').map((r) => `${r.method} ${r.path}`);
  expect(Object.keys(listRoutes).filter((k) => !k.includes('(')).sort()).toEqual(listed.sort());
});

describe.each(Object.entries(listRoutes))('%s', (_route, spec) => {
  async function run(size: number) {
    const path = spec.path();
    const url = `${path}${path.includes('?') ? '&' : '?'}size=${size}`;
    service.statements.reset();
    const res = spec.body === undefined ? await service.get(url) : await service.send('POST', url, spec.body);
    expect(res.status).toBe(200);
    const items = Array.isArray(res.body) ? res.body : res.body.items;
    return { count: service.statements.count, items: items.length as number };
  }

  it('costs as many statements for a full page as for one record, and no more than pinned', async () => {
    const one = await run(1);
    const many = await run(spec.fullPage);
    expect(one.items).toBe(1);
    expect(many.items).toBe(spec.fullPage);
    expect(many.count).toBe(one.count);
    expect({ statements: one.count }).toEqual({ statements: spec.statements });
  });
});

/**
 * The bench's write mix, pinned: a fulfilment created and deleted. Each is one transaction (lock,
 * read the order's state, write the record, counters, stock and event) and then the answer, the
 * whole order, read back through the read model in one statement.
 */
it('pins the statements of a fulfilment created and deleted', async () => {
  const { tracked } = await pickVariants(service);
  await setStock(service, 1, tracked, 10);
  const order = await placeOrder(service, [{ variantId: tracked, quantity: 2 }]);
  const line = order.items[0].data.id;
  service.statements.reset();
  const created = await service.send('POST', `/api/v1/orders/${order.id}/fulfilments`, { items: [{ id: line, quantity: 1, warehouse: 1 }] });
  expect(created.status).toBe(201);
  const create = service.statements.count;
  service.statements.reset();
  const deleted = await service.send('DELETE', `/api/v1/orders/${order.id}/fulfilments/${created.body.fulfilments.at(-1).id}`);
  expect(deleted.status).toBe(200);
  expect({ create, delete: service.statements.count }).toEqual({ create: 14, delete: 14 });
});
