// Issue 15: GraphQL and REST check a value once, where it is defined, so they agree on what is
// valid: null on a field that may only be left out, the Decimal format, and the domain's own rules
// (a price is not negative) give the same refusal on both edges, naming the field in each edge's
// names, and change nothing.
import { startTestService, type TestService } from './support/harness.js';

let service: TestService;
let productId: number;
let customerId: number;
beforeAll(async () => {
  service = await startTestService();
  [{ id: productId }] = await service.sql<{ id: number }>(
    'select id from product where not is_multi order by id limit 1',
  );
  [{ id: customerId }] = await service.sql<{ id: number }>('select id from customer order by id limit 1');
});
afterAll(() => service.stop());

const readProduct = async () => (await service.get(`/api/v1/products/${productId}?expand=all`)).body;
const gqlFields = (res: { body: any }) =>
  res.body.errors?.[0]?.extensions?.fields as { field: string; message: string }[] | undefined;

describe('null on a field that may only be left out (@Optional)', () => {
  it.each([
    ['title', 'title', 'title'],
    ['isDraft', 'is_draft', 'is_draft'],
    ['tags', 'tags', 'tags'],
    ['price', 'price', 'price'],
  ])(
    'updateProduct %s: null is a BAD_USER_INPUT naming it (was a 500), as REST %s is a 422; nothing changes',
    async (gql, rest, restField) => {
      const before = await readProduct();
      const res = await service.graphql(`mutation { updateProduct(id: ${productId}, input: { ${gql}: null }) { id } }`);
      expect(res.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
      expect(gqlFields(res)).toEqual([{ field: gql, message: 'must not be null (leave it out instead)' }]);
      const patched = await service.send('PATCH', `/api/v1/products/${productId}`, { [rest]: null });
      expect(patched.status).toBe(422);
      expect(patched.body.errors.map((e: { field: string }) => e.field)).toEqual([restField]);
      expect(await readProduct()).toEqual(before);
    },
  );

  it('names nested fields by their path (GraphQL) and refuses createProduct nulls too', async () => {
    const nested = await service.graphql(
      `mutation { updateProduct(id: ${productId}, ` +
        `input: { variants: [{ variant: [], price: "1", sku: null }] }) { id } }`,
    );
    expect(gqlFields(nested)).toEqual([{ field: 'variants[0].sku', message: expect.any(String) }]);
    const created = await service.graphql(
      'mutation { createProduct(input: { title: "Null draft", isDraft: null }) { id } }',
    );
    expect(gqlFields(created)).toEqual([{ field: 'isDraft', message: expect.any(String) }]);
    expect(await service.sql("select id from product where title = 'Null draft'")).toEqual([]);
  });

  it('still takes null where null clears (notes, vendor, compare price) on both edges', async () => {
    const gql = await service.graphql(
      `mutation { updateCustomer(id: ${customerId}, input: { notes: null }) { notes } }`,
    );
    expect(gql.body.data.updateCustomer.notes).toBeNull();
    const rest = await service.send('PATCH', `/api/v1/products/${productId}`, { vendor: null, compare_price: null });
    expect(rest.status).toBe(200);
    expect(rest.body).toMatchObject({ vendor: null, compare_price: null });
  });
});

describe('money: the Decimal scalar owns the format, the domain the sign', () => {
  it('refuses more than two decimals on both edges, by the same scalar', async () => {
    const before = await readProduct();
    const gql = await service.graphql(
      `mutation ($price: Decimal) { updateProduct(id: ${productId}, input: { price: $price }) { id } }`,
      { price: 1.234 },
    );
    expect(gql.body.errors[0]).toMatchObject({
      message: expect.stringContaining('at most 2 decimals and 10 digits before the point'),
      extensions: { code: 'BAD_USER_INPUT' },
    });
    const rest = await service.send('PATCH', `/api/v1/products/${productId}`, { price: 1.234 });
    expect(rest.status).toBe(422);
    expect(rest.body.errors).toEqual([
      { field: 'price', message: expect.stringContaining('at most 2 decimals and 10 digits before the point') },
    ]);
    expect(await readProduct()).toEqual(before);
  });

  it("refuses a negative price with the domain's words on both edges, naming price and variants[0].price", async () => {
    const before = await readProduct();
    const gql = await service.graphql(`mutation { updateProduct(id: ${productId}, input: { price: "-1" }) { id } }`);
    expect(gqlFields(gql)).toEqual([{ field: 'price', message: 'must not be negative' }]);
    const rest = await service.send('PATCH', `/api/v1/products/${productId}`, { price: -1 });
    expect(rest.status).toBe(422);
    expect(rest.body.errors).toEqual([{ field: 'price', message: 'must not be negative' }]);
    const variant = await service.send('PATCH', `/api/v1/products/${productId}`, {
      variants: [{ variant: [], price: '-0.50' }],
    });
    expect(variant.body.errors).toEqual(
      expect.arrayContaining([{ field: 'variants[0].price', message: 'must not be negative' }]),
    );
    expect(await readProduct()).toEqual(before);
  });

  it('takes the same amounts in search filters as GraphQL does, a sign included', async () => {
    const rest = await service.send('POST', '/api/v1/orders/search', { total: { gte: -5, lte: '9999999999.99' } });
    const gql = await service.graphql(
      '{ orders(filter: { total: { gte: "-5", lte: "9999999999.99" } }) { totalCount } }',
    );
    expect(Number(rest.headers.get('x-pagination-total-count'))).toBe(gql.body.data.orders.totalCount);
    const tooLong = await service.send('POST', '/api/v1/orders/search', { total: '12345678901' });
    expect(tooLong.status).toBe(422);
    expect(tooLong.body.errors[0].field).toBe('total');
  });
});

describe('search filters', () => {
  it("take the Timestamp scalar's years: after 2038 as GraphQL does (REST used to stop at 32 bits)", async () => {
    const rest = await service.send('POST', '/api/v1/orders/search', { order_date: { lte: 4102444800 } });
    const gql = await service.graphql('{ orders(filter: { orderDate: { lte: 4102444800 } }) { totalCount } }');
    expect(rest.status).toBe(200);
    expect(Number(rest.headers.get('x-pagination-total-count'))).toBe(gql.body.data.orders.totalCount);
    expect((await service.send('POST', '/api/v1/orders/search', { order_date: 253402300800 })).status).toBe(422);
  });

  it('refuse an empty "any of" list on both edges (GraphQL used to match nothing)', async () => {
    const gql = await service.graphql('{ customers(filter: { email: [] }) { totalCount } }');
    expect(gql.body.errors[0].extensions).toEqual({
      code: 'BAD_USER_INPUT',
      fields: [{ field: 'email', message: 'must list at least one value' }],
    });
    const rest = await service.send('POST', '/api/v1/customers/search', { address: { shipping: { city: [] } } });
    expect(rest.status).toBe(422);
    expect(rest.body.errors).toEqual([{ field: 'address.shipping.city', message: 'must list at least one value' }]);
  });
});
