// The read plan reads only the columns a selection needs (src/reads/read-plan.ts, from what each field
// resolver declares with @Reads). A field served by a field resolver must get every column it reads
// however little else is selected: each field alone answers exactly what it answers beside every column.
import { startTestService, type TestService } from './support/harness.js';

let service: TestService;
let order: number;
let shipped: number;
beforeAll(async () => {
  service = await startTestService();
  [{ id: shipped }] = await service.sql<{ id: number }>('select order_id as id from shipment order by id limit 1');
  [{ id: order }] = await service.sql<{ id: number }>(
    'select id from orders where notes is not null and phone is not null ' +
      'and payment_last4 is not null order by id limit 1',
  );
  // A restock on the shipped order, so restocks have a record to show.
  const [line] = await service.sql<{ id: number }>(
    'select id from line_item where order_id = ? and shipped > 0 order by id limit 1',
    [shipped],
  );
  const res = await service.graphql(
    'mutation ($o: Int!, $l: Int!) { restockOrderItems(orderId: $o, ' +
      'input: { warehouse: 1, items: [{ id: $l, quantity: 1 }] }) { id } }',
    { o: shipped, l: line.id },
  );
  expect(res.body.errors).toBeUndefined();
});
afterAll(() => service.stop());

/** `full` cut down to the keys of `shape` (the wider answer seen through the narrower selection). */
function shapedLike(shape: unknown, full: unknown): unknown {
  if (Array.isArray(shape) && Array.isArray(full)) return full.map((item, i) => shapedLike(shape[i] ?? shape[0], item));
  if (shape && typeof shape === 'object' && full && typeof full === 'object') {
    return Object.fromEntries(
      Object.keys(shape).map((key) => [
        key,
        shapedLike((shape as Record<string, unknown>)[key], (full as Record<string, unknown>)[key]),
      ]),
    );
  }
  return full;
}

// Every column of an order and of the records under it (selections of one field merge).
const ORDER_COLUMNS = `id email status paid discounts tax cartPrice total ip refunded
  refundPossible orderDate updatedAt notes version
  lineItems { id title isMulti type isGiftcard shippingWeight vendor autoFulfilment
    trackInventory sku price comparePrice image imageMaxSize }
  fulfilments { id createdAt updatedAt } shipments { id trackingNumber notify createdAt updatedAt }
    restocks { id createdAt }
  events { id type createdAt data }`;

const orderFields = [
  'displayNumber',
  'shipping { description price }',
  'address { phone shipping { firstName lastName company street suite city country state zip } ' +
    'billing { firstName city zip } }',
  'payment { type last4 }',
  'conversion { landingPage referrer }',
  'riskLevel { ipFail addressFail zipFail cvcFail }',
  'customer { id email firstName lastName }',
  'lineItems { productId }',
  'lineItems { variant { id variant } }',
  'lineItems { counters { quantity notFulfilled fulfilled shipped restocked } }',
  'fulfilments { warehouse items { id quantity } }',
  'shipments { fulfilmentId shippingCarrier trackingUrl items { id quantity } }',
  'restocks { warehouse items { id quantity } }',
  'events { type actor { tokenId name } }',
];

describe.each(orderFields)('Order.%s', (selection) => {
  it('answers alone as it does beside every column', async () => {
    for (const id of [order, shipped]) {
      const alone = await service.graphql(`query ($id: Int!) { order(id: $id) { ${selection} } }`, { id });
      const beside = await service.graphql(`query ($id: Int!) { order(id: $id) { ${ORDER_COLUMNS} ${selection} } }`, {
        id,
      });
      expect(alone.body.errors).toBeUndefined();
      const field = selection.split(' ')[0];
      expect(alone.body.data.order[field]).toEqual(
        shapedLike(alone.body.data.order[field], beside.body.data.order[field]),
      );
      expect(alone.body.data.order[field]).not.toBeNull();
      expect(JSON.stringify(alone.body.data)).not.toContain('undefined');
    }
  });
});

it.each([
  [
    'customer(id: 7)',
    'statistics { orderCount lifetimeSpent lastPurchase }',
    'id email firstName lastName notes createdAt updatedAt version',
  ],
  [
    'product(id: 3)',
    'variants { productId variant default price }',
    'id title type vendor sku price createdAt version',
  ],
  ['collection(id: 1)', 'productIds', 'id title type rulesMatchCondition createdAt version'],
  ['orders(size: 5, filter: { status: [SHIPPED] })', 'items { shipments { trackingUrl } }', 'totalCount'],
  ['warehouses', 'items { stock { variantId warehouseId quantity } }', 'totalCount'],
])('%s { %s } answers alone as it does beside every column', async (root, selection, columns) => {
  const [name] = root.split('(');
  const alone = await service.graphql(`{ ${root} { ${selection} } }`);
  const beside = await service.graphql(`{ ${root} { ${columns} ${selection} } }`);
  expect(alone.body.errors).toBeUndefined();
  const field = selection.split(' ')[0];
  expect(alone.body.data[name][field]).toEqual(shapedLike(alone.body.data[name][field], beside.body.data[name][field]));
});

// Plain fields are read as properties of the row (src/graphql/build-schema.ts
// readPlainFieldsAsProperties); aliases, a field named differently from its property
// (`ProductVariant.variant` is `optionValues`) and a field guarded by its own scope keep answering
// as before.
it('aliases, renamed fields and field scopes answer through property reads as through resolvers', async () => {
  const [row] = await service.sql<{ title: string; sku: string; values: string[] }>(
    'select p.title, v.sku, v.option_values as values from product p join product_variant v on v.product_id = p.id ' +
      'where p.id = 3 order by v.position, v.id limit 1',
  );
  const res = await service.graphql('{ product(id: 3) { name: title title variants { code: sku sku variant } } }');
  expect(res.body.errors).toBeUndefined();
  const product = res.body.data.product;
  expect(product).toMatchObject({ name: row.title, title: row.title });
  expect(product.variants[0]).toEqual({ code: row.sku, sku: row.sku, variant: row.values });

  const narrow = await service.tokenWith(['read_products']);
  const guarded = await service.graphql('{ product(id: 3) { title collections { id } } }', undefined, narrow);
  expect(guarded.body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
});
