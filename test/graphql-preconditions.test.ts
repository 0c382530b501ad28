// Issue 15 "Preconditions are arguments" (docs/decisions.md#expected-versions): every write on a
// versioned record takes an optional `expectedVersion`, compared under the row lock. A stale one is
// refused with PRECONDITION_FAILED and changes nothing in the database; the current one goes through
// and the version moves on. REST's If-Match maps onto the same argument (conditional-requests.test.ts).

import { startTestService, type TestService } from './support/harness.js';
import { pickVariants, placeOrder, setStock } from './support/orders.js';

let service: TestService;
beforeAll(async () => {
  service = await startTestService();
});
afterAll(() => service.stop());

/** Every table a write could touch, each as a digest of its rows: equal digests, nothing changed. */
const WRITABLE = [
  'orders',
  'line_item',
  'fulfilment',
  'fulfilment_item',
  'shipment',
  'shipment_item',
  'restock',
  'restock_item',
  'inventory_level',
  'customer',
  'customer_address',
  'product',
  'product_variant',
  'product_option',
  'collection',
  'collection_product',
  'collection_rule',
  'event',
  'outbox_message',
];

async function database(): Promise<Record<string, string>> {
  // Table names come from the list above, never from input.
  const digests = WRITABLE.map(
    (t) => `(select md5(coalesce(string_agg(r::text, '|' order by r::text), '')) from "${t}" r) as "${t}"`,
  );
  const [row] = await service.sql<Record<string, string>>(`select ${digests.join(', ')}`);
  return row;
}

const TABLE_OF = { Order: 'orders', Product: 'product', Customer: 'customer', Collection: 'collection' } as const;
type Versioned = keyof typeof TABLE_OF;

async function versionOf(type: Versioned, id: number): Promise<number> {
  const [row] = await service.sql<{ version: number }>(`select version from "${TABLE_OF[type]}" where id = ?`, [id]);
  return row.version;
}

/** A mutation with `$expectedVersion: [Int!]` declared and passed; `select` is what it answers. */
async function run(mutation: string, variables: Record<string, unknown>, expectedVersion: unknown) {
  const res = await service.graphql(mutation, { ...variables, expectedVersion });
  expect(res.status).toBe(200);
  return res.body as {
    data?: Record<string, any> | null;
    errors?: { message: string; extensions: { code: string } }[];
  };
}

/**
 * The stale version (and a list of only stale ones) is refused with nothing changed; then the
 * current one goes through and the record's version moves on by one. Answers the success.
 */
async function refusedWhenStaleThenApplied(
  type: Versioned,
  id: number,
  field: string,
  mutation: string,
  variables: Record<string, unknown>,
) {
  const current = await versionOf(type, id);
  const before = await database();
  for (const stale of [current - 1, [current - 1, current + 1], []]) {
    const refused = await run(mutation, variables, stale);
    expect({ field, stale, code: refused.errors?.[0]?.extensions.code }).toEqual({
      field,
      stale,
      code: 'PRECONDITION_FAILED',
    });
    expect(refused.errors![0].message).toContain(
      `${type} ${id} has changed since it was read (its version is now ${current})`,
    );
    expect(refused.data?.[field] ?? null).toBeNull();
    expect(await database()).toEqual(before);
  }
  const applied = await run(mutation, variables, current);
  expect({ field, errors: applied.errors }).toEqual({ field, errors: undefined });
  expect(await versionOf(type, id)).toBe(current + 1);
  return applied.data![field];
}

describe('writes under an order compare with the order’s version', () => {
  const WAREHOUSE = 1;
  let order: any;
  let tracked: number;
  let untracked: number;

  beforeAll(async () => {
    const variants = await pickVariants(service);
    await setStock(service, WAREHOUSE, variants.tracked, 20);
    order = await placeOrder(service, [
      { variantId: variants.tracked, quantity: 3 },
      { variantId: variants.untracked, quantity: 2 },
    ]);
    [tracked, untracked] = order.items.map((i: any) => i.data.id);
  });

  const orderWrite = (field: string, args: string, select = 'version') => {
    const passed = [
      'orderId: $orderId',
      'expectedVersion: $expectedVersion',
      ...[...args.matchAll(/\$(\w+)/g)].map(([, a]) => `${a}: $${a}`),
    ];
    return `mutation ($orderId: Int!, $expectedVersion: [Int!]${args ? `, ${args}` : ''}) {
    ${field}(${passed.join(', ')}) { ${select} }
  }`;
  };
  // updateOrder and its siblings name the order `id`, the fulfilment and shipment writes `orderId`.
  const orderEdit = (
    field: string,
    inputType: string,
  ) => `mutation ($id: Int!, $expectedVersion: [Int!], $input: ${inputType}!) {
    ${field}(id: $id, expectedVersion: $expectedVersion, input: $input) { version notes }
  }`;

  it('updateOrder', async () => {
    const answer = await refusedWhenStaleThenApplied(
      'Order',
      order.id,
      'updateOrder',
      orderEdit('updateOrder', 'OrderPatch'),
      { id: order.id, input: { notes: 'checked' } },
    );
    expect(answer).toEqual({ version: await versionOf('Order', order.id), notes: 'checked' });
  });

  it('updateOrderAddress', async () => {
    await refusedWhenStaleThenApplied(
      'Order',
      order.id,
      'updateOrderAddress',
      orderEdit('updateOrderAddress', 'OrderAddressPatch'),
      { id: order.id, input: { shipping: { city: 'Elsewhere' } } },
    );
  });

  it('changeOrderCustomer', async () => {
    const [other] = await service.sql<{ id: number }>(
      'select id from customer where id <> (select customer_id from orders where id = ?) order by id limit 1',
      [order.id],
    );
    await refusedWhenStaleThenApplied(
      'Order',
      order.id,
      'changeOrderCustomer',
      orderEdit('changeOrderCustomer', 'OrderCustomerChange'),
      { id: order.id, input: { id: other.id } },
    );
  });

  let fulfilmentId: number;
  let shipmentId: number;

  it('createFulfilment', async () => {
    const answer = await refusedWhenStaleThenApplied(
      'Order',
      order.id,
      'createFulfilment',
      orderWrite('createFulfilment', '$input: FulfilmentCreate!', 'version fulfilments { id }'),
      {
        orderId: order.id,
        input: {
          items: [
            { id: tracked, quantity: 2, warehouse: WAREHOUSE },
            { id: untracked, quantity: 1 },
          ],
        },
      },
    );
    fulfilmentId = answer.fulfilments.at(-1).id;
  });

  it('updateFulfilments', async () => {
    await refusedWhenStaleThenApplied(
      'Order',
      order.id,
      'updateFulfilments',
      orderWrite('updateFulfilments', '$input: FulfilmentsChange!'),
      {
        orderId: order.id,
        input: { fulfilments: [{ id: fulfilmentId, items: [{ id: tracked, quantity: 3 }] }] },
      },
    );
  });

  it('updateFulfilment', async () => {
    await refusedWhenStaleThenApplied(
      'Order',
      order.id,
      'updateFulfilment',
      orderWrite('updateFulfilment', '$fulfilmentId: Int!, $input: FulfilmentPatch!'),
      {
        orderId: order.id,
        fulfilmentId,
        input: { items: [{ id: tracked, quantity: 2 }] },
      },
    );
  });

  it('createShipments', async () => {
    const answer = await refusedWhenStaleThenApplied(
      'Order',
      order.id,
      'createShipments',
      orderWrite('createShipments', '$input: ShipmentsCreate!', 'version shipments { id }'),
      {
        orderId: order.id,
        input: {
          data: [{ fulfilmentId, trackingNumber: 'T-1', shippingCarrier: 1, items: [{ id: tracked, quantity: 1 }] }],
          notify: true,
        },
      },
    );
    shipmentId = answer.shipments.at(-1).id;
  });

  it('updateShipments', async () => {
    await refusedWhenStaleThenApplied(
      'Order',
      order.id,
      'updateShipments',
      orderWrite('updateShipments', '$input: ShipmentsChange!'),
      {
        orderId: order.id,
        input: { data: [{ id: shipmentId, trackingNumber: 'T-2' }], notify: true },
      },
    );
  });

  it('updateShipment', async () => {
    await refusedWhenStaleThenApplied(
      'Order',
      order.id,
      'updateShipment',
      orderWrite('updateShipment', '$shipmentId: Int!, $input: ShipmentPatch!'),
      {
        orderId: order.id,
        shipmentId,
        input: { data: { trackingNumber: 'T-3' }, notify: true },
      },
    );
  });

  it('deleteShipment', async () => {
    const answer = await refusedWhenStaleThenApplied(
      'Order',
      order.id,
      'deleteShipment',
      orderWrite('deleteShipment', '$shipmentId: Int!', 'version shipments { id }'),
      { orderId: order.id, shipmentId },
    );
    expect(answer.shipments).toEqual([]);
  });

  it('deleteFulfilment', async () => {
    const answer = await refusedWhenStaleThenApplied(
      'Order',
      order.id,
      'deleteFulfilment',
      orderWrite('deleteFulfilment', '$fulfilmentId: Int!', 'version fulfilments { id }'),
      { orderId: order.id, fulfilmentId },
    );
    expect(answer.fulfilments).toEqual([]);
  });

  it('restockOrderItems', async () => {
    // Something shipped to take back (these writes pass no expected version: no check).
    const fulfilled = await service.graphql(
      'mutation ($o: Int!, $l: Int!) { createFulfilment(orderId: $o, ' +
        'input: { items: [{ id: $l, quantity: 1, warehouse: 1 }] }) { fulfilments { id } } }',
      { o: order.id, l: tracked },
    );
    const f = fulfilled.body.data.createFulfilment.fulfilments.at(-1).id;
    const shipped = await service.graphql(
      'mutation ($o: Int!, $f: Int!) { createShipments(orderId: $o, ' +
        'input: { data: [{ fulfilmentId: $f, trackingNumber: "T-9", shippingCarrier: 1 }] }) { id } }',
      { o: order.id, f },
    );
    expect(shipped.body.errors).toBeUndefined();
    await refusedWhenStaleThenApplied(
      'Order',
      order.id,
      'restockOrderItems',
      orderWrite('restockOrderItems', '$input: RestockInput!'),
      {
        orderId: order.id,
        input: { warehouse: WAREHOUSE, items: [{ id: tracked, quantity: 1 }] },
      },
    );
  });
});

describe('products, customers and collections compare with their own version', () => {
  it('updateProduct', async () => {
    const [{ id }] = await service.sql<{ id: number }>('select id from product order by id limit 1');
    const answer = await refusedWhenStaleThenApplied(
      'Product',
      id,
      'updateProduct',
      `mutation ($id: Int!, $expectedVersion: [Int!], $input: ProductPatch!) {
      updateProduct(id: $id, expectedVersion: $expectedVersion, input: $input) { version seoMeta }
    }`,
      { id, input: { seoMeta: 'checked' } },
    );
    expect(answer).toEqual({ version: await versionOf('Product', id), seoMeta: 'checked' });
  });

  it('updateCustomer', async () => {
    const [{ id }] = await service.sql<{ id: number }>('select id from customer order by id desc limit 1');
    const answer = await refusedWhenStaleThenApplied(
      'Customer',
      id,
      'updateCustomer',
      `mutation ($id: Int!, $expectedVersion: [Int!], $input: CustomerPatch!) {
      updateCustomer(id: $id, expectedVersion: $expectedVersion, input: $input) { version notes }
    }`,
      { id, input: { notes: 'checked' } },
    );
    expect(answer).toEqual({ version: await versionOf('Customer', id), notes: 'checked' });
  });

  it('updateCollection', async () => {
    const [p1, p2] = await service.sql<{ id: number }>('select id from product order by id limit 2');
    const created = await service.graphql(
      'mutation ($input: CollectionInput!) { createCollection(input: $input) { id version } }',
      {
        input: {
          title: 'Checked',
          type: 0,
          seoTitle: 'Checked',
          seoUrl: 'checked-preconditions',
          manualProductIds: [p1.id],
        },
      },
    );
    const { id } = created.body.data.createCollection;
    const answer = await refusedWhenStaleThenApplied(
      'Collection',
      id,
      'updateCollection',
      `mutation ($id: Int!, $expectedVersion: [Int!], $input: CollectionInput!) {
      updateCollection(id: $id, expectedVersion: $expectedVersion, input: $input) { version title manualProductIds }
    }`,
      {
        id,
        input: {
          title: 'Checked again',
          type: 0,
          seoTitle: 'Checked',
          seoUrl: 'checked-preconditions',
          manualProductIds: [p2.id, p1.id],
        },
      },
    );
    expect(answer).toEqual({
      version: await versionOf('Collection', id),
      title: 'Checked again',
      manualProductIds: [p2.id, p1.id],
    });
  });

  it('deletes refuse a stale version and keep the record; the current one deletes it', async () => {
    const customer = await service.graphql(
      'mutation { createCustomer(input: { email: "precondition.delete@example.com" }) { id version } }',
    );
    const product = await service.graphql(
      'mutation { createProduct(input: { title: "Precondition delete", price: "5.00" }) { id version } }',
    );
    const collection = await service.graphql(
      'mutation { createCollection(input: { title: "Precondition delete", type: 0, seoTitle: "x", seoUrl: "", ' +
        'manualProductIds: [1] }) { id version } }',
    );
    for (const [type, field, record] of [
      ['Customer', 'deleteCustomer', customer.body.data.createCustomer],
      ['Product', 'deleteProduct', product.body.data.createProduct],
      ['Collection', 'deleteCollection', collection.body.data.createCollection],
    ] as const) {
      const args = '(id: $id, expectedVersion: $expectedVersion)';
      const mutation = `mutation ($id: Int!, $expectedVersion: [Int!]) { ${field}${args} }`;
      const before = await database();
      const refused = await run(mutation, { id: record.id }, record.version + 1);
      expect({ field, code: refused.errors?.[0]?.extensions.code }).toEqual({ field, code: 'PRECONDITION_FAILED' });
      expect(await database()).toEqual(before);
      const deleted = await run(mutation, { id: record.id }, record.version);
      expect({ field, data: deleted.data }).toEqual({ field, data: { [field]: record.id } });
      expect(await service.sql(`select id from "${TABLE_OF[type]}" where id = ?`, [record.id])).toEqual([]);
    }
  });
});

describe('the argument', () => {
  it('takes one version as a literal, coerced to a list of one, and null or no argument means no check', async () => {
    const [{ id }] = await service.sql<{ id: number }>('select id from customer order by id limit 1');
    const version = await versionOf('Customer', id);
    const literal = (expected: string) =>
      service.graphql(
        `mutation { updateCustomer(id: ${id}, expectedVersion: ${expected}, ` +
          `input: { notes: "v${expected}" }) { version } }`,
      );
    expect((await literal(String(version - 1))).body.errors[0].extensions.code).toBe('PRECONDITION_FAILED');
    expect((await literal(String(version))).body).toEqual({
      data: { updateCustomer: { version: version + 1 } },
      extensions: expect.anything(),
    });
    expect((await literal(`[${version - 1}, ${version + 1}]`)).body.data.updateCustomer).toEqual({
      version: version + 2,
    });
    expect((await literal('null')).body.data.updateCustomer).toEqual({ version: version + 3 });
    const none = await service.graphql(`mutation { updateCustomer(id: ${id}, input: { notes: "none" }) { version } }`);
    expect(none.body.data.updateCustomer).toEqual({ version: version + 4 });
  });

  it('is described in the schema on every write of a versioned record, and only there', async () => {
    const res = await service.graphql(
      '{ __schema { mutationType { fields { name type { name ofType { name } } ' +
        'args { name description type { kind ofType { kind ofType { name } } } } } } } }',
    );
    const fields: any[] = res.body.data.__schema.mutationType.fields;
    const taking = fields
      .filter((f) => f.args.some((a: any) => a.name === 'expectedVersion'))
      .map((f) => f.name)
      .sort();
    expect(taking).toEqual([
      'changeOrderCustomer',
      'createFulfilment',
      'createShipments',
      'deleteCollection',
      'deleteCustomer',
      'deleteFulfilment',
      'deleteProduct',
      'deleteShipment',
      'eraseCustomer',
      'restockOrderItems',
      'updateCollection',
      'updateCustomer',
      'updateFulfilment',
      'updateFulfilments',
      'updateOrder',
      'updateOrderAddress',
      'updateProduct',
      'updateShipment',
      'updateShipments',
    ]);
    for (const field of fields.filter((f) => taking.includes(f.name))) {
      const arg = field.args.find((a: any) => a.name === 'expectedVersion');
      expect({ field: field.name, type: arg.type }).toEqual({
        field: field.name,
        type: { kind: 'LIST', ofType: { kind: 'NON_NULL', ofType: { name: 'Int' } } },
      });
      expect(arg.description).toMatch(/^Optimistic concurrency: .*PRECONDITION_FAILED/);
    }
  });
});

describe('REST maps If-Match onto the argument, with the semantics it had', () => {
  const patch = (id: number, notes: string, ifMatch: string) =>
    service.send('PATCH', `/api/v1/customers/${id}`, { notes }, undefined, { 'if-match': ifMatch });

  it('any listed strong ETag matches; weak, malformed or foreign tags never do; * always does', async () => {
    const [{ id }] = await service.sql<{ id: number }>('select id from customer order by id limit 1 offset 1');
    const etag = (await service.get(`/api/v1/customers/${id}`)).headers.get('etag')!;
    const version = Number(etag.slice(2, -1));
    for (const stale of [
      `W/${etag}`,
      `"v0${version}"`,
      `"${version}"`,
      `v${version}`,
      `"v99999999999999"`,
      `W/${etag}, "v0"`,
    ]) {
      const res = await patch(id, 'refused', stale);
      expect({ stale, status: res.status }).toEqual({ stale, status: 412 });
    }
    expect((await service.get(`/api/v1/customers/${id}`)).headers.get('etag')).toBe(etag);
    const listed = await patch(id, 'listed', `"v0", W/"v1", ${etag}`);
    expect(listed.status).toBe(200);
    expect(listed.headers.get('etag')).toBe(`"v${version + 1}"`);
    expect((await patch(id, 'any', '*')).status).toBe(200);
  });

  it('every write under an order moves its ETag, also when the order’s own row stays as it was', async () => {
    const variants = await pickVariants(service);
    const placed = await placeOrder(service, [{ variantId: variants.untracked, quantity: 2 }]);
    const api = (rest = '') => `/api/v1/orders/${placed.id}${rest}`;
    const fulfilled = await service.send('POST', api('/fulfilments'), {
      items: [{ id: placed.items[0].data.id, quantity: 2 }],
    });
    const shipped = await service.send('POST', api('/shipments'), {
      data: { fulfilment_id: fulfilled.body.fulfilments[0].id, tracking_number: 'A-1', shipping_carrier: 1 },
    });
    const shipment = shipped.body.shipments[0].id;
    // Same status and, within a second, the same updated_at: only the shipment's row changes.
    let etag = shipped.headers.get('etag')!;
    for (const number of ['A-2', 'A-3']) {
      const changed = await service.send(
        'PATCH',
        api(`/shipments/${shipment}`),
        { data: { tracking_number: number } },
        undefined,
        { 'if-match': etag },
      );
      expect({ number, status: changed.status }).toEqual({ number, status: 200 });
      expect(changed.headers.get('etag')).not.toBe(etag);
      const stale = await service.send(
        'PATCH',
        api(`/shipments/${shipment}`),
        { data: { tracking_number: 'lost update' } },
        undefined,
        { 'if-match': etag },
      );
      expect(stale.status).toBe(412);
      etag = changed.headers.get('etag')!;
      expect((await service.get(api(), undefined, { 'if-none-match': etag })).status).toBe(304);
    }
    expect((await service.get(api())).body.shipments[0].tracking_number).toBe('A-3');
  });
});
