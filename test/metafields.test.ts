// Metafields (docs/decisions.md#custom-data-metafields): typed custom values on orders, customers,
// products, variants and collections, defined per owner type, set and deleted in GraphQL and REST,
// found by exact value, and followed by versions (ETags), events and exports.
process.env.WEBHOOK_ALLOW_PRIVATE_TARGETS = 'true';

import { METAFIELD_TYPES } from '../src/domain/metafield-types.js';
import { startTestService, type TestService } from './support/harness.js';

let service: TestService;
beforeAll(async () => {
  // Bulk operations run here too (a PATCH line sets metafields as its request does).
  service = await startTestService({ bulk: { pollMs: 50 } });
});
afterAll(() => service.stop());

const DEFINE = `mutation Define($ownerType: MetafieldOwnerType!, $namespace: String!, $key: String!, $type: String!,
  $name: String! = "A field", $description: String) {
  createMetafieldDefinition(ownerType: $ownerType, namespace: $namespace, key: $key, type: $type, name: $name,
    description: $description) { id ownerType namespace key type name description createdAt }
}`;
const SET = `mutation Set($metafields: [MetafieldsSetInput!]!) {
  metafieldsSet(metafields: $metafields) { namespace key type value updatedAt }
}`;
const DELETE = `mutation Delete($metafields: [MetafieldIdentifierInput!]!) {
  metafieldsDelete(metafields: $metafields) { ownerType ownerId namespace key }
}`;

interface Entry {
  ownerType: string;
  ownerId: number;
  namespace: string;
  key: string;
  value: string;
  expectedVersion?: number | number[];
}

async function graphql(query: string, variables?: Record<string, unknown>, token?: string) {
  const res = await service.graphql(query, variables, token);
  if (res.body.errors) throw new Error(JSON.stringify(res.body.errors));
  return res.body.data;
}

async function define(ownerType: string, namespace: string, key: string, type: string, token?: string) {
  const data = await graphql(DEFINE, { ownerType, namespace, key, type }, token);
  return data.createMetafieldDefinition as { id: number; type: string };
}

const set = (metafields: Entry[], token?: string) => service.graphql(SET, { metafields }, token);

/** The errors of a refused call: code, and each field error as `field: message`. */
function refusal(res: { body: any }) {
  const [error] = res.body.errors;
  return {
    code: error.extensions.code,
    fields: (error.extensions.fields ?? []) as { field: string; message: string }[],
  };
}

/** The versions of an order and a product (`[order, product]` ids as parameters). */
const VERSIONS =
  'select (select version from orders where id = ?) as order, (select version from product where id = ?) as product';

const valuesOf = async (column: string, id: number) =>
  service.sql<{ namespace: string; key: string; value: string }>(
    `select namespace, key, value from metafield where ${column} = ? order by namespace, key`,
    [id],
  );

let ids: { order: number; customer: number; product: number; variant: number; collection: number };
beforeAll(async () => {
  const [row] = await service.sql<typeof ids>(
    `select (select min(id) from orders) as order, (select min(id) from customer where erased_at is null) as customer,
      (select min(product_id) from product_variant) as product,
      (select min(id) from product_variant where product_id = (select min(product_id) from product_variant)) as variant,
      (select min(id) from collection) as collection`,
  );
  ids = row;
});

describe('definitions', () => {
  it('are made per owner type, listed by namespace and key, and unique per owner type', async () => {
    const made = await graphql(DEFINE, {
      ownerType: 'PRODUCT',
      namespace: 'supplier',
      key: 'code',
      type: 'single_line_text_field',
      name: 'Supplier code',
      description: "The supplier's own code",
    });
    expect(made.createMetafieldDefinition).toMatchObject({
      ownerType: 'PRODUCT',
      namespace: 'supplier',
      key: 'code',
      type: 'single_line_text_field',
      name: 'Supplier code',
      description: "The supplier's own code",
    });
    await define('PRODUCT', 'supplier', 'lead_days', 'number_integer');
    await define('PRODUCT', 'a-first', 'x', 'boolean');
    // The same namespace and key on another owner type is another definition.
    await define('COLLECTION', 'supplier', 'code', 'single_line_text_field');
    const listed = await graphql('{ metafieldDefinitions(ownerType: PRODUCT) { namespace key type } }');
    expect(listed.metafieldDefinitions).toEqual([
      { namespace: 'a-first', key: 'x', type: 'boolean' },
      { namespace: 'supplier', key: 'code', type: 'single_line_text_field' },
      { namespace: 'supplier', key: 'lead_days', type: 'number_integer' },
    ]);
    const again = await service.graphql(DEFINE, {
      ownerType: 'PRODUCT',
      namespace: 'supplier',
      key: 'code',
      type: 'json',
    });
    expect(refusal(again).code).toBe('CONFLICT');
  });

  it.each([
    ['an upper-case namespace', { namespace: 'ERP' }, 'namespace'],
    ['an empty key', { key: '' }, 'key'],
    ['a key of 65 characters', { key: 'k'.repeat(65) }, 'key'],
    ['a key with a dot', { key: 'order.no' }, 'key'],
    ['an unknown type', { type: 'money' }, 'type'],
    ['a blank name', { name: '  ' }, 'name'],
  ])('refuses %s', async (_, change, field) => {
    const res = await service.graphql(DEFINE, {
      ownerType: 'ORDER',
      namespace: 'checks',
      key: 'fine',
      type: 'url',
      ...change,
    });
    expect(refusal(res)).toMatchObject({ code: 'BAD_USER_INPUT', fields: [{ field }] });
  });

  it('a namespace and key of 64 characters are accepted', async () => {
    await define('ORDER', 'n'.repeat(64), 'k'.repeat(64), 'boolean');
  });

  it('holds 250 per owner type', async () => {
    const [{ n }] = await service.sql<{ n: number }>(
      "select count(*)::int as n from metafield_definition where owner_type = 'PRODUCT_VARIANT'",
    );
    await service.sql(
      `insert into metafield_definition (owner_type, namespace, key, type, name, created_at)
       select 'PRODUCT_VARIANT', 'bulk', 'k' || i, 'boolean', 'k', now() from generate_series(1, ?) i`,
      [249 - n],
    );
    await define('PRODUCT_VARIANT', 'bulk', 'the_250th', 'boolean');
    const over = await service.graphql(DEFINE, {
      ownerType: 'PRODUCT_VARIANT',
      namespace: 'bulk',
      key: 'the_251st',
      type: 'boolean',
    });
    expect(refusal(over)).toMatchObject({ code: 'BAD_USER_INPUT', fields: [{ field: 'ownerType' }] });
    expect(refusal(over).fields[0].message).toContain('250');
    // Another owner type is not counted with it.
    await define('COLLECTION', 'bulk', 'the_251st', 'boolean');
    await service.sql("delete from metafield_definition where owner_type = 'PRODUCT_VARIANT' and namespace = 'bulk'");
  });

  it('are read under the owner type’s read scope and written under its write scope', async () => {
    const readOrders = await service.tokenWith(['read_orders']);
    const writeOrders = await service.tokenWith(['read_orders', 'write_orders']);
    const listed = await service.graphql('{ metafieldDefinitions(ownerType: ORDER) { key } }', undefined, readOrders);
    expect(listed.body.errors).toBeUndefined();
    const products = await service.graphql(
      '{ metafieldDefinitions(ownerType: PRODUCT_VARIANT) { key } }',
      undefined,
      readOrders,
    );
    expect(refusal(products).code).toBe('FORBIDDEN');
    expect(products.body.errors[0].message).toContain('read_products');
    const made = await service.graphql(
      DEFINE,
      { ownerType: 'ORDER', namespace: 'scoped', key: 'a', type: 'boolean' },
      readOrders,
    );
    expect(refusal(made).code).toBe('FORBIDDEN');
    const allowed = await service.graphql(
      DEFINE,
      { ownerType: 'ORDER', namespace: 'scoped', key: 'a', type: 'boolean' },
      writeOrders,
    );
    expect(allowed.body.errors).toBeUndefined();
    const customers = await service.graphql(
      DEFINE,
      { ownerType: 'CUSTOMER', namespace: 'scoped', key: 'a', type: 'boolean' },
      writeOrders,
    );
    expect(refusal(customers).code).toBe('FORBIDDEN');
    const id = allowed.body.data.createMetafieldDefinition.id;
    const deleteDoc = 'mutation ($id: Int!) { deleteMetafieldDefinition(id: $id) }';
    // A token that may not even list order definitions cannot tell this one from a missing one.
    const productsWriter = await service.tokenWith(['write_products']);
    expect(refusal(await service.graphql(deleteDoc, { id }, productsWriter)).code).toBe('NOT_FOUND');
    expect(refusal(await service.graphql(deleteDoc, { id: 999_999 }, productsWriter)).code).toBe('NOT_FOUND');
    expect(refusal(await service.graphql(deleteDoc, { id }, readOrders)).code).toBe('FORBIDDEN');
    expect((await service.graphql(deleteDoc, { id }, writeOrders)).body.data.deleteMetafieldDefinition).toBe(id);
    expect(refusal(await service.graphql(deleteDoc, { id }, writeOrders)).code).toBe('NOT_FOUND');
  });

  it('knows the types the database holds', async () => {
    const [{ check }] = await service.sql<{ check: string }>(
      "select pg_get_constraintdef(oid) as check from pg_constraint where conname = 'metafield_definition_type_valid'",
    );
    for (const type of METAFIELD_TYPES) expect(check).toContain(`'${type}'`);
  });
});

/** Every type: values accepted (with the text they are kept as, and REST's typed value), and values refused. */
const TYPES: [type: string, accepted: [given: string, stored: string, rest: unknown][], refused: string[]][] = [
  [
    'single_line_text_field',
    [
      ['A-1017', 'A-1017', 'A-1017'],
      ['  spaced ünïcode ✓ ', '  spaced ünïcode ✓ ', '  spaced ünïcode ✓ '],
    ],
    ['', '   ', 'two\nlines', 'carriage\rreturn'],
  ],
  ['multi_line_text_field', [['two\nlines', 'two\nlines', 'two\nlines']], ['', ' \n ']],
  [
    'number_integer',
    [
      ['42', '42', 42],
      ['-007', '-7', -7],
      ['+12', '12', 12],
      ['9007199254740991', '9007199254740991', 9007199254740991],
    ],
    ['4.2', '1e3', 'forty', '', '9007199254740992', ' 42'],
  ],
  [
    'number_decimal',
    [
      ['12.50', '12.5', '12.5'],
      ['0012', '12', '12'],
      ['-0.000', '0', '0'],
      ['-3.141592653', '-3.141592653', '-3.141592653'],
      ['9999999999999.999999999', '9999999999999.999999999', '9999999999999.999999999'],
    ],
    ['12,50', '.5', '1e5', 'NaN', '10000000000000', '0.1234567891', ''],
  ],
  [
    'boolean',
    [
      ['true', 'true', true],
      ['false', 'false', false],
    ],
    ['TRUE', 'yes', '1', ''],
  ],
  ['date', [['2025-02-28', '2025-02-28', '2025-02-28']], ['2025-02-30', '2025-2-3', '28/02/2025', '2025-02-28T10:00']],
  [
    'date_time',
    [
      ['2025-03-01T09:30:00Z', '2025-03-01T09:30:00Z', '2025-03-01T09:30:00Z'],
      ['2025-03-01T11:30:00+02:00', '2025-03-01T09:30:00Z', '2025-03-01T09:30:00Z'],
      ['2025-03-01T09:30', '2025-03-01T09:30:00Z', '2025-03-01T09:30:00Z'],
      ['2025-03-01T09:30:00.250Z', '2025-03-01T09:30:00.250Z', '2025-03-01T09:30:00.250Z'],
      // Python's isoformat() and Java's Instant: kept to the millisecond.
      ['2025-03-01T09:30:00.123456+00:00', '2025-03-01T09:30:00.123Z', '2025-03-01T09:30:00.123Z'],
      ['2025-03-01T09:30:00.123456789Z', '2025-03-01T09:30:00.123Z', '2025-03-01T09:30:00.123Z'],
    ],
    // A UTC year past 9999 would be shown as +010000-…, which this type refuses back.
    ['2025-03-01', '2025-03-01 09:30:00', '2025-13-01T09:30:00Z', 'yesterday', '9999-12-31T23:59:59-01:00'],
  ],
  [
    'url',
    [
      [
        'https://erp.example/orders/1017?x=1',
        'https://erp.example/orders/1017?x=1',
        'https://erp.example/orders/1017?x=1',
      ],
      ['http://localhost:8080/a', 'http://localhost:8080/a', 'http://localhost:8080/a'],
    ],
    ['ftp://erp.example/x', 'erp.example/orders', 'javascript:alert(1)', 'https://', ''],
  ],
  [
    'json',
    [
      [
        '{"b": [1, 2.5, "x"], "a": {"c": null}}',
        '{"b":[1,2.5,"x"],"a":{"c":null}}',
        { b: [1, 2.5, 'x'], a: { c: null } },
      ],
      ['"just a string"', '"just a string"', 'just a string'],
      ['[1,\n 2]', '[1,2]', [1, 2]],
    ],
    [
      '{a: 1}',
      'null',
      '',
      'undefined',
      // Escapes of what PostgreSQL cannot hold as text (the value's event is jsonb), and a whole
      // number JSON's doubles would round.
      '{"a":"\\u0000"}',
      '["\\ud800"]',
      '{"\\u0000":1}',
      '{"erp_id":12345678901234567890}',
    ],
  ],
];

describe('values of every type', () => {
  beforeAll(async () => {
    for (const [type] of TYPES) await define('CUSTOMER', 'types', type, type);
  });

  it.each(TYPES)('%s: accepted values are kept in one form, REST shows them typed', async (type, accepted) => {
    for (const [given, stored, rest] of accepted) {
      const res = await set([
        { ownerType: 'CUSTOMER', ownerId: ids.customer, namespace: 'types', key: type, value: given },
      ]);
      expect(res.body.errors).toBeUndefined();
      expect(res.body.data.metafieldsSet).toEqual([
        { namespace: 'types', key: type, type, value: stored, updatedAt: expect.any(Number) },
      ]);
      const read = await graphql(
        `query ($id: Int!) { customer(id: $id) { metafield(namespace: "types", key: "${type}") { value type }
          metafieldValues } }`,
        { id: ids.customer },
      );
      expect(read.customer.metafield).toEqual({ value: stored, type });
      expect(read.customer.metafieldValues[`types.${type}`]).toEqual(rest);
    }
  });

  it.each(TYPES)('%s: refused values name the entry and key, and change nothing', async (type, _, refused) => {
    const before = await valuesOf('customer_id', ids.customer);
    for (const value of refused) {
      const res = await set([{ ownerType: 'CUSTOMER', ownerId: ids.customer, namespace: 'types', key: type, value }]);
      const { code, fields } = refusal(res);
      expect({ value, code }).toEqual({ value, code: 'BAD_USER_INPUT' });
      expect(fields).toEqual([{ field: 'metafields[0].value', message: expect.stringContaining(`types.${type}: `) }]);
    }
    expect(await valuesOf('customer_id', ids.customer)).toEqual(before);
  });
});

describe('limits', () => {
  beforeAll(async () => {
    await define('ORDER', 'limits', 'text', 'multi_line_text_field');
  });

  it('takes a value of 64 KiB and refuses one byte more (counted in UTF-8)', async () => {
    const entry = (value: string) => ({
      ownerType: 'ORDER',
      ownerId: ids.order,
      namespace: 'limits',
      key: 'text',
      value,
    });
    expect((await set([entry('x'.repeat(65536))])).body.errors).toBeUndefined();
    const over = await set([entry('x'.repeat(65537))]);
    expect(refusal(over).fields[0].message).toContain('64 KiB');
    // 21,846 three-byte characters are 65,538 bytes.
    expect(refusal(await set([entry('€'.repeat(21846))])).code).toBe('BAD_USER_INPUT');
    expect((await set([entry('€'.repeat(21845))])).body.errors).toBeUndefined();
  });

  it('keeps at most 200 values on a record, naming the entry over the limit', async () => {
    await service.sql(
      `insert into metafield_definition (owner_type, namespace, key, type, name, created_at)
       select 'COLLECTION', 'many', 'k' || lpad(i::text, 3, '0'), 'number_integer', 'k', now()
       from generate_series(1, 201) i`,
    );
    const entry = (i: number) => ({
      ownerType: 'COLLECTION',
      ownerId: ids.collection,
      namespace: 'many',
      key: `k${String(i).padStart(3, '0')}`,
      value: String(i),
    });
    const before = (await valuesOf('collection_id', ids.collection)).length;
    for (let from = 1; from <= 200 - before; from += 25) {
      const batch = Array.from({ length: Math.min(25, 201 - before - from) }, (_, i) => entry(from + i));
      expect((await set(batch)).body.errors).toBeUndefined();
    }
    expect(await valuesOf('collection_id', ids.collection)).toHaveLength(200);
    const over = await set([entry(1), entry(201)]);
    expect(refusal(over)).toMatchObject({ code: 'BAD_USER_INPUT', fields: [{ field: 'metafields[1]' }] });
    expect(refusal(over).fields[0].message).toContain('many.k201');
    // Replacing a value keeps the count; deleting one makes room.
    expect((await set([entry(1)])).body.errors).toBeUndefined();
    const deleted = await graphql(DELETE, {
      metafields: [{ ownerType: 'COLLECTION', ownerId: ids.collection, namespace: 'many', key: 'k001' }],
    });
    expect(deleted.metafieldsDelete).toHaveLength(1);
    expect((await set([entry(201)])).body.errors).toBeUndefined();
    // At the limit, a change that adds one and deletes another keeps 200, whichever it lists first.
    const {
      id: _,
      created_at: __,
      updated_at: ___,
      ...writable
    } = (await service.get(`/api/v1/collections/${ids.collection}`)).body;
    const swapped = await service.send('PATCH', `/api/v1/collections/${ids.collection}`, {
      ...writable,
      metafields: { 'many.k001': 1, 'many.k201': null },
    });
    expect(swapped.status).toBe(200);
    expect(await valuesOf('collection_id', ids.collection)).toHaveLength(200);
    await service.sql("delete from metafield_definition where namespace = 'many'");
  });

  it('takes at most 25 entries a call', async () => {
    const entries = Array.from({ length: 26 }, () => ({
      ownerType: 'ORDER',
      ownerId: ids.order,
      namespace: 'limits',
      key: 'text',
      value: 'x',
    }));
    expect(refusal(await set(entries))).toMatchObject({ code: 'BAD_USER_INPUT', fields: [{ field: 'metafields' }] });
  });
});

describe('metafieldsSet and metafieldsDelete', () => {
  beforeAll(async () => {
    await define('ORDER', 'erp', 'order_no', 'single_line_text_field');
    await define('ORDER', 'erp', 'weight', 'number_decimal');
    await define('PRODUCT_VARIANT', 'wms', 'bin', 'single_line_text_field');
    await define('PRODUCT', 'supplier', 'moq', 'number_integer');
  });

  it('take an expected version per entry: a stale one refuses the whole call, nothing changed', async () => {
    const versionOf = async (path: string) => Number((await service.get(path)).headers.get('etag')?.replace(/\D/g, ''));
    const order = await versionOf(`/api/v1/orders/${ids.order}`);
    const product = await versionOf(`/api/v1/products/${ids.product}`);
    const entries = (orderVersion: number): Entry[] => [
      { ownerType: 'ORDER', ownerId: ids.order, namespace: 'erp', key: 'order_no', value: 'V-1' },
      {
        ownerType: 'ORDER',
        ownerId: ids.order,
        namespace: 'erp',
        key: 'weight',
        value: '1.5',
        expectedVersion: orderVersion,
      },
      // A variant's version is its product's.
      {
        ownerType: 'PRODUCT_VARIANT',
        ownerId: ids.variant,
        namespace: 'wms',
        key: 'bin',
        value: 'B-1',
        expectedVersion: [product - 1, product],
      },
    ];
    const before = await service.sql('select * from metafield order by id');
    const stale = await set(entries(order - 1));
    expect(refusal(stale).code).toBe('PRECONDITION_FAILED');
    expect(stale.body.errors[0].message).toContain(`Order ${ids.order}`);
    expect(await service.sql('select * from metafield order by id')).toEqual(before);
    const current = await set(entries(order));
    expect(current.body.errors).toBeUndefined();
    expect(await versionOf(`/api/v1/orders/${ids.order}`)).toBe(order + 1);
    const gone = await graphql(DELETE, {
      metafields: [
        { ownerType: 'ORDER', ownerId: ids.order, namespace: 'erp', key: 'order_no', expectedVersion: order },
      ],
    }).catch((error: Error) => error.message);
    expect(gone).toContain('PRECONDITION_FAILED');
  });

  it('are all or none: one bad entry refuses the call, naming its index and key', async () => {
    const before = await service.sql('select * from metafield order by id');
    const res = await set([
      { ownerType: 'ORDER', ownerId: ids.order, namespace: 'erp', key: 'order_no', value: 'A-1' },
      { ownerType: 'PRODUCT', ownerId: ids.product, namespace: 'supplier', key: 'moq', value: '12' },
      { ownerType: 'ORDER', ownerId: ids.order, namespace: 'erp', key: 'weight', value: 'heavy' },
      { ownerType: 'ORDER', ownerId: ids.order, namespace: 'erp', key: 'colour', value: 'red' },
      { ownerType: 'ORDER', ownerId: ids.order, namespace: 'erp', key: 'order_no', value: 'A-2' },
    ]);
    const { code, fields } = refusal(res);
    expect(code).toBe('BAD_USER_INPUT');
    expect(fields).toEqual([
      { field: 'metafields[2].value', message: expect.stringMatching(/^erp\.weight: must be a decimal/) },
      { field: 'metafields[3].key', message: 'erp.colour: no ORDER metafield definition' },
      { field: 'metafields[4]', message: 'erp.order_no: repeats metafields[0]' },
    ]);
    // A record that does not exist, found under the locks: also refused, after the checks above pass.
    const missing = await set([
      { ownerType: 'ORDER', ownerId: ids.order, namespace: 'erp', key: 'order_no', value: 'A-1' },
      { ownerType: 'PRODUCT_VARIANT', ownerId: 987654, namespace: 'wms', key: 'bin', value: 'B-1' },
    ]);
    expect(refusal(missing).fields).toEqual([
      { field: 'metafields[1].ownerId', message: 'ProductVariant 987654 does not exist' },
    ]);
    expect(await service.sql('select * from metafield order by id')).toEqual(before);
  });

  it('needs the write scope of every entry’s owner type', async () => {
    const ordersOnly = await service.tokenWith(['read_orders', 'write_orders', 'read_products']);
    const res = await set(
      [
        { ownerType: 'ORDER', ownerId: ids.order, namespace: 'erp', key: 'order_no', value: 'A-1' },
        { ownerType: 'PRODUCT_VARIANT', ownerId: ids.variant, namespace: 'wms', key: 'bin', value: 'B-1' },
      ],
      ordersOnly,
    );
    expect(refusal(res).code).toBe('FORBIDDEN');
    expect(res.body.errors[0].message).toContain('write_products');
    const deleted = await service.graphql(
      DELETE,
      { metafields: [{ ownerType: 'PRODUCT', ownerId: ids.product, namespace: 'supplier', key: 'moq' }] },
      ordersOnly,
    );
    expect(refusal(deleted).code).toBe('FORBIDDEN');
  });

  it('move each record’s version once, and record one event per record (a variant’s on its product)', async () => {
    const versions = async () =>
      (await service.sql<{ order: number; product: number }>(VERSIONS, [ids.order, ids.product]))[0];
    const before = await versions();
    const orderEtag = (await service.get(`/api/v1/orders/${ids.order}`)).headers.get('etag');
    const productEtag = (await service.get(`/api/v1/products/${ids.product}`)).headers.get('etag');
    const [{ last }] = await service.sql<{ last: number }>('select coalesce(max(id), 0) as last from event');
    const data = await graphql(SET, {
      metafields: [
        { ownerType: 'ORDER', ownerId: ids.order, namespace: 'erp', key: 'order_no', value: 'A-1017' },
        { ownerType: 'PRODUCT_VARIANT', ownerId: ids.variant, namespace: 'wms', key: 'bin', value: 'B-12' },
        { ownerType: 'ORDER', ownerId: ids.order, namespace: 'erp', key: 'weight', value: '2.50' },
        { ownerType: 'PRODUCT', ownerId: ids.product, namespace: 'supplier', key: 'moq', value: '12' },
      ],
    });
    expect(data.metafieldsSet.map((m: { value: string }) => m.value)).toEqual(['A-1017', 'B-12', '2.5', '12']);
    expect(await versions()).toEqual({ order: before.order + 1, product: before.product + 1 });
    expect((await service.get(`/api/v1/orders/${ids.order}`)).headers.get('etag')).not.toBe(orderEtag);
    expect((await service.get(`/api/v1/products/${ids.product}`)).headers.get('etag')).not.toBe(productEtag);
    const events = await service.sql<{
      type: string;
      subject: string;
      subject_id: number;
      order_id: number;
      data: object;
    }>('select type, subject, subject_id, order_id, data from event where id > ? order by id', [last]);
    expect(events).toEqual([
      {
        type: 'order.updated',
        subject: 'order',
        subject_id: ids.order,
        order_id: ids.order,
        data: { id: ids.order, metafields: { 'erp.order_no': 'A-1017', 'erp.weight': '2.5' } },
      },
      {
        type: 'product.updated',
        subject: 'product',
        subject_id: ids.product,
        order_id: null,
        data: {
          id: ids.product,
          metafields: { 'supplier.moq': 12 },
          variants: [{ id: ids.variant, metafields: { 'wms.bin': 'B-12' } }],
        },
      },
    ]);
    // The timeline and the feed show it, to a token that reads orders.
    const timeline = await service.get(`/api/v1/orders/${ids.order}/events?size=1&sort=-id`);
    expect(timeline.body.items[0]).toMatchObject({ type: 'order.updated', data: events[0].data });
    // Polled: another test file's open transaction on the shared cluster may hold the feed's horizon back.
    let types: string[] = [];
    for (let i = 0; i < 400 && types.length < 2; i++) {
      const feed = await service.get(`/api/v1/events?after=${last}&types=order.updated,product.updated`);
      types = feed.body.items.map((e: { type: string }) => e.type);
      if (types.length < 2) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(types).toEqual(['order.updated', 'product.updated']);
  }, 60_000);

  it('delete values, null for one that held none; a record with nothing deleted keeps its version', async () => {
    await graphql(SET, {
      metafields: [{ ownerType: 'ORDER', ownerId: ids.order, namespace: 'erp', key: 'order_no', value: 'A-9' }],
    });
    const [before] = await service.sql<{ order: number; product: number }>(VERSIONS, [ids.order, ids.product]);
    await service.sql('delete from metafield where product_id = ?', [ids.product]);
    const res = await graphql(DELETE, {
      metafields: [
        { ownerType: 'ORDER', ownerId: ids.order, namespace: 'erp', key: 'order_no' },
        { ownerType: 'PRODUCT', ownerId: ids.product, namespace: 'supplier', key: 'moq' },
      ],
    });
    expect(res.metafieldsDelete).toEqual([
      { ownerType: 'ORDER', ownerId: ids.order, namespace: 'erp', key: 'order_no' },
      null,
    ]);
    const [after] = await service.sql<{ order: number; product: number }>(VERSIONS, [ids.order, ids.product]);
    expect(after).toEqual({ order: before.order + 1, product: before.product });
    const unknown = await service.graphql(DELETE, {
      metafields: [{ ownerType: 'ORDER', ownerId: ids.order, namespace: 'erp', key: 'nope' }],
    });
    expect(refusal(unknown).fields).toEqual([
      { field: 'metafields[0].key', message: 'erp.nope: no ORDER metafield definition' },
    ]);
  });

  it('are read on every owner type in GraphQL, by namespace and key', async () => {
    await define('CUSTOMER', 'crm', 'tier', 'single_line_text_field');
    await define('COLLECTION', 'web', 'hero', 'url');
    await graphql(SET, {
      metafields: [
        { ownerType: 'ORDER', ownerId: ids.order, namespace: 'erp', key: 'weight', value: '3' },
        { ownerType: 'CUSTOMER', ownerId: ids.customer, namespace: 'crm', key: 'tier', value: 'gold' },
        { ownerType: 'PRODUCT', ownerId: ids.product, namespace: 'supplier', key: 'moq', value: '6' },
        { ownerType: 'PRODUCT_VARIANT', ownerId: ids.variant, namespace: 'wms', key: 'bin', value: 'C-3' },
        {
          ownerType: 'COLLECTION',
          ownerId: ids.collection,
          namespace: 'web',
          key: 'hero',
          value: 'https://x.example/h',
        },
      ],
    });
    const data = await graphql(
      `query ($o: Int!, $c: Int!, $p: Int!, $k: Int!) {
        order(id: $o) { metafield(namespace: "erp", key: "weight") { type value } }
        customer(id: $c) { metafields { namespace key value } }
        product(id: $p) { metafieldValues variants { id metafield(namespace: "wms", key: "bin") { value } } }
        collection(id: $k) { metafield(namespace: "web", key: "hero") { value }
          missing: metafield(namespace: "web", key: "x") { value } }
      }`,
      { o: ids.order, c: ids.customer, p: ids.product, k: ids.collection },
    );
    expect(data.order.metafield).toEqual({ type: 'number_decimal', value: '3' });
    expect(data.customer.metafields).toContainEqual({ namespace: 'crm', key: 'tier', value: 'gold' });
    expect(data.product.metafieldValues).toEqual({ 'supplier.moq': 6 });
    expect(data.product.variants.find((v: { id: number }) => v.id === ids.variant).metafield).toEqual({ value: 'C-3' });
    expect(data.collection).toEqual({ metafield: { value: 'https://x.example/h' }, missing: null });
  });
});

describe('deleting a definition', () => {
  it('removes its values, moves each holder’s version and records an event per holder', async () => {
    const definition = await define('ORDER', 'gone', 'soon', 'number_integer');
    const [a, b] = (await service.sql<{ id: number }>('select id from orders order by id desc limit 2')).map(
      (r) => r.id,
    );
    await graphql(SET, {
      metafields: [
        { ownerType: 'ORDER', ownerId: a, namespace: 'gone', key: 'soon', value: '1' },
        { ownerType: 'ORDER', ownerId: b, namespace: 'gone', key: 'soon', value: '2' },
      ],
    });
    const versions = async () =>
      service.sql<{ id: number; version: number }>('select id, version from orders where id in (?, ?) order by id', [
        b,
        a,
      ]);
    const before = await versions();
    const [{ last }] = await service.sql<{ last: number }>('select max(id) as last from event');
    expect(await graphql('mutation ($id: Int!) { deleteMetafieldDefinition(id: $id) }', { id: definition.id })).toEqual(
      {
        deleteMetafieldDefinition: definition.id,
      },
    );
    expect(await service.sql('select * from metafield where definition_id = ?', [definition.id])).toEqual([]);
    expect(await versions()).toEqual(before.map((row) => ({ ...row, version: row.version + 1 })));
    const events = await service.sql('select type, subject_id, order_id, data from event where id > ? order by id', [
      last,
    ]);
    expect(events).toEqual(
      [b, a]
        .sort((x, y) => x - y)
        .map((id) => ({
          type: 'order.updated',
          subject_id: id,
          order_id: id,
          data: { id, metafields: { 'gone.soon': null } },
        })),
    );
    const read = await graphql('query ($id: Int!) { order(id: $id) { metafieldValues } }', { id: a });
    expect(read.order.metafieldValues).not.toHaveProperty('gone.soon');
  });

  it('of a variant’s: its products get the event, the variants under variants', async () => {
    const definition = await define('PRODUCT_VARIANT', 'gone', 'bin', 'single_line_text_field');
    await graphql(SET, {
      metafields: [{ ownerType: 'PRODUCT_VARIANT', ownerId: ids.variant, namespace: 'gone', key: 'bin', value: 'x' }],
    });
    const [{ last }] = await service.sql<{ last: number }>('select max(id) as last from event');
    await graphql('mutation ($id: Int!) { deleteMetafieldDefinition(id: $id) }', { id: definition.id });
    expect(await service.sql('select type, subject, subject_id, data from event where id > ?', [last])).toEqual([
      {
        type: 'product.updated',
        subject: 'product',
        subject_id: ids.product,
        data: { id: ids.product, variants: [{ id: ids.variant, metafields: { 'gone.bin': null } }] },
      },
    ]);
  });
  it('deleted while values are being set: no value outlives it, and no set fails with a 500', async () => {
    const definition = await define('ORDER', 'gone', 'racing', 'number_integer');
    const orders = (await service.sql<{ id: number }>('select id from orders order by id limit 30')).map((r) => r.id);
    const sets = orders.map((id) =>
      set([{ ownerType: 'ORDER', ownerId: id, namespace: 'gone', key: 'racing', value: String(id) }]),
    );
    const deleted = service.graphql('mutation ($id: Int!) { deleteMetafieldDefinition(id: $id) }', {
      id: definition.id,
    });
    const answers = await Promise.all([...sets, deleted]);
    for (const res of answers) {
      expect(res.status).toBeLessThan(500);
      if (res.body.errors) expect(['BAD_USER_INPUT', 'CONFLICT']).toContain(res.body.errors[0].extensions.code);
    }
    expect((await deleted).body.data?.deleteMetafieldDefinition).toBe(definition.id);
    expect(await service.sql('select id from metafield where definition_id = ?', [definition.id])).toEqual([]);
  });
});

describe('records deleted and customers erased', () => {
  it('a deleted record’s values go with it', async () => {
    await define('PRODUCT', 'tmp', 'code', 'single_line_text_field');
    const made = await graphql(
      'mutation { createProduct(input: { title: "Metafield carrier", price: "5.00" }) { id variants { id } } }',
    );
    const product = made.createProduct.id;
    await graphql(SET, {
      metafields: [{ ownerType: 'PRODUCT', ownerId: product, namespace: 'tmp', key: 'code', value: 'T-1' }],
    });
    await graphql('mutation ($id: Int!) { deleteProduct(id: $id) }', { id: product });
    expect(await valuesOf('product_id', product)).toEqual([]);
  });

  it('erasing a customer erases the metafields of the customer and of its orders, and from their events', async () => {
    await define('CUSTOMER', 'crm', 'nickname', 'single_line_text_field');
    await define('ORDER', 'crm', 'gift_note', 'multi_line_text_field');
    const [{ customer, order }] = await service.sql<{ customer: number; order: number }>(
      `select c.id as customer, (select min(o.id) from orders o where o.customer_id = c.id) as order from customer c
       where c.erased_at is null and exists (select 1 from orders o where o.customer_id = c.id)
       order by c.id desc limit 1`,
    );
    await graphql(SET, {
      metafields: [
        { ownerType: 'CUSTOMER', ownerId: customer, namespace: 'crm', key: 'nickname', value: 'Zebedee Quux' },
        { ownerType: 'ORDER', ownerId: order, namespace: 'crm', key: 'gift_note', value: 'For Zebedee Quux, love' },
      ],
    });
    const traces = async () =>
      Number(
        (
          await service.sql<{ n: string }>(
            `select (select count(*) from metafield where value like '%Zebedee%') +
              (select count(*) from event where data::text like '%Zebedee%') as n`,
          )
        )[0].n,
      );
    expect(await traces()).toBe(4);
    expect((await service.send('POST', `/api/v1/customers/${customer}/erase`)).status).toBe(200);
    expect(await traces()).toBe(0);
    expect(await valuesOf('customer_id', customer)).toEqual([]);
    expect(await valuesOf('order_id', order)).toEqual([]);
    // The order's event says its metafield went, as a deletion says it (null): a mirror drops it too.
    const [event] = await service.sql<{ data: { metafields?: Record<string, unknown> } }>(
      "select data from event where type = 'order.updated' and order_id = ? order by id desc limit 1",
      [order],
    );
    expect(event.data.metafields).toEqual({ 'crm.gift_note': null });
    const refused = await set([
      { ownerType: 'CUSTOMER', ownerId: customer, namespace: 'crm', key: 'nickname', value: 'again' },
    ]);
    expect(refusal(refused).code).toBe('CONFLICT');
    // Nor do its orders take them again, by either road (an ERP sync would put the person back).
    const onOrder = await set([
      { ownerType: 'ORDER', ownerId: order, namespace: 'crm', key: 'gift_note', value: 'For Zebedee Quux' },
    ]);
    expect(refusal(onOrder).code).toBe('CONFLICT');
    const patched = await service.send('PATCH', `/api/v1/orders/${order}`, {
      metafields: { 'crm.gift_note': 'For Zebedee Quux' },
    });
    expect(patched.status).toBe(409);
    expect(patched.body.errors.map((e: { field: string }) => e.field)).toEqual(['metafields']);
    expect(await traces()).toBe(0);
    // Deleting puts nothing back: a client echoing the order it read (no metafields left), or
    // deleting one, is answered as before.
    for (const metafields of [{}, { 'crm.gift_note': null }]) {
      const echoed = await service.send('PATCH', `/api/v1/orders/${order}`, { notes: 'echoed', metafields });
      expect(echoed.status).toBe(200);
    }
    // Nor does metafieldsDelete naming the erased customer (a sync clearing its keys): nothing to delete, no 409.
    const cleared = await service.graphql(DELETE, {
      metafields: [
        { ownerType: 'CUSTOMER', ownerId: customer, namespace: 'crm', key: 'nickname' },
        { ownerType: 'ORDER', ownerId: order, namespace: 'crm', key: 'gift_note' },
      ],
    });
    expect(cleared.body.errors).toBeUndefined();
    expect(cleared.body.data.metafieldsDelete).toEqual([null, null]);
  });
});

describe('REST', () => {
  let order: number;
  let other: number;
  beforeAll(async () => {
    await define('ORDER', 'sync', 'erp_no', 'single_line_text_field');
    await define('ORDER', 'sync', 'weight', 'number_decimal');
    await define('ORDER', 'sync', 'doc', 'json');
    await define('ORDER', 'sync', 'due', 'date');
    await define('CUSTOMER', 'sync', 'erp_no', 'single_line_text_field');
    await define('PRODUCT', 'sync', 'erp_no', 'single_line_text_field');
    await define('PRODUCT_VARIANT', 'sync', 'bin', 'single_line_text_field');
    await define('COLLECTION', 'sync', 'rank', 'number_integer');
    [order, other] = (await service.sql<{ id: number }>('select id from orders order by id desc limit 2')).map(
      (r) => r.id,
    );
  });

  it('PATCH takes what metafieldsSet takes: a json of many keys, a long list, 150 values at once', async () => {
    // An order of its own: the other tests of this block read `order` and `other`.
    const [{ id: holder }] = await service.sql<{ id: number }>(
      'select id from orders order by id desc offset 13 limit 1',
    );
    const wide = Object.fromEntries(Array.from({ length: 150 }, (_, i) => [`k${i}`, i]));
    const long = Array.from({ length: 1001 }, (_, i) => `SKU-${i}`);
    for (const doc of [wide, long]) {
      const res = await service.send('PATCH', `/api/v1/orders/${holder}`, { metafields: { 'sync.doc': doc } });
      expect(res.status).toBe(200);
      expect((await service.get(`/api/v1/orders/${holder}?expand=metafields`)).body.metafields['sync.doc']).toEqual(
        doc,
      );
    }
    await service.sql(
      `insert into metafield_definition (owner_type, namespace, key, type, name, created_at)
       select 'ORDER', 'wide', 'k' || i, 'number_integer', 'k', now() from generate_series(1, 201) i`,
    );
    try {
      const many = Object.fromEntries(Array.from({ length: 150 }, (_, i) => [`wide.k${i + 1}`, i]));
      const res = await service.send('PATCH', `/api/v1/orders/${holder}`, { metafields: many });
      expect(res.status).toBe(200);
      const tooMany = Object.fromEntries(Array.from({ length: 201 }, (_, i) => [`wide.k${i + 1}`, i]));
      const refused = await service.send('PATCH', `/api/v1/orders/${holder}`, { metafields: tooMany });
      expect(refused.status).toBe(422);
      expect(refused.body.errors).toEqual([{ field: 'metafields', message: 'may hold at most 200 keys' }]);
      // GraphQL takes the same map in a variable of any name (it took it only in one named $input).
      for (const name of ['input', 'patch']) {
        const update = `mutation ($${name}: OrderPatch!) { updateOrder(id: ${holder}, input: $${name}) { id } }`;
        const wide = await service.graphql(update, { [name]: { metafields: many } });
        expect({ name, errors: wide.body.errors }).toEqual({ name, errors: undefined });
      }
      // Nesting is bounded alike on both roads: 30 levels of JSON.
      const nested = (levels: number): unknown => (levels ? [nested(levels - 1)] : 1);
      const deepest = await service.send('PATCH', `/api/v1/orders/${holder}`, {
        metafields: { 'sync.doc': nested(30) },
      });
      expect(deepest.status).toBe(200);
      const deeper = await service.send('PATCH', `/api/v1/orders/${holder}`, {
        metafields: { 'sync.doc': nested(31) },
      });
      expect(deeper.status).toBe(422);
      // Any width, but not more values in all than any input holds (counted before they are walked).
      const endless = await service.send('PATCH', `/api/v1/orders/${holder}`, {
        metafields: { 'sync.doc': Array.from({ length: 25_000 }, () => 0) },
      });
      expect(endless.status).toBe(422);
      expect(endless.body.errors).toEqual([{ field: 'body', message: 'may hold at most 20000 values in all' }]);
      // Only a record's own map: a key of that name anywhere else keeps the limits.
      const elsewhere = await service.send('PATCH', `/api/v1/orders/${holder}`, {
        extra: { metafields: Object.fromEntries(Array.from({ length: 150 }, (_, i) => [`k${i}`, i])) },
      });
      expect(elsewhere.status).toBe(422);
      expect(elsewhere.body.errors[0].message).toBe('may hold at most 100 keys');
      const asText = await set([
        { ownerType: 'ORDER', ownerId: holder, namespace: 'sync', key: 'doc', value: JSON.stringify(nested(31)) },
      ]);
      expect(refusal(asText).code).toBe('BAD_USER_INPUT');
    } finally {
      await service.sql("delete from metafield_definition where namespace = 'wide'");
      await service.send('PATCH', `/api/v1/orders/${holder}`, { metafields: { 'sync.doc': null } });
    }
  });

  it('PATCH sets typed values (null deletes), moves the ETag and records order.updated', async () => {
    const before = await service.get(`/api/v1/orders/${order}`);
    const [{ last }] = await service.sql<{ last: number }>('select max(id) as last from event');
    const body = { metafields: { 'sync.erp_no': 'A-1017', 'sync.weight': 2.5, 'sync.doc': { lines: [1, 2] } } };
    const patched = await service.send('PATCH', `/api/v1/orders/${order}`, body, undefined, {
      'if-match': before.headers.get('etag')!,
    });
    expect(patched.status).toBe(200);
    expect(patched.headers.get('etag')).not.toBe(before.headers.get('etag'));
    const read = await service.get(`/api/v1/orders/${order}?fields=id&expand=metafields`);
    expect(read.body).toEqual({
      id: order,
      metafields: { 'sync.doc': { lines: [1, 2] }, 'sync.erp_no': 'A-1017', 'sync.weight': '2.5' },
    });
    expect(read.headers.get('etag')).toBe(patched.headers.get('etag'));
    // Not expanded: not there.
    expect((await service.get(`/api/v1/orders/${order}`)).body).not.toHaveProperty('metafields');
    const events = await service.sql<{ type: string; data: object }>(
      'select type, data from event where id > ? order by id',
      [last],
    );
    expect(events).toEqual([
      {
        type: 'order.updated',
        data: {
          id: order,
          metafields: { 'sync.erp_no': 'A-1017', 'sync.weight': '2.5', 'sync.doc': { lines: [1, 2] } },
        },
      },
    ]);
    const deleted = await service.send('PATCH', `/api/v1/orders/${order}`, { metafields: { 'sync.doc': null } });
    expect(deleted.status).toBe(200);
    const after = await service.get(`/api/v1/orders/${order}?fields=id&expand=metafields`);
    expect(after.body.metafields).toEqual({ 'sync.erp_no': 'A-1017', 'sync.weight': '2.5' });
    // A stale If-Match changes nothing.
    const stale = await service.send(
      'PATCH',
      `/api/v1/orders/${order}`,
      { metafields: { 'sync.doc': [1] } },
      undefined,
      {
        'if-match': before.headers.get('etag')!,
      },
    );
    expect(stale.status).toBe(412);
    expect((await service.get(`/api/v1/orders/${order}?expand=metafields`)).body.metafields).toEqual(
      after.body.metafields,
    );
  });

  it('PATCH takes a decimal sent as a small JSON number, and refuses a json id past 2^53 naming it', async () => {
    const [{ id: other }] = await service.sql<{ id: number }>(
      'select id from orders order by id desc offset 9 limit 1',
    );
    const res = await service.send('PATCH', `/api/v1/orders/${other}`, { metafields: { 'sync.weight': 1e-7 } });
    expect(res.status).toBe(200);
    const read = await service.get(`/api/v1/orders/${other}?fields=id&expand=metafields`);
    expect(read.body.metafields['sync.weight']).toBe('0.0000001');
    // Sent as a client's JSON text holds it: the digits past a double's precision would be lost.
    const raw = await fetch(`${service.url}/api/v1/orders/${other}`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${service.token}`, 'content-type': 'application/json' },
      body: '{"metafields":{"sync.doc":{"erp_id":12345678901234567890}}}',
    });
    expect(raw.status).toBe(422);
    expect(((await raw.json()) as { errors: unknown }).errors).toEqual([
      { field: 'metafields.sync.doc', message: expect.stringContaining('send it as a string') },
    ]);
    // A decimal of more digits than a JSON number keeps arrived rounded: refused, not kept rounded.
    const rounded = await fetch(`${service.url}/api/v1/orders/${other}`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${service.token}`, 'content-type': 'application/json' },
      body: '{"metafields":{"sync.weight":9999999999999.999}}',
    });
    expect(rounded.status).toBe(422);
    expect(((await rounded.json()) as { errors: { field: string }[] }).errors[0].field).toBe('metafields.sync.weight');
    // A json number past a double's range, as GraphQL's text sends it (JSON would write it as null,
    // a deletion's look): refused naming the entry, not kept.
    const huge = await set([{ ownerType: 'ORDER', ownerId: other, namespace: 'sync', key: 'doc', value: '[1e400]' }]);
    expect(huge.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
    expect(huge.body.errors[0].message).toContain('send it as a string');
    const read2 = await service.get(`/api/v1/orders/${other}?fields=id&expand=metafields`);
    expect(read2.body.metafields['sync.weight']).toBe('0.0000001');
  });

  it('PATCH refuses a value of another type, an unknown key and a bad name with a 422 naming each', async () => {
    const res = await service.send('PATCH', `/api/v1/orders/${order}`, {
      notes: 'kept out',
      metafields: {
        'sync.weight': 'heavy',
        'sync.colour': 'red',
        nodot: 1,
        'sync.due': '2025-02-30',
        'ERP.orderNo': 1,
      },
    });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual([
      { field: 'metafields.nodot', message: expect.stringContaining('namespace.key') },
      // A key is named as it was sent, never in REST's snake_case.
      { field: 'metafields.ERP.orderNo', message: expect.stringContaining('namespace.key') },
      { field: 'metafields.sync.weight', message: expect.stringContaining('number_decimal') },
      { field: 'metafields.sync.colour', message: expect.stringContaining('no ORDER metafield definition') },
      { field: 'metafields.sync.due', message: expect.stringContaining('date') },
    ]);
    expect((await service.get(`/api/v1/orders/${order}?fields=notes`)).body.notes).not.toBe('kept out');
  });

  it('a product or collection PATCH names a bad metafield with its other bad fields, in one 422', async () => {
    for (const [path, id] of [
      ['products', ids.product],
      ['collections', ids.collection],
    ] as const) {
      // A collection's PATCH requires title, type, seo_title and seo_url (the spec).
      const { id: _, created_at: __, updated_at: ___, ...writable } = (await service.get(`/api/v1/${path}/${id}`)).body;
      const body = path === 'collections' ? writable : {};
      const res = await service.send('PATCH', `/api/v1/${path}/${id}`, {
        ...body,
        title: '',
        metafields: { 'x.nope': 1 },
      });
      expect({ path, status: res.status }).toEqual({ path, status: 422 });
      expect(res.body.errors.map((e: { field: string }) => e.field).sort()).toEqual(['metafields.x.nope', 'title']);
    }
  });

  it('customers, products, variants and collections take them in their PATCH bodies and expand them', async () => {
    const customer = await service.send('PATCH', `/api/v1/customers/${ids.customer}`, {
      metafields: { 'sync.erp_no': 'C-7' },
    });
    expect(customer.status).toBe(200);
    expect((await service.get(`/api/v1/customers/${ids.customer}?expand=metafields`)).body.metafields).toMatchObject({
      'sync.erp_no': 'C-7',
    });
    const product = await service.send('PATCH', `/api/v1/products/${ids.product}`, {
      metafields: { 'sync.erp_no': 'P-7' },
    });
    expect(product.status).toBe(200);
    await graphql(SET, {
      metafields: [{ ownerType: 'PRODUCT_VARIANT', ownerId: ids.variant, namespace: 'sync', key: 'bin', value: 'V-7' }],
    });
    const all = await service.get(`/api/v1/products/${ids.product}?expand=all`);
    expect(all.body.metafields).toMatchObject({ 'sync.erp_no': 'P-7' });
    const variant = all.body.variants.find((v: { id: number }) => v.id === ids.variant);
    expect(variant.metafields).toMatchObject({ 'sync.bin': 'V-7' });
    // expand=variants alone keeps the spec's variants; with metafields too, they carry theirs.
    const variantsOnly = await service.get(`/api/v1/products/${ids.product}?fields=id&expand=variants`);
    for (const v of variantsOnly.body.variants) expect(v).not.toHaveProperty('metafields');
    const both = await service.get(`/api/v1/products/${ids.product}?fields=id&expand=variants,metafields`);
    expect(both.body.variants.find((v: { id: number }) => v.id === ids.variant).metafields).toEqual(variant.metafields);
    const collection = (await service.get(`/api/v1/collections/${ids.collection}`)).body;
    const { id: _, created_at: __, updated_at: ___, images, ...writable } = collection;
    const put = await service.send('PATCH', `/api/v1/collections/${ids.collection}`, {
      ...writable,
      images,
      metafields: { 'sync.rank': 3 },
    });
    expect(put.status).toBe(200);
    const expanded = await service.get(`/api/v1/collections/${ids.collection}?expand=metafields`);
    expect(expanded.body.metafields).toMatchObject({ 'sync.rank': 3 });
    const [{ data }] = await service.sql<{ data: object }>(
      "select data from event where type = 'collection.updated' order by id desc limit 1",
    );
    expect(data).toMatchObject({ id: ids.collection, metafields: { 'sync.rank': 3 } });
  });

  it('a product body sets its variants’ metafields too, on create and on PATCH, naming a bad one', async () => {
    // Created through GraphQL (REST has no product create), whose input is the same.
    const created = await graphql('mutation ($input: ProductCreate!) { createProduct(input: $input) { id } }', {
      input: { title: 'Binned', variants: [{ variant: [], price: '5.00', metafields: { 'sync.bin': 'B-1' } }] },
    });
    const id = created.createProduct.id as number;
    const variantsOf = async () =>
      (await service.get(`/api/v1/products/${id}?fields=id&expand=variants,metafields`)).body.variants;
    const [variant] = await variantsOf();
    expect(variant.metafields).toEqual({ 'sync.bin': 'B-1' });
    const patched = await service.send('PATCH', `/api/v1/products/${id}`, {
      variants: [{ variant: [], price: '6.00', metafields: { 'sync.bin': 'B-2' } }],
    });
    expect(patched.status).toBe(200);
    expect(await variantsOf()).toEqual([
      expect.objectContaining({ id: variant.id, metafields: { 'sync.bin': 'B-2' } }),
    ]);
    const [{ data }] = await service.sql<{ data: { variants: unknown[] } }>(
      "select data from event where type = 'product.updated' and subject_id = ? order by id desc limit 1",
      [id],
    );
    expect(data.variants).toEqual([expect.objectContaining({ id: variant.id, metafields: { 'sync.bin': 'B-2' } })]);
    const refused = await service.send('PATCH', `/api/v1/products/${id}`, {
      title: 'Not kept',
      variants: [{ variant: [], price: '7.00', metafields: { 'sync.nope': 'x' } }],
    });
    expect(refused.status).toBe(422);
    expect(refused.body.errors).toEqual([
      { field: 'variants[0].metafields.sync.nope', message: expect.stringContaining('no PRODUCT_VARIANT metafield') },
    ]);
    expect((await service.get(`/api/v1/products/${id}?fields=title`)).body.title).toBe('Binned');
  });

  it('lists expand them, and a record without any shows {}', async () => {
    const res = await service.get(`/api/v1/orders?sort=-id&size=3&fields=id&expand=metafields`);
    expect(res.status).toBe(200);
    expect(res.body.items[0]).toEqual({ id: order, metafields: expect.objectContaining({ 'sync.erp_no': 'A-1017' }) });
    expect(res.body.items.find((item: { id: number }) => item.id === other).metafields).toEqual({});
  });

  describe('search', () => {
    beforeAll(async () => {
      await graphql(SET, {
        metafields: [
          { ownerType: 'ORDER', ownerId: other, namespace: 'sync', key: 'erp_no', value: 'A-2000' },
          { ownerType: 'ORDER', ownerId: other, namespace: 'sync', key: 'weight', value: '2.5' },
        ],
      });
    });

    const search = (body: object, path = '/api/v1/orders/search?fields=id') => service.send('POST', path, body);

    it('finds orders by exact values, all keys matching, a decimal in any of its forms', async () => {
      expect((await search({ metafields: { 'sync.erp_no': 'A-1017' } })).body).toEqual([{ id: order }]);
      expect((await search({ metafields: { 'sync.erp_no': 'A-10' } })).body).toEqual([]);
      const byWeight = await search({ metafields: { 'sync.weight': '2.50' } });
      expect(byWeight.body.map((o: { id: number }) => o.id).sort()).toEqual([order, other].sort());
      expect((await search({ metafields: { 'sync.weight': 2.5, 'sync.erp_no': 'A-2000' } })).body).toEqual([
        { id: other },
      ]);
      expect((await search({ metafields: { 'sync.weight': 2.5 }, id: [order] })).body).toEqual([{ id: order }]);
      expect((await search({ metafields: { 'sync.weight': 3 } })).body).toEqual([]);
    });

    it('takes an array of values as any of them, as every search filter does', async () => {
      const both = await search({ metafields: { 'sync.erp_no': ['A-1017', 'A-2000', 'A-0'] } });
      expect(both.status).toBe(200);
      expect(both.body.map((o: { id: number }) => o.id).sort()).toEqual([order, other].sort());
      const weights = await search({ metafields: { 'sync.weight': ['2.50', 7] }, id: [other] });
      expect(weights.body).toEqual([{ id: other }]);
      const wrong = await search({ metafields: { 'sync.weight': ['2.5', 'heavy'] } });
      expect(wrong.status).toBe(422);
      expect(wrong.body.errors.map((e: { field: string }) => e.field)).toEqual(['metafields.sync.weight']);
      expect((await search({ metafields: { 'sync.erp_no': [] } })).status).toBe(422);
    });

    it('finds a json value as REST shows it, a string that reads as JSON included', async () => {
      const [{ id: holder }] = await service.sql<{ id: number }>(
        'select id from orders order by id desc offset 11 limit 1',
      );
      for (const doc of ['12', 'true', { n: 12 }]) {
        const patched = await service.send('PATCH', `/api/v1/orders/${holder}`, { metafields: { 'sync.doc': doc } });
        expect(patched.status).toBe(200);
        const found = await search({ metafields: { 'sync.doc': doc } });
        expect({ doc, found: found.body }).toEqual({ doc, found: [{ id: holder }] });
      }
      // The string "12" is not the number 12.
      expect((await search({ metafields: { 'sync.doc': 12 } })).body).toEqual([]);
      // GraphQL's filter takes the text (Metafield.value's form) or the typed value, one of the two.
      const both = await service.graphql(
        `{ orders(filter: { metafields: [{ namespace: "sync", key: "doc", value: "12", typedValue: 12 }] }) {
          items { id } } }`,
      );
      expect(both.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
      const typed = await graphql(
        '{ orders(filter: { metafields: [{ namespace: "sync", key: "doc", typedValue: {n: 12} }] }) { items { id } } }',
      );
      expect(typed.orders.items).toEqual([{ id: holder }]);
    });

    it('takes the keys as nested objects or dotted keys, alike, as every nested filter', async () => {
      for (const body of [
        { metafields: { sync: { erp_no: 'A-2000', weight: '2.5' } } },
        { 'metafields.sync.erp_no': 'A-2000', 'metafields.sync.weight': 2.5 },
        { 'metafields.sync': { erp_no: 'A-2000' }, metafields: { 'sync.weight': '2.50' } },
      ]) {
        const res = await search(body);
        expect({ body, status: res.status, found: res.body }).toEqual({ body, status: 200, found: [{ id: other }] });
      }
      const twice = await search({ 'metafields.sync.erp_no': 'A-2000', metafields: { sync: { erp_no: 'A-1017' } } });
      expect(twice.status).toBe(422);
      expect(twice.body.errors).toEqual([
        { field: 'metafields.sync.erp_no', message: expect.stringContaining('twice') },
      ]);
    });

    it('refuses an unknown key or a value its type cannot hold, naming it', async () => {
      const res = await search({ metafields: { 'sync.nope': 'x', 'sync.weight': 'heavy' } });
      expect(res.status).toBe(422);
      expect(res.body.errors.map((e: { field: string }) => e.field)).toEqual([
        'metafields.sync.nope',
        'metafields.sync.weight',
      ]);
      expect((await search({ metafields: 'A-1017' })).status).toBe(422);
      expect((await search({ metafields: { 'sync.erp_no': null } })).status).toBe(422);
    });

    it('finds customers and products; GraphQL list filters take [{namespace, key, value}]', async () => {
      const customers = await search({ metafields: { 'sync.erp_no': 'C-7' } }, '/api/v1/customers/search?fields=id');
      expect(customers.body.items).toEqual([{ id: ids.customer }]);
      const products = await search({ metafields: { 'sync.erp_no': 'P-7' } }, '/api/v1/products/search?fields=id');
      expect(products.status).toBe(200);
      expect(products.body.items).toEqual([{ id: ids.product }]);
      const data = await graphql(
        `query ($m: [MetafieldFilter!]) { orders(filter: { metafields: $m }) { totalCount items { id } }
          products(filter: { metafields: [{ namespace: "sync", key: "erp_no", value: "P-7" }] }) { items { id } } }`,
        {
          m: [
            { namespace: 'sync', key: 'weight', value: '2.500' },
            { namespace: 'sync', key: 'erp_no', value: 'A-1017' },
          ],
        },
      );
      expect(data.orders).toEqual({ totalCount: 1, items: [{ id: order }] });
      expect(data.products.items).toEqual([{ id: ids.product }]);
      const refused = await service.graphql(
        '{ customers(filter: { metafields: [{ namespace: "sync", key: "nope", value: "x" }] }) { totalCount } }',
      );
      expect(refusal(refused)).toEqual({
        code: 'BAD_USER_INPUT',
        fields: [{ field: 'metafields.sync.nope', message: expect.any(String) }],
      });
    });

    it('is one statement on the orders, through the metafield index', async () => {
      service.statements.reset();
      await search({ metafields: { 'sync.erp_no': 'A-1017' } });
      const reads = service.statements.texts.filter((text) => /from "orders"|from orders/.test(text));
      expect(reads).toHaveLength(1);
      // Values bound: the md5 of the value, computed by the service, meets the (definition, value_hash) index.
      expect(reads[0]).toMatch(/"value_hash" = \$\d+ and "m1"\."value" = \$\d+/);
    });
  });

  it('exports carry them under expand=metafields, and a search body filters the export', async () => {
    const res = await service.send('POST', '/api/v1/orders/export?fields=id&expand=metafields', {
      metafields: { 'sync.weight': '2.5' },
    });
    expect(res.status).toBe(200);
    const lines = res.text
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines.slice(0, -1).sort((a, b) => a.id - b.id)).toEqual(
      [
        { id: other, metafields: { 'sync.erp_no': 'A-2000', 'sync.weight': '2.5' } },
        { id: order, metafields: { 'sync.erp_no': 'A-1017', 'sync.weight': '2.5' } },
      ].sort((a, b) => a.id - b.id),
    );
    expect(lines.at(-1)).toEqual({ complete: true, count: 2 });
    const all = await service.get('/api/v1/products/export?fields=id&expand=metafields,variants');
    const product = all.text
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line))
      .find((p) => p.id === ids.product);
    expect(product.metafields).toMatchObject({ 'sync.erp_no': 'P-7' });
    expect(product.variants.find((v: { id: number }) => v.id === ids.variant).metafields).toMatchObject({
      'sync.bin': 'V-7',
    });
  });

  it('a bulk operation sets them, a line per PATCH, each as its request would', async () => {
    const lines = [
      { method: 'PATCH', path: `/orders/${other}`, body: { metafields: { 'sync.doc': { from: 'bulk' } } } },
      { method: 'PATCH', path: `/orders/${other}`, body: { metafields: { 'sync.nope': 1 } } },
    ];
    const body = `${lines.map((line) => JSON.stringify(line)).join('\n')}\n`;
    const started = await service.send('POST', '/api/v1/bulk-operations', body, undefined, {
      'content-type': 'application/x-ndjson',
    });
    expect(started.status).toBe(202);
    let done: { status: string; failed_lines: number } | undefined;
    for (const end = Date.now() + 30_000; Date.now() < end; await new Promise((r) => setTimeout(r, 100))) {
      const op = (await service.get(`/api/v1/bulk-operations/${started.body.id}`)).body;
      if (['completed', 'failed', 'canceled'].includes(op.status)) {
        done = op;
        break;
      }
    }
    expect(done).toMatchObject({ status: 'completed', failed_lines: 1 });
    const results = (await service.get(`/api/v1/bulk-operations/${started.body.id}/results`)).text
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(results.map((r: { status: number }) => r.status)).toEqual([200, 422]);
    expect(results[1].body.errors).toEqual([{ field: 'metafields.sync.nope', message: expect.any(String) }]);
    const read = await service.get(`/api/v1/orders/${other}?fields=id&expand=metafields`);
    expect(read.body.metafields['sync.doc']).toEqual({ from: 'bulk' });
  });

  it('a webhook subscribed to order.updated is queued a delivery', async () => {
    const made = await graphql(
      `mutation ($u: String!) {
        createWebhookSubscription(url: $u, events: ["order.updated"]) { subscription { id } } }`,
      { u: 'http://127.0.0.1:9/hook' },
    );
    const subscription = made.createWebhookSubscription.subscription.id;
    await service.send('PATCH', `/api/v1/orders/${order}`, { metafields: { 'sync.erp_no': 'A-1018' } });
    const deliveries = await service.sql<{ event_type: string }>(
      'select event_type from webhook_delivery where subscription_id = ?',
      [subscription],
    );
    expect(deliveries).toEqual([{ event_type: 'order.updated' }]);
  });
});
