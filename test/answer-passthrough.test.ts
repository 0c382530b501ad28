// Issue 22 item 4: a plain page read (or a record read by id) on /graphql is answered with
// PostgreSQL's JSON (never parsed and re-serialised by the service), and that answer equals normal
// execution's: same JSON, same key order, same errors and scopes, and one statement fewer (the read
// carries the token check).
import { Q1, Q1_WITHOUT_COUNT, Q2, Q3, Q4 } from '../bench/graphql-queries.js';
import { startTestService, type TestService } from './support/harness.js';
import { until } from './support/until.js';

let service: TestService;
let metricsToken: string;
beforeAll(async () => {
  service = await startTestService();
  metricsToken = await service.tokenWith(['read_metrics']);
  // Fractions of a second, which the Timestamp serialiser floors to whole Unix seconds.
  await service.sql("update product set created_at = created_at + interval '0.7 second', updated_at = now()");
  await service.sql('update orders set updated_at = now() where id % 2 = 0');
  // Discounts as jsonb holds them (its own key order, a number written 1.50), which the seed leaves empty.
  await service.sql(`update orders set discounts = '[{"code": "SPRING", "rate": 1.50, "of": {"b": [1, 2], "a": null}}]'
    where id % 3 = 0`);
  // A suffix too (the seed's is empty), and a quote in the prefix, for the display numbers.
  await service.sql("update store_settings set order_number_prefix = 'N''', order_number_suffix = '-B'");
  // Some swatches pictured by an image (the seed pictures all of them by a colour).
  await service.sql(`update option_thumbnail set color = null, image_id = (select min(id) from image)
    where id % 2 = 0 and option_id in (select id from product_option where product_id <= 40)`);
  // Metafields of several types on some orders, products, variants and customers (a json value with
  // its own key order and a string holding a line break, which the JSON escapes).
  await service.sql(`insert into metafield_definition (owner_type, namespace, key, type, name, created_at)
    select o, 'erp', k, t, k, now()
    from unnest(array['ORDER', 'PRODUCT', 'PRODUCT_VARIANT', 'CUSTOMER', 'COLLECTION']) o,
      (values ('no', 'single_line_text_field'), ('qty', 'number_integer'), ('doc', 'json'), ('ok', 'boolean'),
        ('note', 'multi_line_text_field'), ('w', 'number_decimal')) d(k, t)`);
  for (const [column, table] of [
    ['order_id', 'orders'],
    ['product_id', 'product'],
    ['product_variant_id', 'product_variant'],
    ['customer_id', 'customer'],
  ]) {
    const owner =
      { order_id: 'ORDER', product_id: 'PRODUCT', product_variant_id: 'PRODUCT_VARIANT' }[column] ?? 'CUSTOMER';
    await service.sql(`insert into metafield
      (definition_id, namespace, key, type, value, ${column}, created_at, updated_at)
      select d.id, d.namespace, d.key, d.type, case d.key when 'no' then 'N-' || r.id when 'qty' then (r.id * 7)::text
        when 'doc' then '{"z":[1,2.5],"a":{"q":"' || r.id || '"}}' when 'ok' then (r.id % 2 = 0)::text
        when 'note' then E'two\\nlines' else '1.5' end, r.id, now(), now()
      from ${table} r join metafield_definition d on d.owner_type = '${owner}'
      where r.id % 3 <> 1 and (d.key <> 'note' or r.id % 2 = 0)`);
  }
  // The token seen once, so a read written by PostgreSQL carries its token check (one statement
  // where normal execution takes two: src/auth/carried-token-check.ts).
  await service.graphql('{ __typename }');
});
afterAll(() => service.stop());

/** The same operation forced onto normal execution: a directive on the root field is never passed through. */
function normally(document: string, root: string): string {
  let at = document.search(new RegExp(`\\b${root}\\(`)) + root.length;
  if (at < root.length) throw new Error(`${root}(…) is not in the document`);
  for (let depth = 0; at < document.length; at++) {
    if (document[at] === '(') depth++;
    if (document[at] === ')' && --depth === 0) break;
  }
  return `${document.slice(0, at + 1)} @include(if: true)${document.slice(at + 1)}`;
}

/** Answers PostgreSQL wrote so far, over every carrier, by the service's own count of its roads. */
async function postgresAnswers(): Promise<number> {
  const res = await service.get('/metrics', metricsToken);
  expect(res.status).toBe(200);
  const written = (res.text as string).matchAll(/^answers_by_road_total\{carrier="\w+",road="postgres"\} (\d+)$/gm);
  return [...written].reduce((sum, match) => sum + Number(match[1]), 0);
}

/** What `send` answered, and whether PostgreSQL wrote that answer. */
async function road<T>(send: () => Promise<T>): Promise<[T, boolean]> {
  const before = await postgresAnswers();
  const answer = await send();
  return [answer, (await postgresAnswers()) > before];
}

async function both(document: string, root: string, variables?: Record<string, unknown>, token?: string) {
  const before = await postgresAnswers();
  service.statements.reset();
  const passed = await service.graphql(document, variables, token);
  const passedStatements = service.statements.count;
  const afterPassed = await postgresAnswers();
  const passedByPostgres = afterPassed > before;
  service.statements.reset();
  const normal = await service.graphql(normally(document, root), variables, token);
  const normalStatements = service.statements.count;
  const normalByPostgres = (await postgresAnswers()) > afterPassed;
  return {
    passed,
    normal,
    passedStatements,
    normalStatements,
    passedByPostgres,
    normalByPostgres,
  };
}

const PLAIN_ORDERS = `query Orders($size: Int!) {
  list: orders(size: $size, page: 2, sort: [{ field: TOTAL, direction: DESC }]) {
  pageCount count: totalCount items { number: id total status paid email orderDate updatedAt refundPossible notes
    lineItems { id title price } } size page } }`;
const PLAIN_PRODUCTS = `{ products(size: 7, sort: [{ field: ID, direction: DESC }]) {
  items { createdAt updatedAt id title price
  comparePrice options { values title } images { maxSize path id } variants { sku id price } } totalCount } }`;

const GROUPED_ORDERS = `{ orders(size: 6, sort: [{ field: ID, direction: DESC }]) { items { id
  buyer: customer { email id last: lastName firstName } shipping { price description } payment { last4 type }
  conversion { referrer landingPage } riskLevel { zipFail ipFail cvcFail addressFail }
  lineItems { productId variant { variant id } counters { restocked shipped q: quantity fulfilled notFulfilled } }
  fulfilments { id warehouse items { quantity id } } shipments { id fulfilmentId shippingCarrier items { id quantity } }
  restocks { warehouse items { id quantity } } } } }`;
const DISPLAY_NUMBERS = '{ orders(size: 3) { items { id displayNumber } } }';
const ADDRESSES_AND_TRACKING = `{ orders(size: 40, sort: [{ field: ID, direction: ASC }]) { items { id
  address { phone billing { country zip city } shipping { firstName lastName company street suite city country
  state zip } } shipments { trackingNumber trackingUrl } number: displayNumber discounts } } }`;
const COLLECTION_MEMBERS = '{ collections(size: 5) { items { id productIds } } }';
const ORDER_METAFIELDS = `{ orders(size: 40, sort: [{ field: ID, direction: ASC }]) { items { id
  metafields { namespace key type value updatedAt } values: metafieldValues } } }`;

it.each([
  ['Q3', Q3, 'products', undefined, true],
  ['Q4', Q4, 'customers', undefined, true],
  ['orders with aliases, enums, timestamps, money and variables', PLAIN_ORDERS, 'orders', { size: 9 }, true],
  ['products with timestamps, money and text arrays', PLAIN_PRODUCTS, 'products', undefined, true],
  [
    'products with a Float and a computed list of ids',
    '{ products(size: 20) { items { id shippingWeight collectionIds tags } } }',
    'products',
    undefined,
    true,
  ],
  [
    'customers with computed lists of ids and tags',
    '{ customers(size: 20, sort: [{ field: ID, direction: DESC }]) { items { id orderIds tags } } }',
    'customers',
    undefined,
    true,
  ],
  // LineItem.counters is a field resolver whose value is declared (@Projects): built in SQL too.
  ['Q1', Q1, 'orders', undefined, true],
  ['Q1 without totalCount', Q1_WITHOUT_COUNT, 'orders', undefined, true],
  ['orders with every declared group', GROUPED_ORDERS, 'orders', undefined, true],
  // Declared as a concat of the settings row's prefix, the id and its suffix.
  ['orders with their display numbers', DISPLAY_NUMBERS, 'orders', undefined, true],
  // Embeddables (address blocks), a concat over a single relation (tracking URL), a jsonb column.
  ['orders with addresses, tracking URLs and discounts', ADDRESSES_AND_TRACKING, 'orders', undefined, true],
  // Renamed columns (`variant`, `default`) and a swatch's image, a single relation its resolver declares.
  [
    'products with variants and swatches',
    `{ products(size: 40, sort: [{ field: ID, direction: ASC }]) { items { id variants { id variant default ignore }
      options { title thumbnails { value color image { id path maxSize } } } } } }`,
    'products',
    undefined,
    true,
  ],
  // Metafields: a computed relation of rows and a computed JSON object (src/resolvers/metafield-relations.ts).
  ['orders with their metafields', ORDER_METAFIELDS, 'orders', undefined, true],
  [
    'products and variants with their metafields',
    `{ products(size: 30, sort: [{ field: ID, direction: ASC }]) { items { id metafieldValues
      variants { id metafields { key type value } metafieldValues } } } }`,
    'products',
    undefined,
    true,
  ],
  // A field with arguments picks its metafield from the row in its resolver: the normal way.
  [
    'orders with one metafield by namespace and key',
    '{ orders(size: 30) { items { id metafield(namespace: "erp", key: "doc") { value } } } }',
    'orders',
    undefined,
    false,
  ],
  // Collection.productIds evaluates rules in its own code (no @Projects): the normal way.
  ['collections with a field resolver of its own', COLLECTION_MEMBERS, 'collections', undefined, false],
])('%s answers as normal execution does', async (_, document, root, variables, passedThrough) => {
  const { passed, normal, passedStatements, normalStatements, ...roads } = await both(document, root, variables);
  expect(passed.status).toBe(200);
  expect(normal.body.errors).toBeUndefined();
  // Same values in the same key order (JSON.stringify keeps the order of the parsed text).
  expect(JSON.stringify(passed.body)).toBe(JSON.stringify(normal.body));
  expect(roads.passedByPostgres).toBe(passedThrough);
  expect(roads.normalByPostgres).toBe(false);
  expect(passedStatements).toBe(passedThrough ? normalStatements - 1 : normalStatements);
  expect(passed.headers.get('ratelimit-limit')).toBe(normal.headers.get('ratelimit-limit'));
});

it('answers an empty page, and a page past the end, as normal execution does', async () => {
  const document = `{ customers(page: 999, size: 5, filter: { lastName: ["no such name"] }) {
    totalCount pageCount items { id } } }`;
  const { passed, normal } = await both(document, 'customers');
  expect(passed.body.data.customers).toEqual({ totalCount: 0, pageCount: 0, items: [] });
  expect(JSON.stringify(passed.body)).toBe(JSON.stringify(normal.body));
});

it('keeps the root field scope, argument checks and errors of normal execution', async () => {
  const ordersOnly = await service.tokenWith(['read_orders']);
  const refused = await both(Q3, 'products', undefined, ordersOnly);
  expect(refused.passed.status).toBe(403);
  expect(refused.passed.body.errors[0].extensions.code).toBe('FORBIDDEN');
  expect(refused.passed.body).toEqual(refused.normal.body);
  // A non-null root field: no data at all.
  const nonNull = await both('{ apiTokens(size: 5) { totalCount items { id name } } }', 'apiTokens', {}, ordersOnly);
  expect(nonNull.passed.body.data).toBeNull();
  expect(nonNull.passed.body).toEqual(nonNull.normal.body);

  const tooLarge = await both('{ products(size: 251) { items { id } } }', 'products');
  expect(tooLarge.passed.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
  expect(tooLarge.passed.body).toEqual(tooLarge.normal.body);

  const missing = await both('{ orderEvents(orderId: 987654) { totalCount items { id } } }', 'orderEvents');
  expect(missing.passed.body.errors[0].extensions.code).toBe('NOT_FOUND');
  expect(missing.passed.body).toEqual(missing.normal.body);
  expect(missing.passedStatements).toBe(missing.normalStatements);

  const badVariable = await both(PLAIN_ORDERS, 'orders', { size: 'nine' });
  expect(badVariable.passed.status).toBe(400);
  expect(badVariable.passed.body).toEqual(badVariable.normal.body);
});

describe('REST lists whose shape is plain fields: items written by PostgreSQL, wrapped by the service', () => {
  it.each([
    ['/api/v1/products?size=30', true],
    ['/api/v1/products?size=30&expand=textareas,images', true],
    ['/api/v1/customers?size=30&fields=id,email,first_name,orders,tags,updated_at', true],
    ['/api/v1/orders?size=30&sort=-total&fields=id,status,paid,total,order_date,updated_at', true],
    ['/api/v1/orders?size=30&fields=id,items', true],
    // Every key of the default shapes: field resolvers with a declared value (@Projects), embeddables.
    ['/api/v1/customers?size=30', true],
    ['/api/v1/orders?size=30', true],
    ['/api/v1/orders?size=30&sort=-id&fields=id,display_number,shipments,address,customer', true],
    // Thumbnails show their colour or their image, whichever is set (`either`), and the image is a
    // single relation declared by its resolver (`{ one }`).
    ['/api/v1/products?size=30&expand=options', true],
    ['/api/v1/products?size=30&sort=-id&expand=all', true],
    // Metafields: a computed JSON object on each record, and on each variant under expand=variants.
    ['/api/v1/orders?size=30&sort=id&expand=metafields', true],
    ['/api/v1/customers?size=30&fields=id,email&expand=metafields', true],
    ['/api/v1/products?size=30&sort=id&fields=id,title&expand=metafields,variants', true],
    ['/api/v1/collections?size=30&fields=id,title&expand=metafields', true],
  ])('%s: each item is the record its own GET answers; PostgreSQL wrote them: %s', async (list, byPostgres) => {
    const [res, byPostgresNow] = await road(() => service.get(list));
    expect(res.status).toBe(200);
    expect(byPostgresNow).toBe(byPostgres);
    const { items, _meta, _links } = res.body;
    expect(items.length).toBeGreaterThan(0);
    expect(_meta.perPage).toBe(30);
    expect(res.headers.get('x-pagination-total-count')).toBe(String(_meta.totalCount));
    expect(_links.self.href).toContain('page=1');
    const [path, query] = list.split('?');
    const shape = new URLSearchParams(query);
    shape.delete('size');
    shape.delete('sort');
    for (const item of items.slice(0, 5)) {
      const one = await service.get(`${path}/${item.id}?${shape}`);
      expect(one.status).toBe(200);
      expect(JSON.stringify(item)).toBe(JSON.stringify(one.body));
    }
  });

  it('a search by metafields, with them expanded, is written by PostgreSQL too', async () => {
    const [res, byPostgres] = await road(() =>
      service.send('POST', '/api/v1/orders/search?size=100&fields=id&expand=metafields', {
        metafields: { 'erp.qty': 14 },
      }),
    );
    expect(res.status).toBe(200);
    expect(byPostgres).toBe(true);
    expect(res.body).toEqual([{ id: 2, metafields: expect.objectContaining({ 'erp.no': 'N-2', 'erp.qty': 14 }) }]);
  });

  it('a search body filters them as the search always did', async () => {
    const body = { status: [3, 4, 5], total: { gte: 20 } };
    const [res, byPostgres] = await road(() =>
      service.send('POST', '/api/v1/orders/search?size=100&sort=id&fields=id,status,total', body),
    );
    expect(res.status).toBe(200);
    expect(byPostgres).toBe(true);
    // The orders' search answers a bare array (the spec's), its facts in the pagination headers.
    const items = res.body as { id: number; status: number; total: string }[];
    const [{ n }] = await service.sql<{ n: number }>(
      'select count(*)::int as n from orders where status in (3, 4, 5) and total >= 20',
    );
    expect(res.headers.get('x-pagination-total-count')).toBe(String(n));
    expect(items.length).toBe(Math.min(n, 100));
    for (const item of items) {
      expect([3, 4, 5]).toContain(item.status);
      expect(Number(item.total)).toBeGreaterThanOrEqual(20);
    }
    expect(items.map((i) => i.id)).toEqual([...items.map((i) => i.id)].sort((a, b) => a - b));
  });
});

/** An order with fulfilments, shipments and restocks (the richest record the seed has). */
async function richOrder(): Promise<number> {
  const [row] = await service.sql<{ id: number }>(
    `select f.order_id as id from fulfilment f join shipment s on s.order_id = f.order_id
     order by (select count(*) from restock r where r.order_id = f.order_id) desc, f.order_id limit 1`,
  );
  return row.id;
}

const RECORD = `query One($id: Int!) { one: order(id: $id) { total number: id status
  customer { id lastName } lineItems { title counters { quantity shipped } }
  fulfilments { createdAt id warehouse items { id quantity } } restocks { id items { quantity } }
  shipments { fulfilmentId shippingCarrier items { quantity id } } } }`;

it.each([
  ['Q2', Q2, 'order', true],
  ['an aliased order with its records', RECORD, 'order', true],
  ['a product', '{ product(id: 3) { id title variants { id sku price } images { path } } }', 'product', true],
  ['a customer', '{ customer(id: 5) { id email firstName lastName } }', 'customer', true],
  ['a warehouse', '{ warehouse(id: 1) { id title } }', 'warehouse', true],
  ['a collection', '{ collection(id: 1) { title id } }', 'collection', true],
  [
    'a customer with its metafields',
    '{ customer(id: 5) { id metafields { key value } metafieldValues } }',
    'customer',
    true,
  ],
  ['an order with its display number', 'query N($id: Int!) { order(id: $id) { id displayNumber } }', 'order', true],
  [
    'an order with its address and tracking URLs',
    'query N($id: Int!) { order(id: $id) { address { shipping { city } phone } shipments { trackingUrl } } }',
    'order',
    true,
  ],
  // A field resolver with a value of its own code: the normal way.
  ['a collection with its members', '{ collection(id: 1) { id productIds } }', 'collection', false],
])('reads %s by id as normal execution does', async (_, document, root, passedThrough) => {
  const id = await richOrder();
  const { passed, normal, passedStatements, normalStatements, ...roads } = await both(document, root, { id });
  expect(passed.status).toBe(200);
  expect(normal.body.errors).toBeUndefined();
  expect(Object.values(normal.body.data)[0]).not.toBeNull();
  expect(JSON.stringify(passed.body)).toBe(JSON.stringify(normal.body));
  expect(roads.passedByPostgres).toBe(passedThrough);
  expect(passedStatements).toBe(passedThrough ? normalStatements - 1 : normalStatements);
});

it('answers a missing record, a refused scope and a bad id as normal execution does', async () => {
  const missing = await both(Q2, 'order', { id: 987654 });
  expect(missing.passed.body.data).toEqual({ order: null });
  expect(missing.passed.body.errors[0].extensions.code).toBe('NOT_FOUND');
  expect(JSON.stringify(missing.passed.body)).toBe(JSON.stringify(missing.normal.body));
  // The read that found nothing carried the token check all the same.
  expect(missing.passedStatements).toBe(missing.normalStatements - 1);

  const aliased = await both('{ gone: product(id: 987654) { id title } }', 'product');
  expect(aliased.passed.body.data).toEqual({ gone: null });
  expect(JSON.stringify(aliased.passed.body)).toBe(JSON.stringify(aliased.normal.body));

  const productsOnly = await service.tokenWith(['read_products']);
  const refused = await both(Q2, 'order', { id: await richOrder() }, productsOnly);
  expect(refused.passed.body.errors[0].extensions.code).toBe('FORBIDDEN');
  expect(JSON.stringify(refused.passed.body)).toBe(JSON.stringify(refused.normal.body));
  expect(refused.passed.status).toBe(refused.normal.status);

  const badId = await both(Q2, 'order', { id: 'seven' });
  expect(badId.passed.status).toBe(400);
  expect(badId.passed.body).toEqual(badId.normal.body);
});

it('executes a root field that reads its own way once, from its first request on (the event feed)', async () => {
  // The feed's object holds items, but not as an offset page: readPage never answers it. Were it
  // tried as PostgreSQL's answer first, its first request would read the feed twice.
  for (const notes of ['first', 'second']) {
    expect((await service.send('PATCH', '/api/v1/orders/1', { notes })).status).toBe(200);
  }
  // The feed shows an event once no older transaction on the server can still commit one (another
  // test file's open transaction holds it back a while): waited for with a document of its own.
  const visible = async () => (await service.graphql('{ events(size: 4) { items { id } } }')).body.data.events.items;
  await until(async () => (await visible()).length > 0, 10_000);
  const feedOnce = async (size: number) => {
    service.statements.reset();
    const res = await service.graphql(`{ events(size: ${size}) { items { id type } } }`);
    expect(res.status).toBe(200);
    expect(res.body.data.events.items.length).toBeGreaterThan(0);
    return service.statements.count;
  };
  // A document of its own (its size), sent twice: the first is as dear as the second.
  expect(await feedOnce(3)).toBe(await feedOnce(3));
});
