// docs/choices.md#versions-that-follow-relations: a record's version (its ETag) moves with every
// change its shape shows, a write on a related record included: manual membership on both sides,
// rule-based membership when a product's fields change, a customer's tags when a product's do,
// an order's customer block when the customer's e-mail or name do. A client holding the old ETag
// gets no 304 and its If-Match write is refused (412). Crossing writes lock in one order and
// never deadlock.
import { startTestService, type TestResponse, type TestService } from './support/harness.js';

let service: TestService;
beforeAll(async () => {
  service = await startTestService();
});
afterAll(() => service.stop());

const productPath = (id: number) => `/api/v1/products/${id}`;
const collectionPath = (id: number) => `/api/v1/collections/${id}`;
const customerPath = (id: number) => `/api/v1/customers/${id}`;
const orderPath = (id: number) => `/api/v1/orders/${id}`;
const etagOf = async (path: string) => (await service.get(path)).headers.get('etag')!;
const patch = (path: string, body: unknown) => service.send('PATCH', path, body);
let slug = 0;

/** A GraphQL operation's data; any error fails the test. */
async function data(query: string, variables?: Record<string, unknown>): Promise<any> {
  const res = await service.graphql(query, variables);
  if (res.body.errors) throw new Error(JSON.stringify(res.body.errors));
  return res.body.data;
}

const deleteProduct = (id: number) => data('mutation ($id: Int!) { deleteProduct(id: $id) }', { id });

async function newProduct(title = 'Relation product'): Promise<number> {
  const input = { title, price: '5.00' };
  const created = await data('mutation ($input: ProductCreate!) { createProduct(input: $input) { id } }', { input });
  return created.createProduct.id;
}

const manualBody = (productIds: number[], title = 'Relation collection') => ({
  title,
  type: 0,
  seo_title: title,
  seo_url: `relation-${++slug}`,
  match_products: productIds,
});

async function newManualCollection(productIds: number[] = []): Promise<{ id: number; body: Record<string, unknown> }> {
  const body = manualBody(productIds);
  const res = await service.send('POST', '/api/v1/collections', body);
  expect(res.status).toBe(201);
  return { id: res.body.id, body };
}

/** The record changed under the holder of `etag`: no 304, and a write with it is refused, changing nothing. */
async function expectStale(path: string, etag: string, body: unknown): Promise<void> {
  expect((await service.get(path, undefined, { 'if-none-match': etag })).status).toBe(200);
  const before = (await service.get(`${path}?expand=all`)).body;
  const refused = await service.send('PATCH', path, body, undefined, { 'if-match': etag });
  expect(refused.status).toBe(412);
  expect((await service.get(`${path}?expand=all`)).body).toEqual(before);
}

const statusesOf = (answers: TestResponse[]) => answers.map((res) => ({ status: res.status, errors: res.body.errors }));
const allOk = (answers: TestResponse[]) => answers.map(() => ({ status: 200, errors: undefined }));

describe('manual membership moves both sides', () => {
  it('a product joining a collection moves the collection: its old ETag no longer matches', async () => {
    const product = await newProduct();
    const collection = await newManualCollection([]);
    const held = await etagOf(collectionPath(collection.id));
    expect((await patch(productPath(product), { collections: [collection.id] })).status).toBe(200);
    expect(await etagOf(collectionPath(collection.id))).not.toBe(held);
    // The holder writes back the membership it saw (none): refused, the product stays a member.
    await expectStale(collectionPath(collection.id), held, collection.body);
    expect((await service.get(collectionPath(collection.id))).body.match_products).toEqual([product]);
    // Leaving moves it again.
    const joined = await etagOf(collectionPath(collection.id));
    expect((await patch(productPath(product), { collections: [] })).status).toBe(200);
    expect(await etagOf(collectionPath(collection.id))).not.toBe(joined);
  });

  it('a collection listing or dropping a product moves the product', async () => {
    const product = await newProduct();
    const collection = await newManualCollection([]);
    const held = await etagOf(productPath(product));
    const listing = { ...collection.body, match_products: [product] };
    expect((await patch(collectionPath(collection.id), listing)).status).toBe(200);
    expect((await service.get(productPath(product))).body.collections).toEqual([collection.id]);
    expect(await etagOf(productPath(product))).not.toBe(held);
    await expectStale(productPath(product), held, { collections: [] });
    const member = await etagOf(productPath(product));
    expect((await patch(collectionPath(collection.id), { ...collection.body, match_products: [] })).status).toBe(200);
    expect(await etagOf(productPath(product))).not.toBe(member);
  });

  it('reordering a collection moves only the collection: the products’ own shapes did not change', async () => {
    const [a, b] = [await newProduct(), await newProduct()];
    const collection = await newManualCollection([a, b]);
    const held = [await etagOf(productPath(a)), await etagOf(productPath(b))];
    const reordered = { ...collection.body, match_products: [b, a] };
    expect((await patch(collectionPath(collection.id), reordered)).status).toBe(200);
    expect([await etagOf(productPath(a)), await etagOf(productPath(b))]).toEqual(held);
  });

  it('deleting either side, creating with members, and turning rule-based move the other side', async () => {
    const [a, b, c] = [await newProduct(), await newProduct(), await newProduct()];
    const before = await etagOf(productPath(a));
    const collection = await newManualCollection([a, b]);
    expect(await etagOf(productPath(a))).not.toBe(before);

    const held = await etagOf(collectionPath(collection.id));
    expect(await deleteProduct(b)).toEqual({ deleteProduct: b });
    expect(await etagOf(collectionPath(collection.id))).not.toBe(held);

    const memberEtag = await etagOf(productPath(a));
    const rules = [{ type: 0, condition: 0, value: 'nothing matches this' }];
    const ruleBased = { ...collection.body, match_products: [], type: 1, rules_match_condition: 0, rules };
    expect((await patch(collectionPath(collection.id), ruleBased)).status).toBe(200);
    expect((await service.get(productPath(a))).body.collections).toEqual([]);
    expect(await etagOf(productPath(a))).not.toBe(memberEtag);

    const other = await newManualCollection([c]);
    const cEtag = await etagOf(productPath(c));
    const deleted = await data('mutation ($id: Int!) { deleteCollection(id: $id) }', { id: other.id });
    expect(deleted).toEqual({ deleteCollection: other.id });
    expect(await etagOf(productPath(c))).not.toBe(cEtag);
  });

  it('GraphQL: expectedVersion compares with the moved version', async () => {
    const product = await newProduct();
    const { id } = await newManualCollection([]);
    const read = 'query ($id: Int!) { collection(id: $id) { version } }';
    const version = async () => (await data(read, { id })).collection.version;
    const held = await version();
    const join = `mutation ($p: Int!, $c: Int!) {
      updateProduct(id: $p, input: { collectionIds: [$c] }) { collectionIds }
    }`;
    const joined = await data(join, { p: product, c: id });
    expect(joined.updateProduct.collectionIds).toEqual([id]);
    expect(await version()).toBe(held + 1);
    const remove = 'mutation ($id: Int!, $v: [Int!]) { deleteCollection(id: $id, expectedVersion: $v) }';
    const refused = await service.graphql(remove, { id, v: [held] });
    expect(refused.body.errors[0].extensions.code).toBe('PRECONDITION_FAILED');
    expect(await data(remove, { id, v: [held + 1] })).toEqual({ deleteCollection: id });
  });
});

describe('a rule-based collection’s version follows its answer', () => {
  const ruleBased = (value: string) => ({
    title: `Rule ${value}`,
    type: 1,
    seo_title: 'Rule',
    seo_url: `rule-${++slug}`,
    rules_match_condition: 0,
    rules: [{ type: 0, condition: 3, value }],
  });

  it('changes when a product’s fields change its membership, and only then', async () => {
    const body = ruleBased('Quokka');
    const created = await service.send('POST', '/api/v1/collections', body);
    expect(created.status).toBe(201);
    const path = collectionPath(created.body.id);
    const product = await newProduct('Plain product');
    const empty = await etagOf(path);
    expect(empty).toBe(created.headers.get('etag'));

    // A change that keeps it out of the collection leaves the ETag: the answer is the same.
    expect((await patch(productPath(product), { seo_meta: 'still not a member' })).status).toBe(200);
    expect(await etagOf(path)).toBe(empty);
    expect((await service.get(path, undefined, { 'if-none-match': empty })).status).toBe(304);

    expect((await patch(productPath(product), { title: 'Quokka lamp' })).status).toBe(200);
    expect((await service.get(`${path}?expand=products`)).body.products).toEqual([product]);
    const member = await etagOf(path);
    expect(member).not.toBe(empty);
    await expectStale(path, empty, body);

    // GraphQL shows the same version and compares with it.
    const read = 'query ($id: Int!) { collection(id: $id) { version productIds } }';
    const shown = await data(read, { id: created.body.id });
    expect(shown.collection).toEqual({ version: Number(member.slice(2, -1)), productIds: [product] });
    const renaming = { ...body, title: 'Rule renamed' };
    const updated = await service.send('PATCH', path, renaming, undefined, { 'if-match': member });
    expect(updated.status).toBe(200);
    expect(updated.headers.get('etag')).not.toBe(member);
    expect(updated.headers.get('etag')).toBe(await etagOf(path));

    // Leaving it moves it again; coming back gives the same answer, so the same ETag, and
    // deleting a member moves it.
    const renamed = await etagOf(path);
    expect((await patch(productPath(product), { title: 'Plain lamp' })).status).toBe(200);
    expect(await etagOf(path)).not.toBe(renamed);
    expect((await patch(productPath(product), { title: 'Quokka again' })).status).toBe(200);
    expect(await etagOf(path)).toBe(renamed);
    expect(await deleteProduct(product)).toEqual({ deleteProduct: product });
    expect(await etagOf(path)).not.toBe(renamed);
  });

  it('changes when a new product matches', async () => {
    const created = await service.send('POST', '/api/v1/collections', ruleBased('Wombat'));
    const path = collectionPath(created.body.id);
    const before = await etagOf(path);
    const product = await newProduct('Wombat mug');
    expect((await service.get(`${path}?expand=products`)).body.products).toEqual([product]);
    expect(await etagOf(path)).not.toBe(before);
  });
});

describe('a customer’s tags follow the products bought', () => {
  const placeOrder = (customerId: number, variantId: number) =>
    service.graphql('mutation ($input: OrderCreate!) { createOrder(input: $input) { id } }', {
      input: { customerId, items: [{ variantId, quantity: 1 }] },
    });

  /** A new product with a variant, bought by a new customer: the customer's tags are the product's. */
  async function boughtProduct(tag: string): Promise<{ product: number; customer: number; variant: number }> {
    const input = { title: `Bought ${tag}`, price: '3.00', tags: [tag] };
    const create = 'mutation ($input: ProductCreate!) { createProduct(input: $input) { id variants { id } } }';
    const created = await data(create, { input });
    const { id: product, variants } = created.createProduct;
    const email = `${tag}@example.com`;
    const signUp = 'mutation ($email: String!) { createCustomer(input: { email: $email }) { id } }';
    const customer = (await data(signUp, { email })).createCustomer.id;
    expect((await placeOrder(customer, variants[0].id)).body.errors).toBeUndefined();
    expect((await service.get(customerPath(customer))).body.tags).toEqual([tag]);
    return { product, customer, variant: variants[0].id };
  }

  it('a product’s tag edit moves its buyers; an edit that keeps its tags does not', async () => {
    const { product, customer } = await boughtProduct('kiwi');
    const held = await etagOf(customerPath(customer));
    expect((await patch(productPath(product), { seo_meta: 'tags kept', tags: ['kiwi'] })).status).toBe(200);
    expect(await etagOf(customerPath(customer))).toBe(held);
    expect((await patch(productPath(product), { tags: ['kiwi', 'fruit'] })).status).toBe(200);
    expect((await service.get(customerPath(customer))).body.tags).toEqual(['fruit', 'kiwi']);
    expect(await etagOf(customerPath(customer))).not.toBe(held);
    await expectStale(customerPath(customer), held, { notes: 'written over tags never seen' });
  });

  it('deleting a product bought moves its buyers', async () => {
    const { product, customer } = await boughtProduct('mango');
    const held = await etagOf(customerPath(customer));
    expect(await deleteProduct(product)).toEqual({ deleteProduct: product });
    expect((await service.get(customerPath(customer))).body.tags).toEqual([]);
    expect(await etagOf(customerPath(customer))).not.toBe(held);
  });

  it('tag edits racing orders for the same product and customer neither deadlock nor fail', async () => {
    const { product, customer, variant } = await boughtProduct('lychee');
    const started = Date.now();
    const answers = await Promise.all(
      Array.from({ length: 16 }, (_, i) =>
        i % 2 ? patch(productPath(product), { tags: [`lychee-${i}`] }) : placeOrder(customer, variant),
      ),
    );
    expect(statusesOf(answers)).toEqual(allOk(answers));
    expect(Date.now() - started).toBeLessThan(60_000);
    const [{ tags }] = await service.sql<{ tags: string[] }>('select tags from product where id = ?', [product]);
    expect((await service.get(customerPath(customer))).body.tags).toEqual(tags);
  }, 90_000);
});

describe('an order’s customer block follows the customer', () => {
  async function customerWithOrders(n: number): Promise<{ customer: number; orders: number[] }> {
    const email = `orders-${++slug}@example.com`;
    const signUp = 'mutation ($email: String!) { createCustomer(input: { email: $email, firstName: "Ada" }) { id } }';
    const created = await data(signUp, { email });
    const customer = created.createCustomer.id;
    const [{ id: variantId }] = await service.sql<{ id: number }>('select id from product_variant order by id limit 1');
    const orders: number[] = [];
    for (let i = 0; i < n; i++) {
      const input = { customerId: customer, items: [{ variantId, quantity: 1 }] };
      const placed = await data('mutation ($input: OrderCreate!) { createOrder(input: $input) { id } }', { input });
      orders.push(placed.createOrder.id);
    }
    return { customer, orders };
  }

  it('a customer’s name or e-mail change moves its orders; a notes change does not', async () => {
    const { customer, orders } = await customerWithOrders(2);
    const held = await etagOf(orderPath(orders[0]));
    expect((await patch(customerPath(customer), { notes: 'not shown on orders', first_name: 'Ada' })).status).toBe(200);
    expect(await etagOf(orderPath(orders[0]))).toBe(held);
    expect((await patch(customerPath(customer), { first_name: 'Grace' })).status).toBe(200);
    expect((await service.get(orderPath(orders[0]))).body.customer.first_name).toBe('Grace');
    expect(await etagOf(orderPath(orders[0]))).not.toBe(held);
    await expectStale(orderPath(orders[0]), held, { notes: 'written over a name never seen' });
    const second = await etagOf(orderPath(orders[1]));
    expect((await patch(customerPath(customer), { email: `renamed-${slug}@example.com` })).status).toBe(200);
    expect(await etagOf(orderPath(orders[1]))).not.toBe(second);
  });

  it('customer edits racing order edits and moves between two customers neither deadlock nor fail', async () => {
    const [a, b] = [await customerWithOrders(3), await customerWithOrders(3)];
    const started = Date.now();
    const writes = [a, b].flatMap(({ customer, orders }, side) => [
      ...[0, 1, 2].map((i) => patch(customerPath(customer), { first_name: `Name ${i}`, last_name: `Side ${side}` })),
      ...orders.map((order, i) =>
        i % 2
          ? patch(orderPath(order), { notes: `note ${i}` })
          : patch(`${orderPath(order)}/customer`, { id: side ? a.customer : b.customer }),
      ),
    ]);
    const answers = await Promise.all(writes);
    expect(statusesOf(answers)).toEqual(allOk(answers));
    expect(Date.now() - started).toBeLessThan(60_000);
    for (const order of [...a.orders, ...b.orders]) {
      const shown = (await service.get(orderPath(order))).body.customer;
      const owner = (await service.get(customerPath(shown.id))).body;
      const { id, email, first_name, last_name } = owner;
      expect(shown).toEqual({ id, email, first_name, last_name });
    }
  }, 90_000);
});

describe('crossing writes', () => {
  it('product and collection PATCHes crossing from many connections neither deadlock nor fail, and agree', async () => {
    const products = [await newProduct(), await newProduct(), await newProduct(), await newProduct()];
    const collections = [await newManualCollection([]), await newManualCollection([]), await newManualCollection([])];
    const started = Date.now();
    for (let round = 0; round < 4; round++) {
      // Products join collections while collections list products, in opposite orders, all at
      // once: each pair locks the same two rows from opposite sides.
      const joining = (i: number) => ((i + round) % 2 ? collections.map((c) => c.id) : [collections[round % 3].id]);
      const listing = (i: number) => ((i + round) % 2 ? [...products].reverse() : products.slice(round % 2));
      const answers = await Promise.all([
        ...products.map((p, i) => patch(productPath(p), { collections: joining(i) })),
        ...collections.map((c, i) => patch(collectionPath(c.id), { ...c.body, match_products: listing(i) })),
      ]);
      expect(statusesOf(answers)).toEqual(allOk(answers));
    }
    expect(Date.now() - started).toBeLessThan(60_000);

    // Both sides read the same links, and each product's ETag is its version in the table.
    for (const p of products) {
      const read = await service.get(productPath(p));
      const sql = `select collection_id as id, p.version from collection_product l join product p on p.id = l.product_id
        where p.id = ? order by 1`;
      const linked = await service.sql<{ id: number; version: number }>(sql, [p]);
      expect(read.body.collections).toEqual(linked.map((row) => row.id));
      if (linked.length) expect(read.headers.get('etag')).toBe(`"v${linked[0].version}"`);
    }
    for (const c of collections) {
      const members = (await service.get(collectionPath(c.id))).body.match_products as number[];
      for (const p of products) {
        expect((await service.get(productPath(p))).body.collections.includes(c.id)).toBe(members.includes(p));
      }
    }
  }, 90_000);
});
