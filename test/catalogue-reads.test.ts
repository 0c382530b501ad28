// The catalogue routes: products, collections, shipping carriers, warehouses, as the
// spec's tables describe them, checked against the database directly.
import { startTestService, type TestService } from './support/harness.js';

let service: TestService;
beforeAll(async () => {
  service = await startTestService();
});
afterAll(() => service.stop());

describe('GET /products/{id}', () => {
  it('answers every scalar field of the spec with its type', async () => {
    const res = await service.get('/api/v1/products/1');
    expect(res.status).toBe(200);
    const p = res.body;
    expect(Object.keys(p)).toEqual([
      'id',
      'title',
      'is_multi',
      'type',
      'collections',
      'tags',
      'shipping_weight',
      'auto_fulfilment',
      'track_inventory',
      'vendor',
      'sku',
      'seo_meta',
      'seo_title',
      'seo_url',
      'is_template',
      'is_draft',
      'price',
      'compare_price',
      'created_at',
      'updated_at',
    ]);
    const [row] = await service.sql<Record<string, any>>('select * from product where id = 1');
    expect(p).toMatchObject({
      id: 1,
      title: row.title,
      is_multi: row.is_multi,
      sku: row.sku,
      seo_url: row.seo_url,
      tags: row.tags,
    });
    expect(typeof p.price).toBe('number');
    expect(p.price).toBe(Number(row.price));
    expect(p.created_at).toBe(Math.floor(new Date(row.created_at).getTime() / 1000));
    expect(Number.isInteger(p.updated_at)).toBe(true);
  });

  it('shows updated_at 0 for a product never updated', async () => {
    const [row] = await service.sql<{ id: number }>(
      'select id from product where updated_at is null order by id limit 1',
    );
    expect((await service.get(`/api/v1/products/${row.id}`)).body.updated_at).toBe(0);
  });

  it('lists only manual collections in collections', async () => {
    const rows = await service.sql<{ product_id: number; ids: number[] }>(
      `select cp.product_id, array_agg(cp.collection_id order by cp.collection_id) as ids
       from collection_product cp join collection c on c.id = cp.collection_id and c.type = 0
         group by cp.product_id limit 3`,
    );
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) {
      expect((await service.get(`/api/v1/products/${row.product_id}?fields=collections`)).body.collections).toEqual(
        row.ids,
      );
    }
  });

  it('expands variants, options with colour thumbnails, images and textareas', async () => {
    const [multi] = await service.sql<{ id: number }>(
      `select p.id from product p join product_option o on o.product_id = p.id
        join option_thumbnail t on t.option_id = o.id
       where exists (select 1 from product_image i where i.product_id = p.id)
         and exists (select 1 from product_textarea x where x.product_id = p.id) order by p.id limit 1`,
    );
    const res = await service.get(`/api/v1/products/${multi.id}?expand=all`);
    const p = res.body;
    expect(p.options.length).toBeGreaterThan(0);
    const coloured = p.options.find((o: any) => o.thumbnails.length > 0);
    expect(coloured.thumbnails[0]).toEqual({
      value: expect.any(String),
      color: expect.stringMatching(/^#[0-9a-f]{6}$/),
    });
    expect(Object.keys(p.options[0])).toEqual(['title', 'changes_look', 'values', 'thumbnails']);
    const variantCount = p.options.reduce((n: number, o: any) => n * o.values.length, 1);
    expect(p.variants).toHaveLength(variantCount);
    for (const v of p.variants) {
      expect(Object.keys(v)).toEqual([
        'id',
        'variant',
        'price',
        'compare_price',
        'sku',
        'default',
        'ignore',
        'images',
        'metafields',
      ]);
      expect(v.variant).toHaveLength(p.options.length);
      v.variant.forEach((value: string, i: number) => {
        expect(p.options[i].values).toContain(value);
      });
      expect(typeof v.price).toBe('number');
    }
    expect(p.variants.filter((v: any) => v.default)).toHaveLength(1);
    expect(p.images[0]).toEqual({
      id: expect.any(Number),
      path: expect.stringMatching(/^https:\/\//),
      max_size: expect.any(Number),
    });
    expect(p.textareas[0]).toEqual({ name: expect.any(String), text: expect.any(String) });
  });

  it('shows a single-variant product with its one variant of no option values', async () => {
    const [single] = await service.sql<{ id: number }>('select id from product where not is_multi order by id limit 1');
    const p = (await service.get(`/api/v1/products/${single.id}?expand=variants,options`)).body;
    expect(p.options).toEqual([]);
    expect(p.variants).toHaveLength(1);
    expect(p.variants[0]).toMatchObject({ variant: [], price: p.price, default: true });
  });

  it.each(['999999', '0', 'abc', '1.5', '-1', '99999999999'])(
    'answers 404 problem+json for /products/%s',
    async (id) => {
      const res = await service.get(`/api/v1/products/${id}`);
      expect(res.status).toBe(404);
      expect(res.headers.get('content-type')).toMatch(/application\/problem\+json/);
      expect(res.body).toMatchObject({ status: 404, title: 'Not Found' });
    },
  );
});

describe('collections (extension)', () => {
  it('lists collections in the wrapper with the spec fields', async () => {
    const res = await service.get('/api/v1/collections?sort=id');
    expect(res.status).toBe(200);
    expect(res.body._meta.totalCount).toBe(8);
    const manual = res.body.items.find((c: any) => c.type === 0);
    expect(Object.keys(manual)).toEqual([
      'id',
      'title',
      'is_draft',
      'description',
      'images',
      'type',
      'seo_title',
      'seo_url',
      'seo_meta',
      'match_products',
      'rules_match_condition',
      'rules',
      'created_at',
      'updated_at',
    ]);
    expect(manual.match_products.length).toBeGreaterThan(0);
    const rules = res.body.items.find((c: any) => c.type === 1);
    expect(rules.rules.length).toBeGreaterThan(0);
    expect(rules.rules[0]).toEqual({
      type: expect.any(Number),
      condition: expect.any(Number),
      value: expect.any(String),
    });
    expect(rules.match_products).toEqual([]);
  });

  it('expands products of a manual collection to its members, in order', async () => {
    const [c] = await service.sql<{ id: number }>('select id from collection where type = 0 order by id limit 1');
    const members = await service.sql<{ product_id: number }>(
      'select product_id from collection_product where collection_id = ? order by position',
      [c.id],
    );
    const res = await service.get(`/api/v1/collections/${c.id}?expand=products`);
    expect(res.body.products).toEqual(members.map((m) => m.product_id));
  });

  it('expands products of a rule-based collection to the products matching its rules now', async () => {
    const [onSale] = await service.sql<{ id: number }>("select id from collection where title = 'On sale'");
    const tagged = await service.sql<{ id: number }>("select id from product where 'sale' = any(tags) order by id");
    expect(tagged.length).toBeGreaterThan(0);
    expect((await service.get(`/api/v1/collections/${onSale.id}?expand=products`)).body.products).toEqual(
      tagged.map((p) => p.id),
    );

    const [both] = await service.sql<{ id: number }>("select id from collection where title = 'Affordable apparel'");
    const apparel = await service.sql<{ id: number }>(
      `select p.id from product p where lower(p.type) = 'apparel'
        and exists (select 1 from product_variant v where v.product_id = p.id and v.price < 80)
          order by p.id`,
    );
    expect((await service.get(`/api/v1/collections/${both.id}?expand=products`)).body.products).toEqual(
      apparel.map((p) => p.id),
    );
  });

  it('agrees with GraphQL on membership', async () => {
    const rest = await service.get('/api/v1/collections?expand=products&size=50');
    const gql = await service.graphql('{ collections(size: 50) { items { id productIds } } }');
    const byId = new Map(gql.body.data.collections.items.map((c: any) => [c.id, c.productIds]));
    for (const c of rest.body.items) expect(c.products).toEqual(byId.get(c.id));
  });

  it('answers 404 for a missing collection', async () => {
    expect((await service.get('/api/v1/collections/4242')).status).toBe(404);
  });
});

describe('GET /shipping-carriers', () => {
  it('lists every carrier with id, title, url, is_deleted', async () => {
    const res = await service.get('/api/v1/shipping-carriers?sort=id');
    const rows = await service.sql<Record<string, unknown>>(
      'select id, title, url, is_deleted from shipping_carrier order by id',
    );
    expect(res.body.items).toEqual(rows);
    expect(rows.filter((r) => r.is_deleted)).toHaveLength(1);
  });
});

describe('GET /warehouses (extension)', () => {
  it('lists warehouses and expands their stock per variant', async () => {
    const plain = await service.get('/api/v1/warehouses?sort=id');
    expect(plain.body.items.length).toBeGreaterThanOrEqual(3);
    expect(Object.keys(plain.body.items[0])).toEqual(['id', 'title']);
    const res = await service.get('/api/v1/warehouses?sort=id&expand=stock');
    const first = res.body.items[0];
    const stock = await service.sql<{ variant_id: number; quantity: number }>(
      'select variant_id, quantity from inventory_level where warehouse_id = ? order by variant_id',
      [first.id],
    );
    expect(first.stock).toEqual(stock);
  });
});
