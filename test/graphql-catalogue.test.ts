// docs/decisions.md#graphql-names-and-types: the catalogue in GraphQL: camelCase, Int ids, Decimal
// money as strings, paging arguments bounded like REST `size`.
import { startTestService, type TestService } from './support/harness.js';

let service: TestService;
beforeAll(async () => {
  service = await startTestService();
});
afterAll(() => service.stop());

it('pages and sorts products with variants, options, images and textareas', async () => {
  const res = await service.graphql(`{
    products(page: 2, size: 5, sort: [{ field: PRICE, direction: DESC }]) {
      totalCount page size pageCount
      items { id title price comparePrice createdAt updatedAt collections { id }
        variants { id variant price default images { id } }
          options { title values thumbnails { value color image { path } } }
        images { id path maxSize } textareas { name text } }
    }
  }`);
  expect(res.status).toBe(200);
  expect(res.body.errors).toBeUndefined();
  const page = res.body.data.products;
  expect(page).toMatchObject({ totalCount: 60, page: 2, size: 5, pageCount: 12 });
  const prices = page.items.map((p: { price: string }) => p.price);
  expect(prices.every((p: string) => /^\d+\.\d{2}$/.test(p))).toBe(true);
  expect(prices.map(Number)).toEqual([...prices.map(Number)].sort((a, b) => b - a));
});

it('applies the schema’s defaults to variables as to written values: a sort term without its direction', async () => {
  const written = await service.graphql('{ products(size: 5, sort: [{ field: PRICE }]) { items { id } } }');
  expect(written.body.errors).toBeUndefined();
  // The same term through a variable, and a variable left to its own default.
  const byVariable = await service.graphql(
    'query ($s: [ProductSort!]) { products(size: 5, sort: $s) { items { id } } }',
    { s: [{ field: 'PRICE' }] },
  );
  expect(byVariable.body).toEqual(written.body);
  const defaulted = await service.graphql(
    'query ($size: Int! = 5, $s: [ProductSort!] = [{ field: PRICE }]) { products(size: $size, sort: $s) ' +
      '{ items { id } } }',
  );
  expect(defaulted.body).toEqual(written.body);
});

it('refuses variables it cannot take as BAD_USER_INPUT naming each, with the scalar’s own reason', async () => {
  const decimal = await service.graphql(
    'query ($d: Decimal) { orders(filter: { total: { gte: $d } }) { totalCount } }',
    { d: 'abc' },
  );
  expect(decimal.status).toBe(400);
  expect(decimal.body.errors[0].extensions).toEqual({
    code: 'BAD_USER_INPUT',
    fields: [{ field: 'd', message: expect.stringContaining('Decimal') }],
  });
  const missing = await service.graphql('query ($id: Int!) { order(id: $id) { id } }');
  expect(missing.body.errors[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', fields: [{ field: 'id' }] });
  // A mutation's alike (graphql-js executes those).
  const mutation = await service.graphql('mutation ($t: String!) { createWarehouse(title: $t) { id } }', { t: 5 });
  expect(mutation.body.errors[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', fields: [{ field: 't' }] });
});

it('reads one product, and answers NOT_FOUND for a missing one', async () => {
  const found = await service.graphql('query ($id: Int!) { product(id: $id) { id seoUrl } }', { id: 3 });
  expect(found.body.data.product.id).toBe(3);
  const missing = await service.graphql('query ($id: Int!) { product(id: $id) { id } }', { id: 123456 });
  expect(missing.body.errors[0].extensions.code).toBe('NOT_FOUND');
});

it.each([
  ['size: 251', 'size'],
  ['size: 0', 'size'],
  ['page: 0', 'page'],
])('refuses %s with BAD_USER_INPUT naming the argument', async (args, field) => {
  const res = await service.graphql(`{ products(${args}) { totalCount } }`);
  expect(res.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
  expect(res.body.errors[0].extensions.fields[0].field).toBe(field);
});

it('reads collections, carriers and warehouses with their relations', async () => {
  const res = await service.graphql(`{
    collections(size: 2, sort: [{ field: ID }]) { items { id title type rules { type condition value }
      manualProductIds productIds images { id } } }
    shippingCarriers { totalCount items { id title url isDeleted } }
    warehouses { items { id title stock { variantId warehouseId quantity } } }
  }`);
  expect(res.body.errors).toBeUndefined();
  expect(res.body.data.collections.items[0].productIds).toEqual(res.body.data.collections.items[0].manualProductIds);
  expect(res.body.data.shippingCarriers.totalCount).toBe(6);
  expect(res.body.data.warehouses.items[0].stock.length).toBeGreaterThan(0);
});

// A value written in the document that its type cannot take is bad input, as in a variable (it was
// GRAPHQL_VALIDATION_FAILED without fields).
it('answers a bad value written in the document BAD_USER_INPUT naming its field', async () => {
  const [{ id }] = await service.sql<{ id: number }>('select min(id) as id from product');
  for (const [input, field] of [
    ['{ price: "1.234" }', 'price'],
    ['{ title: 12 }', 'title'],
    ['{ nonexistent: 1 }', 'nonexistent'],
  ]) {
    const res = await service.graphql(`mutation { updateProduct(id: ${id}, input: ${input}) { id } }`);
    expect(res.status).toBe(400);
    expect(res.body.data).toBeUndefined();
    expect(res.body.errors[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', fields: [{ field }] });
  }
  const price = await service.sql<{ price: string }>('select price::text from product where id = ?', [id]);
  expect(price[0].price).not.toBe('1.23');
});

it('masks unexpected errors: no stack traces in responses', async () => {
  const res = await service.graphql('{ products(size: 1) { items { id nonexistent } } }');
  expect(res.status).toBe(400);
  expect(res.body.errors[0].extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');
  expect(JSON.stringify(res.body)).not.toContain('stacktrace');
});
