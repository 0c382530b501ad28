import type { RouteSpec } from '../route-spec.js';
import { API_PREFIX } from '../router.js';
import { routes } from '../routes.js';

/**
 * The OpenAPI examples, taken from the demo store: every operation is called once against a fresh
 * demo store (`npm run openapi:examples` writes them to assets/openapi-examples.json; a test calls them
 * again and compares), so the examples are real answers and cannot drift from the behaviour.
 * Requests find their records through the API itself (an order in the right status, a fulfilment
 * not yet shipped, …); writes use different orders so they do not depend on each other. A list or
 * single read without a request written here gets one generically (`readsOfTheirOwn`).
 */

/**
 * A response body as this script walks it to find the records of the next request: whatever JSON the
 * API answered (its shape is the API's own tests' business; a wrong guess here fails the script).
 */
// biome-ignore lint/suspicious/noExplicitAny: arbitrary JSON of the API's answers, read by key path
type ResponseBody = any;

/** The public URL the examples are taken under (their `Link`s and `_links` show it). */
export const EXAMPLE_BASE_URL = 'http://localhost:3000';

export interface OperationExample {
  /** The request as sent: path with ids filled in (query included), and the body. */
  request: { path: string; body?: unknown };
  status: number;
  response: unknown;
}

/** `body` as JSON, or, given as a string, as NDJSON (a bulk operation's file). */
export type CallApi = (method: string, path: string, body?: unknown) => Promise<{ status: number; body: ResponseBody }>;

/** Keyed `METHOD /path/{template}` as in the route table. */
export type Examples = Record<string, OperationExample>;

export async function collectExamples(call: CallApi): Promise<Examples> {
  const examples: Examples = {};
  const api = async (method: string, path: string, body?: unknown) => {
    const res = await call(method, `${API_PREFIX}${path}`, body);
    if (res.status >= 300)
      throw new Error(`example ${method} ${path} answered ${res.status}: ${JSON.stringify(res.body)}`);
    return res;
  };
  const record = async (key: string, path: string, body?: unknown) => {
    const [method] = key.split(' ');
    const res = await api(method, path, body);
    examples[key] = {
      request: { path: `${API_PREFIX}${path}`, ...(body === undefined ? {} : { body }) },
      status: res.status,
      response: res.body,
    };
    return res.body;
  };
  const ordersIn = async (status: number, size = 10) =>
    (await api('POST', `/orders/search?size=${size}&sort=id`, { status })).body as ResponseBody[];

  // Reads.
  await record('GET /orders', '/orders?size=2&sort=-order_date');
  await record('POST /orders/search', '/orders/search?size=1', { status: [3, 4], total: { gte: 50 } });
  const [someOrder] = await ordersIn(2, 1);
  await record('POST /orders/{id}/search', `/orders/${someOrder.id}/search`, { status: 2 });
  await record('GET /orders/{id}', `/orders/${someOrder.id}`);
  await record('GET /orders/{id}/page', `/orders/${someOrder.id}/page?size=20&sort=-total`);
  await record('GET /orders/{id}/fulfilments', `/orders/${someOrder.id}/fulfilments`);
  await record('GET /orders/{id}/shipments', `/orders/${someOrder.id}/shipments`);
  const [product] = (await record('GET /products', '/products?size=2&sort=-price')).items;
  await record('GET /products/{id}', `/products/${product.id}`);
  const [collection] = (await record('GET /collections', '/collections?size=2')).items;
  await record('GET /collections/{id}', `/collections/${collection.id}?expand=products`);
  const carriers = (await record('GET /shipping-carriers', '/shipping-carriers?size=3')).items;
  await record('GET /warehouses', '/warehouses');
  const [customer, otherCustomer] = (await record('GET /customers', '/customers?size=2')).items;
  await record('POST /customers/search', '/customers/search?size=1', { last_name: customer.last_name });
  await record('GET /customers/{id}', `/customers/${customer.id}`);
  await readsOfTheirOwn(examples, record);
  // Exports: small ones (a few keys; the orders by a search body).
  const [firstOrder, secondOrder] = (await ordersIn(2, 2)).map((order) => order.id);
  await record('GET /orders/export', '/orders/export?fields=id,status,total');
  await record('POST /orders/export', '/orders/export?fields=id,email,total', { id: [firstOrder, secondOrder] });
  await record('GET /products/export', '/products/export?fields=id,title,price');
  await record('GET /customers/export', '/customers/export?fields=id,email');
  const lastName = { last_name: customer.last_name };
  await record('POST /customers/export', '/customers/export?fields=id,email,last_name', lastName);

  // Writes, each on records of its own. Metafields need their definitions first (GraphQL only).
  await defineMetafields(call);
  const carrier = carriers.find((c: ResponseBody) => !c.is_deleted);
  const [open] = await ordersIn(0, 1);
  await record('PATCH /orders/{id}', `/orders/${open.id}`, {
    notes: 'Gift wrap, please',
    metafields: { 'erp.order_no': 'A-1017', 'erp.weight_kg': '2.5' },
  });
  await record('PATCH /orders/{id}/address', `/orders/${open.id}/address`, {
    shipping: { street: '12 Harbour Road', suite: 'Flat 3' },
    phone: '+44 117 496 0000',
  });
  await record('PATCH /orders/{id}/customer', `/orders/${open.id}/customer`, {
    id: otherCustomer.id === open.customer.id ? customer.id : otherCustomer.id,
  });

  const unfulfilled =
    (await ordersIn(0, 20)).find(
      (o) => o.id !== open.id && o.items.some((i: ResponseBody) => !i.data.track_inventory),
    ) ?? (await ordersIn(0, 2))[1];
  const line = unfulfilled.items.find((i: ResponseBody) => !i.data.track_inventory) ?? unfulfilled.items[0];
  const stocked = line.data.track_inventory ? await warehouseWithStock(api, line.data.variant.id) : undefined;
  await record('POST /orders/{id}/fulfilments', `/orders/${unfulfilled.id}/fulfilments`, {
    items: [{ id: line.data.id, quantity: 1, ...(stocked ? { warehouse: stocked } : {}) }],
  });

  const fulfilled = await ordersIn(3, 4); // every unit in a fulfilment, none shipped
  const fulfilmentOf = (order: ResponseBody) => order.fulfilments[0];
  const f0 = fulfilmentOf(fulfilled[0]);
  await record('PATCH /orders/{id}/fulfilments', `/orders/${fulfilled[0].id}/fulfilments`, [
    { id: f0.id, items: [{ id: f0.items[0].id, quantity: 1 }] },
  ]);
  const f1 = fulfilmentOf(fulfilled[1]);
  await record('PATCH /orders/{id}/fulfilments/{fulfilmentId}', `/orders/${fulfilled[1].id}/fulfilments/${f1.id}`, {
    items: [{ id: f1.items[0].id, quantity: 1 }],
  });
  await record(
    'DELETE /orders/{id}/fulfilments/{fulfilmentId}',
    `/orders/${fulfilled[2].id}/fulfilments/${fulfilmentOf(fulfilled[2]).id}`,
  );
  await record('POST /orders/{id}/shipments', `/orders/${fulfilled[3].id}/shipments`, {
    data: {
      fulfilment_id: fulfilmentOf(fulfilled[3]).id,
      tracking_number: '1Z999AA10123456784',
      shipping_carrier: carrier.id,
    },
    notify: false,
  });

  const shipped = await ordersIn(5, 3);
  await record('PATCH /orders/{id}/shipments', `/orders/${shipped[0].id}/shipments`, {
    data: [{ id: shipped[0].shipments[0].id, tracking_number: '1Z999AA10123456785' }],
  });
  await record(
    'PATCH /orders/{id}/shipments/{shipmentId}',
    `/orders/${shipped[1].id}/shipments/${shipped[1].shipments[0].id}`,
    {
      data: { tracking_number: '1Z999AA10123456786', shipping_carrier: carrier.id },
    },
  );
  const [unrestocked] = (await ordersIn(4, 10)).filter((o) => o.shipments.length && !o.restocks.length);
  await record(
    'DELETE /orders/{id}/shipments/{shipmentId}',
    `/orders/${unrestocked.id}/shipments/${unrestocked.shipments[0].id}`,
  );
  // The order just edited above now has a timeline.
  await record('GET /orders/{id}/events', `/orders/${shipped[1].id}/events?sort=id`);

  await record('PATCH /products/{id}', `/products/${product.id}`, {
    title: `${product.title} (2nd edition)`,
    tags: ['new', 'featured'],
    metafields: { 'supplier.code': 'SUP-204', 'supplier.lead_days': 12 },
  });
  // The product found by its supplier code, with its metafields; the same search as an export.
  const bySupplier = { metafields: { 'supplier.code': 'SUP-204' } };
  await record('POST /products/search', '/products/search?expand=metafields', bySupplier);
  await record('POST /products/export', '/products/export?fields=id,title&expand=metafields', bySupplier);
  await record('POST /collections', '/collections', {
    title: 'Summer picks',
    type: 0,
    seo_title: 'Summer picks',
    seo_url: 'summer-picks',
    match_products: [product.id],
  });
  await record('PATCH /collections/{id}', `/collections/${collection.id}`, {
    title: collection.title,
    type: collection.type,
    seo_title: collection.seo_title,
    seo_url: collection.seo_url,
    description: 'Hand-picked by the team',
  });
  await record('PATCH /customers/{id}', `/customers/${customer.id}`, { notes: 'Prefers e-mail' });
  // The writes above are the feed's events (the demo store is seeded without any). The feed shows an
  // event once no transaction that began before it still runs, in any database of the server
  // (docs/integrations.md#the-event-feed): wait until their count has held for a moment.
  const feedPath = '/events?types=order.*,fulfilment.created&size=2';
  await settledFeed(async () => (await api('GET', feedPath)).body._meta.totalCount as number);
  await record('GET /events', feedPath);

  // Stock: two levels of one variant adjusted, one checked against the units read; then its ledger.
  const [level] = (await api('GET', '/inventory-levels?size=1&sort=id')).body.items;
  const levels = (await api('GET', `/inventory-levels?variant_id=${level.variant_id}&sort=warehouse_id`)).body.items;
  await record('POST /inventory-levels/adjustments', '/inventory-levels/adjustments', {
    reason: 'received',
    reference: 'PO-1017',
    changes: [
      {
        variant_id: level.variant_id,
        warehouse_id: levels[0].warehouse_id,
        delta: 12,
        change_from_quantity: levels[0].quantity,
      },
      { variant_id: level.variant_id, warehouse_id: levels[1].warehouse_id, delta: -2 },
    ],
  });
  await record('GET /inventory-levels', `/inventory-levels?variant_id=${level.variant_id}&sort=warehouse_id`);
  await record('GET /inventory-movements', `/inventory-movements?variant_id=${level.variant_id}&size=3`);
  // A bulk operation, which stays created (the examples' service runs none), so it can be canceled.
  const file = [
    { method: 'PATCH', path: `/orders/${open.id}`, body: { notes: 'Packed by the night shift' } },
    {
      method: 'POST',
      path: `/orders/${unfulfilled.id}/fulfilments`,
      body: { items: [{ id: line.data.id, quantity: 1 }] },
    },
  ];
  const bulk = await record('POST /bulk-operations', '/bulk-operations', ndjson(file));
  await record('GET /bulk-operations', '/bulk-operations?size=2');
  await record('GET /bulk-operations/{id}', `/bulk-operations/${bulk.id}`);
  await record('POST /bulk-operations/{id}/cancel', `/bulk-operations/${bulk.id}/cancel`);
  // Last, as it rewrites what the examples above show of the person: a customer with orders, erased.
  const used = new Set([customer.id, otherCustomer.id, open.customer.id]);
  const erased = (await ordersIn(5, 20)).find((o) => !used.has(o.customer.id))!.customer.id;
  await record('POST /customers/{id}/erase', `/customers/${erased}/erase`);
  return examples;
}

/** The metafield definitions the examples set values of (they exist only through GraphQL). */
async function defineMetafields(call: CallApi): Promise<void> {
  const definitions = [
    ['ORDER', 'erp', 'order_no', 'single_line_text_field', 'ERP order number'],
    ['ORDER', 'erp', 'weight_kg', 'number_decimal', 'Weight in kg'],
    ['PRODUCT', 'supplier', 'code', 'single_line_text_field', "The supplier's code"],
    ['PRODUCT', 'supplier', 'lead_days', 'number_integer', 'Days from order to delivery'],
  ];
  for (const [ownerType, namespace, key, type, name] of definitions) {
    const res = await call('POST', '/graphql', {
      query: `mutation ($o: MetafieldOwnerType!, $n: String!, $k: String!, $t: String!, $name: String!) {
        createMetafieldDefinition(ownerType: $o, namespace: $n, key: $k, type: $t, name: $name) { id } }`,
      variables: { o: ownerType, n: namespace, k: key, t: type, name },
    });
    if (res.status !== 200 || res.body.errors) throw new Error(`metafield definition: ${JSON.stringify(res.body)}`);
  }
}

/** Lines of NDJSON: each value on its line. */
const ndjson = (lines: unknown[]) => `${lines.map((line) => JSON.stringify(line)).join('\n')}\n`;

async function warehouseWithStock(
  api: (m: string, p: string) => Promise<{ body: ResponseBody }>,
  variantId: number,
): Promise<number | undefined> {
  const warehouses = (await api('GET', '/warehouses?expand=stock')).body.items as {
    id: number;
    stock: { variant_id: number; quantity: number }[];
  }[];
  return warehouses.find((w) => w.stock.some((s) => s.variant_id === variantId && s.quantity > 0))?.id;
}

/** `GET /suppliers` → `/suppliers/{id}`: the single read of a list's records. */
export const singleReadOf = (list: RouteSpec) =>
  routes.find((r) => r.kind === 'get' && r.resource === list.resource && r.path === `${list.path}/{id}`);

/**
 * The examples of the reads that have no request of their own above, before any write changes the
 * store: a list without path parameters shows its first page of 2 (`?size=2`), and its single read
 * `/…/{id}` the first record of that page. A list whose table the demo store leaves empty shows the
 * empty page; its single read then has no record to show and goes without an example
 * (test/openapi-examples.test.ts allows exactly that). Any other route needs a request above.
 */
/** Waits (at most 10 s) until the feed's count is above 0 and has not changed for half a second. */
async function settledFeed(count: () => Promise<number>): Promise<void> {
  let last = -1;
  let since = Date.now();
  for (const end = Date.now() + 10_000; Date.now() < end; ) {
    const now = await count();
    if (now !== last) [last, since] = [now, Date.now()];
    else if (now > 0 && Date.now() - since >= 500) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function readsOfTheirOwn(
  examples: Examples,
  record: (key: string, path: string) => Promise<ResponseBody>,
): Promise<void> {
  for (const list of routes) {
    if (list.kind !== 'list' || list.path.includes('{')) continue;
    const listKey = `${list.method} ${list.path}`;
    const page = examples[listKey]?.response ?? (await record(listKey, `${list.path}?size=2`));
    const read = singleReadOf(list);
    const [first] = (page as { items: { id: number }[] }).items;
    if (read && first && !examples[`${read.method} ${read.path}`])
      await record(`${read.method} ${read.path}`, `${list.path}/${first.id}`);
  }
}
