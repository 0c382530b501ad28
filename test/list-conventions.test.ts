// docs/decisions.md#lists, #sort, #fields-and-expand and #list-wrapper on the catalogue lists.
import { startTestService, type TestService } from './support/harness.js';

let service: TestService;
beforeAll(async () => {
  service = await startTestService();
});
afterAll(() => service.stop());

describe('the list wrapper', () => {
  it('has items, _links with absolute hrefs and _meta', async () => {
    const res = await service.get('/api/v1/products?size=5&page=2');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/application\/json/);
    expect(res.body.items).toHaveLength(5);
    expect(res.body._meta).toEqual({ totalCount: 60, perPage: 5, currentPage: 2, pageCount: 12 });
    const links = res.body._links;
    expect(Object.keys(links).sort()).toEqual(['first', 'last', 'next', 'prev', 'self']);
    expect(links.self.href).toBe(`${service.url}/api/v1/products?size=5&page=2`);
    expect(new URL(links.first.href).searchParams.get('page')).toBe('1');
    expect(new URL(links.prev.href).searchParams.get('page')).toBe('1');
    expect(new URL(links.next.href).searchParams.get('page')).toBe('3');
    expect(new URL(links.last.href).searchParams.get('page')).toBe('12');
  });

  it('keeps the other query parameters in every link, those it does not read too', async () => {
    const res = await service.get(
      '/api/v1/products?size=3&sort=!title&fields=id,title&expand=images&page=2&utm_source=mail&tag=a%20b',
    );
    for (const { href } of Object.values<{ href: string }>(res.body._links)) {
      const params = new URL(href).searchParams;
      expect(params.get('size')).toBe('3');
      expect(params.get('sort')).toBe('!title');
      expect(params.get('fields')).toBe('id,title');
      expect(params.get('expand')).toBe('images');
      expect(params.get('utm_source')).toBe('mail');
      expect(params.get('tag')).toBe('a b');
    }
    expect(res.headers.get('link')).toContain('utm_source=mail');
  });

  it('omits prev on the first page and next on the last', async () => {
    const first = await service.get('/api/v1/products?size=30');
    expect(first.body._links.prev).toBeUndefined();
    expect(first.body._links.next).toBeDefined();
    const last = await service.get('/api/v1/products?size=30&page=2');
    expect(last.body._links.next).toBeUndefined();
    expect(last.body._links.prev).toBeDefined();
  });

  it('sends the pagination headers and an RFC 8288 Link header', async () => {
    const res = await service.get('/api/v1/products?size=7&page=3');
    expect(res.headers.get('x-pagination-total-count')).toBe('60');
    expect(res.headers.get('x-pagination-page-count')).toBe('9');
    expect(res.headers.get('x-pagination-current-page')).toBe('3');
    expect(res.headers.get('x-pagination-per-page')).toBe('7');
    const link = res.headers.get('link')!;
    for (const rel of ['self', 'first', 'last', 'prev', 'next']) {
      expect(link).toMatch(new RegExp(`<${service.url}/api/v1/products\\?[^>]*>; rel="${rel}"`));
    }
  });

  it('defaults to page 1, size 20, newest id first', async () => {
    const res = await service.get('/api/v1/products');
    expect(res.body._meta).toMatchObject({ currentPage: 1, perPage: 20 });
    const ids = res.body.items.map((p: { id: number }) => p.id);
    expect(ids).toEqual([...ids].sort((a, b) => b - a));
    expect(ids[0]).toBe(60);
  });

  it('answers a page past the last with no items and true _meta', async () => {
    const res = await service.get('/api/v1/products?size=10&page=99');
    expect(res.status).toBe(200);
    expect(res.body.items).toEqual([]);
    expect(res.body._meta).toEqual({ totalCount: 60, perPage: 10, currentPage: 99, pageCount: 6 });
    expect(res.body._links.next).toBeUndefined();
    expect(new URL(res.body._links.last.href).searchParams.get('page')).toBe('6');
  });

  it('uses PUBLIC_URL as the base of links when set', async () => {
    const other = await startTestService({ publicUrl: 'https://shop.example.com/' });
    try {
      const res = await other.get('/api/v1/shipping-carriers?size=2');
      expect(res.body._links.self.href).toBe('https://shop.example.com/api/v1/shipping-carriers?size=2&page=1');
    } finally {
      await other.stop();
    }
  });
});

describe('page and size bounds', () => {
  it.each([
    ['page', '0'],
    ['page', '-1'],
    ['page', '1.5'],
    ['page', 'abc'],
    ['page', ''],
    ['page', '99999999999'],
    ['size', '0'],
    ['size', '-1'],
    ['size', '1.5'],
    ['size', 'abc'],
    ['size', '251'],
    ['size', ''],
  ])('refuses %s=%s with a 400 naming the parameter and its range', async (name, value) => {
    const res = await service.get(`/api/v1/products?${name}=${value}`);
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toMatch(/application\/problem\+json/);
    expect(res.body).toMatchObject({ status: 400, errors: [{ field: name }] });
    expect(res.body.errors[0].message).toMatch(name === 'size' ? /1 to 250/ : /from 1 to/);
  });

  it('accepts size=250 and size=1', async () => {
    expect((await service.get('/api/v1/products?size=250')).body.items).toHaveLength(60);
    expect((await service.get('/api/v1/products?size=1')).body.items).toHaveLength(1);
  });

  it('refuses a parameter given twice', async () => {
    const res = await service.get('/api/v1/products?page=1&page=2');
    expect(res.status).toBe(400);
    expect(res.body.errors[0].field).toBe('page');
  });
});

describe('sort', () => {
  const titles = async (query: string) =>
    (await service.get(`/api/v1/products?size=250&fields=id,title,price&${query}`)).body.items as {
      id: number;
      title: string;
      price: number;
    }[];

  it('sorts ascending by default and descending with ! or -', async () => {
    const asc = await titles('sort=title');
    const bang = await titles('sort=!title');
    const dash = await titles('sort=-title');
    const byTitle = (a: { title: string }, b: { title: string }) =>
      a.title < b.title ? -1 : a.title > b.title ? 1 : 0;
    expect(asc.map((p) => p.title)).toEqual([...asc].sort(byTitle).map((p) => p.title));
    expect(bang.map((p) => p.title)).toEqual(asc.map((p) => p.title).reverse());
    expect(dash).toEqual(bang);
  });

  it('takes a key sorted by again as nothing more: its first term stands, however long the parameter', async () => {
    const once = await titles('sort=!title');
    expect(await titles('sort=!title,title,-title')).toEqual(once);
    const long = await service.get(`/api/v1/products?size=250&fields=id&sort=${Array(1001).fill('id').join(',')}`);
    expect(long.status).toBe(200);
  });

  it('sorts by several fields, earlier ones first, id closing ties in the last direction', async () => {
    const rows = await titles('sort=price,!id');
    for (let i = 1; i < rows.length; i++) {
      const [a, b] = [rows[i - 1], rows[i]];
      expect(a.price <= b.price).toBe(true);
      if (a.price === b.price) expect(a.id).toBeGreaterThan(b.id);
    }
    const tied = await titles('sort=!price');
    for (let i = 1; i < tied.length; i++) {
      if (tied[i - 1].price === tied[i].price) expect(tied[i - 1].id).toBeGreaterThan(tied[i].id);
    }
  });

  it('refuses an unknown or non-sortable field with a 400 listing the sortable ones', async () => {
    for (const sort of ['bogus', '!tags', 'collections']) {
      const res = await service.get(`/api/v1/products?sort=${encodeURIComponent(sort)}`);
      expect(res.status).toBe(400);
      expect(res.body.errors[0].field).toBe('sort');
      expect(res.body.errors[0].message).toContain('sortable: id, title');
    }
  });

  it('drops empty entries, as fields and expand do: sort= is the default order, title, sorts by title', async () => {
    const byDefault = await titles('');
    expect(await titles('sort=')).toEqual(byDefault);
    expect(await titles('sort=title,')).toEqual(await titles('sort=title'));
  });

  it('sorts by every scalar field with a column, nested ones by their dotted key', async () => {
    for (const path of [
      '/api/v1/products?sort=seo_title,!seo_meta,auto_fulfilment,-track_inventory',
      '/api/v1/orders?sort=payment.last4,risk_level.ip_fail,!risk_level.address_fail,risk_level.zip_fail',
      '/api/v1/orders?sort=-risk_level.cvc_fail',
      '/api/v1/orders?sort=address.phone,conversion.landing_page,!conversion.referrer',
      '/api/v1/collections?sort=description,!seo_meta,rules_match_condition',
      '/api/v1/customers?sort=erased_at',
    ]) {
      const res = await service.get(path);
      expect({ path, status: res.status }).toEqual({ path, status: 200 });
    }
    const orders = (await service.get('/api/v1/orders?sort=payment.last4&fields=id,payment&size=50')).body.items;
    const last4 = orders.map((o: { payment: { last4: string | null } }) => o.payment.last4);
    const present = last4.filter((v: string | null) => v !== null);
    expect(present).toEqual([...present].sort());
    const referrers = (await service.get('/api/v1/orders?sort=conversion.referrer&fields=id,conversion&size=50')).body
      .items;
    const shown = referrers.map((o: { conversion: { referrer: string } }) => o.conversion.referrer);
    expect(shown).toEqual([...shown].sort((a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)));
  });

  it('walks every page of a sort with ties and meets each id exactly once', async () => {
    for (const sort of ['is_draft', '!price', 'type,-is_multi', 'vendor']) {
      const seen: number[] = [];
      for (let page = 1; page <= 9; page++) {
        const res = await service.get(`/api/v1/products?size=7&page=${page}&sort=${sort}&fields=id`);
        seen.push(...res.body.items.map((p: { id: number }) => p.id));
      }
      expect(seen).toHaveLength(60);
      expect(new Set(seen).size).toBe(60);
    }
  });
});

describe('fields and expand', () => {
  it('limits records to the named fields, in the resource order', async () => {
    const res = await service.get('/api/v1/products?fields=title,id&size=3');
    for (const item of res.body.items) expect(Object.keys(item)).toEqual(['id', 'title']);
  });

  it('hides relations by default and adds the expanded ones on top of fields', async () => {
    const plain = await service.get('/api/v1/products?size=2');
    expect(plain.body.items[0]).not.toHaveProperty('variants');
    const res = await service.get('/api/v1/products?fields=id&expand=variants,images&size=2');
    // The keys come in declaration order.
    for (const item of res.body.items) expect(Object.keys(item)).toEqual(['id', 'images', 'variants']);
  });

  it('adds every relation with expand=all', async () => {
    const res = await service.get('/api/v1/products?fields=id&expand=all&size=2');
    for (const item of res.body.items)
      expect(Object.keys(item)).toEqual(['id', 'textareas', 'images', 'options', 'variants', 'metafields']);
  });

  it('works on single reads too', async () => {
    const res = await service.get('/api/v1/products/7?fields=id,sku&expand=textareas');
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(['id', 'sku', 'textareas']);
  });

  it('refuses unknown names with a 400 listing the valid ones', async () => {
    const fields = await service.get('/api/v1/products?fields=id,nope');
    expect(fields.status).toBe(400);
    expect(fields.body.errors).toEqual([
      { field: 'fields', message: expect.stringContaining('valid: id, title, is_multi') },
    ]);
    const expand = await service.get('/api/v1/products/1?expand=variants,nope');
    expect(expand.status).toBe(400);
    expect(expand.body.errors).toEqual([
      {
        field: 'expand',
        message: expect.stringContaining('valid: textareas, images, options, variants, metafields, all'),
      },
    ]);
    const noRelations = await service.get('/api/v1/shipping-carriers?expand=anything');
    expect(noRelations.status).toBe(400);
    expect(noRelations.body.errors[0].field).toBe('expand');
  });
});

describe('deep pages', () => {
  // From offset 1000 a page is read through its ids in the sort index (a deferred join): it must
  // hold exactly the rows the same sort gives at that position, ties on the sort key included.
  it('answers a page past offset 1000 with the rows at that position of the sorted set', async () => {
    await service.sql(`insert into customer (email, first_name, last_name, order_count, created_at)
      select 'deep' || g || '@example.com', 'Deep', 'Page' || (g % 7), g % 3, now() from generate_series(1, 1100) g`);
    const expected = await service.sql<{ id: number }>(
      'select id from customer order by order_count desc, id desc offset 1010 limit 10',
    );
    const res = await service.get('/api/v1/customers?sort=!statistics.order_count&size=10&page=102&fields=id');
    expect(res.status).toBe(200);
    expect(res.body.items.map((c: { id: number }) => c.id)).toEqual(expected.map((r) => r.id));
    expect(res.body._meta.totalCount).toBe(
      Number((await service.sql<{ n: string }>('select count(*) as n from customer'))[0].n),
    );
  });
});
