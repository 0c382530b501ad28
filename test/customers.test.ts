// Customers listed, read, searched and updated; derived figures agree with the orders.
import { startTestService, type TestService } from './support/harness.js';

let service: TestService;
beforeAll(async () => {
  service = await startTestService();
});
afterAll(() => service.stop());

const search = (body: unknown, query = 'size=250') => service.send('POST', `/api/v1/customers/search?${query}`, body);
const ids = (res: { body: { items: { id: number }[] } }) => res.body.items.map((c) => c.id).sort((a, b) => a - b);
const sqlIds = async (where: string, params: unknown[] = []) =>
  (await service.sql<{ id: number }>(`select c.id from customer c where ${where} order by c.id`, params)).map(
    (r) => r.id,
  );

describe('GET /customers and /customers/{id}', () => {
  it('answers every Customer field of the spec', async () => {
    const res = await service.get('/api/v1/customers?size=3');
    expect(res.status).toBe(200);
    expect(res.body._meta.totalCount).toBe(120);
    for (const c of res.body.items) {
      expect(Object.keys(c)).toEqual([
        'id',
        'email',
        'first_name',
        'last_name',
        'address',
        'payment',
        'notes',
        'statistics',
        'orders',
        'tags',
        'created_at',
        'updated_at',
        'erased_at',
      ]);
      expect(Object.keys(c.statistics)).toEqual(['last_purchase', 'order_count', 'lifetime_spent']);
      expect(Number.isInteger(c.statistics.lifetime_spent)).toBe(true);
    }
  });

  it('shows addresses with id, shipping, billing (no company) and phone', async () => {
    const [row] = await service.sql<{ customer_id: number }>(
      'select customer_id from customer_address order by id limit 1',
    );
    const c = (await service.get(`/api/v1/customers/${row.customer_id}`)).body;
    expect(c.address.length).toBeGreaterThan(0);
    expect(Object.keys(c.address[0])).toEqual(['id', 'shipping', 'billing', 'phone']);
    expect(Object.keys(c.address[0].shipping)).toEqual([
      'first_name',
      'last_name',
      'company',
      'street',
      'suite',
      'city',
      'country',
      'state',
      'zip',
    ]);
    expect(c.address[0].billing).not.toHaveProperty('company');
  });

  it('derives statistics, orders and tags from the customer’s orders', async () => {
    const customers = await service.sql<{ id: number }>(
      'select customer_id as id from orders group by customer_id order by count(*) desc, customer_id limit 6',
    );
    for (const { id } of customers) {
      const c = (await service.get(`/api/v1/customers/${id}`)).body;
      const orders = await service.sql<{ id: number; total: string; refunded: string; paid: number; order_date: Date }>(
        'select id, total, refunded, paid, order_date from orders where customer_id = ? order by id',
        [id],
      );
      expect(c.orders).toEqual(orders.map((o) => o.id));
      expect(c.statistics.order_count).toBe(orders.length);
      const spentCents = orders
        .filter((o) => o.paid !== 0)
        .reduce((sum, o) => sum + Math.round(Number(o.total) * 100) - Math.round(Number(o.refunded) * 100), 0);
      expect(c.statistics.lifetime_spent).toBe(Math.floor((spentCents + 50) / 100));
      const last = Math.max(...orders.map((o) => new Date(o.order_date).getTime()));
      expect(c.statistics.last_purchase).toBe(Math.floor(last / 1000));
      const tags = await service.sql<{ tag: string }>(
        `select distinct t as tag from orders o join line_item li on li.order_id = o.id
          join product p on p.id = li.product_id,
         unnest(p.tags) t where o.customer_id = ? order by 1`,
        [id],
      );
      expect(c.tags).toEqual(tags.map((t) => t.tag));
    }
  });

  it('shows null last_purchase and no orders for a customer who never bought', async () => {
    const [row] = await service.sql<{ id: number }>(
      'select id from customer c where not exists (select 1 from orders o where o.customer_id = c.id) ' +
        'order by id limit 1',
    );
    const c = (await service.get(`/api/v1/customers/${row.id}`)).body;
    expect(c.statistics).toEqual({ last_purchase: null, order_count: 0, lifetime_spent: 0 });
    expect(c.orders).toEqual([]);
    expect(c.tags).toEqual([]);
  });

  it('sorts by statistics and answers 404 for a missing customer', async () => {
    const res = await service.get('/api/v1/customers?sort=!statistics.order_count&fields=id,statistics&size=10');
    const counts = res.body.items.map((c: any) => c.statistics.order_count);
    expect(counts).toEqual([...counts].sort((a, b) => b - a));
    expect((await service.get('/api/v1/customers/99999')).status).toBe(404);
  });
});

describe('POST /customers/search', () => {
  it('matches strings as case-insensitive substrings, arrays as any of', async () => {
    expect(ids(await search({ last_name: 'HOPP' }))).toEqual(await sqlIds("c.last_name ilike '%hopp%'"));
    expect(ids(await search({ first_name: ['ada', 'Grace'] }))).toEqual(
      await sqlIds("c.first_name ilike '%ada%' or c.first_name ilike '%grace%'"),
    );
    expect(ids(await search({ email: '.1@' }))).toEqual(await sqlIds("c.email like '%.1@%'"));
  });

  it('treats LIKE wildcards in a value literally', async () => {
    expect((await search({ email: '%' })).body.items).toEqual([]);
    expect((await search({ last_name: '_' })).body.items).toEqual([]);
  });

  it('filters by nested address fields, as nested objects or dotted keys alike', async () => {
    const expected = await sqlIds(
      "exists (select 1 from customer_address a where a.customer_id = c.id and a.shipping_city ilike '%london%')",
    );
    expect(expected.length).toBeGreaterThan(0);
    expect(ids(await search({ address: { shipping: { city: 'london' } } }))).toEqual(expected);
    expect(ids(await search({ 'address.shipping.city': 'london' }))).toEqual(expected);
    expect(ids(await search({ address: { 'shipping.city': 'london' } }))).toEqual(expected);
  });

  it('matches all address conditions on one address', async () => {
    const expected = await sqlIds(`exists (select 1 from customer_address a where a.customer_id = c.id
      and a.shipping_country ilike '%us%' and a.billing_state ilike '%ca%')`);
    expect(ids(await search({ address: { shipping: { country: 'US' }, billing: { state: 'CA' } } }))).toEqual(expected);
  });

  it('filters by phone and shipping_country', async () => {
    const [{ phone }] = await service.sql<{ phone: string }>(
      'select phone from customer_address where phone is not null order by id limit 1',
    );
    const part = phone.slice(-5);
    expect(ids(await search({ address: { phone: part } }))).toEqual(
      await sqlIds('exists (select 1 from customer_address a where a.customer_id = c.id and a.phone like ?)', [
        `%${part}%`,
      ]),
    );
    expect(ids(await search({ address: { shipping_country: 'de' } }))).toEqual(
      await sqlIds(
        "exists (select 1 from customer_address a where a.customer_id = c.id and a.shipping_country ilike '%de%')",
      ),
    );
  });

  it('filters by orders (any of the ids) and order_count (exact, list, range)', async () => {
    const orders = await service.sql<{ id: number; customer_id: number }>(
      'select id, customer_id from orders order by id limit 3',
    );
    expect(ids(await search({ orders: orders.map((o) => o.id) }))).toEqual(
      [...new Set(orders.map((o) => o.customer_id))].sort((a, b) => a - b),
    );
    expect(ids(await search({ order_count: 2 }))).toEqual(await sqlIds('c.order_count = 2'));
    expect(ids(await search({ order_count: [0, 3] }))).toEqual(await sqlIds('c.order_count in (0, 3)'));
    expect(ids(await search({ order_count: { gte: 2, lte: 3 } }))).toEqual(
      await sqlIds('c.order_count between 2 and 3'),
    );
    expect(ids(await search({ order_count: { gte: 4 } }))).toEqual(await sqlIds('c.order_count >= 4'));
  });

  it('combines filters with AND', async () => {
    expect(
      ids(await search({ first_name: 'a', order_count: { gte: 1 }, address: { shipping: { country: 'us' } } })),
    ).toEqual(
      await sqlIds(`c.first_name ilike '%a%' and c.order_count >= 1 and exists (select 1 from customer_address a
        where a.customer_id = c.id and a.shipping_country ilike '%us%')`),
    );
  });

  it('pages, sorts and selects fields over the results, with the wrapper and headers', async () => {
    const all = ids(await search({ first_name: 'a' }));
    const seen: number[] = [];
    for (let page = 1; page <= Math.ceil(all.length / 7); page++) {
      const res = await search({ first_name: 'a' }, `size=7&page=${page}&sort=last_name&fields=id,last_name`);
      expect(res.body._meta).toMatchObject({ totalCount: all.length, perPage: 7, currentPage: page });
      expect(res.headers.get('x-pagination-total-count')).toBe(String(all.length));
      for (const item of res.body.items) expect(Object.keys(item)).toEqual(['id', 'last_name']);
      seen.push(...res.body.items.map((c: { id: number }) => c.id));
    }
    expect(seen.sort((a, b) => a - b)).toEqual(all);
    expect(new URL((await search({}, 'size=5&page=2')).body._links.self.href).pathname).toBe(
      '/api/v1/customers/search',
    );
  });

  it('answers every customer for an empty body', async () => {
    expect((await search({})).body._meta.totalCount).toBe(120);
    expect((await service.send('POST', '/api/v1/customers/search')).body._meta.totalCount).toBe(120);
  });

  it('refuses unknown filter keys and bad values with 422 naming them', async () => {
    const unknown = await search({ nickname: 'x', address: { shipping: { planet: 'Mars' } } });
    expect(unknown.status).toBe(422);
    expect(unknown.body.errors.map((e: { field: string }) => e.field)).toEqual(['nickname', 'address.shipping.planet']);
    for (const body of [
      { order_count: 'many' },
      { order_count: { gt: 1 } },
      { email: 5 },
      { orders: ['x'] },
      { first_name: [] },
    ]) {
      const res = await search(body);
      expect(res.status).toBe(422);
      expect(res.body.errors[0].field).toBe(Object.keys(body)[0]);
    }
    expect((await search([1, 2])).status).toBe(422);
  });

  it('refuses keys that are names of built-in object properties as unknown filters', async () => {
    for (const key of ['constructor', 'toString', '__defineGetter__', 'hasOwnProperty', 'valueOf']) {
      const res = await search({ [key]: 5 });
      expect(res.status).toBe(422);
      expect(res.body.errors[0]).toEqual({ field: key, message: expect.stringContaining('is not a filter') });
    }
  });

  it('refuses NUL characters, overlong lists and a filter given in both spellings', async () => {
    const nul = await search({ email: 'a\u0000b' });
    expect(nul.status).toBe(422);
    expect(nul.body.errors[0].field).toBe('email');
    const long = await search({ email: Array.from({ length: 101 }, () => 'a') });
    expect(long.status).toBe(422);
    expect(long.body.errors[0].message).toContain('at most 100');
    const twice = await search({ 'address.shipping.city': 'york', address: { shipping: { city: 'zzzz' } } });
    expect(twice.status).toBe(422);
    expect(twice.body.errors[0].field).toBe('address.shipping.city');
  });
});

describe('PATCH /customers/{id}', () => {
  it('an empty address block changes nothing: a customer without an address gains none', async () => {
    const made = await service.graphql(
      'mutation { createCustomer(input: { email: "no.address@example.com", firstName: "Nadia" }) { id } }',
    );
    const id = made.body.data.createCustomer.id;
    const res = await service.send('PATCH', `/api/v1/customers/${id}`, { address: {} });
    expect(res.status).toBe(200);
    expect(res.body.address).toEqual([]);
  });

  const snapshot = async (id: number) => (await service.get(`/api/v1/customers/${id}`)).body;

  it('changes the given fields and answers the Customer with updated_at', async () => {
    const before = await snapshot(5);
    const res = await service.send('PATCH', '/api/v1/customers/5', {
      first_name: 'Katherine',
      notes: 'prefers e-mail',
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id: 5,
      first_name: 'Katherine',
      notes: 'prefers e-mail',
      last_name: before.last_name,
      email: before.email,
    });
    expect(res.body.updated_at).toBeGreaterThanOrEqual(Math.floor(Date.now() / 1000) - 5);
    expect(await snapshot(5)).toEqual(res.body);
    const cleared = await service.send('PATCH', '/api/v1/customers/5', { notes: null });
    expect(cleared.body.notes).toBeNull();
  });

  it('merges address into the primary address', async () => {
    const [row] = await service.sql<{ customer_id: number }>(
      'select customer_id from customer_address where position = 0 order by customer_id limit 1',
    );
    const before = await snapshot(row.customer_id);
    const res = await service.send('PATCH', `/api/v1/customers/${row.customer_id}`, {
      address: { shipping: { city: 'Toronto', country: 'ca', state: 'on' }, phone: '+1 416 555 0100' },
    });
    expect(res.status).toBe(200);
    const primary = res.body.address[0];
    expect(primary.id).toBe(before.address[0].id);
    expect(primary.shipping).toEqual({ ...before.address[0].shipping, city: 'Toronto', country: 'CA', state: 'ON' });
    expect(primary.billing).toEqual(before.address[0].billing);
    expect(primary.phone).toBe('+1 416 555 0100');
    expect(res.body.address.slice(1)).toEqual(before.address.slice(1));
  });

  it('creates the primary address when there is none', async () => {
    const [row] = await service.sql<{ id: number }>(
      'select id from customer c where not exists (select 1 from customer_address a where a.customer_id = c.id) ' +
        'order by id limit 1',
    );
    const res = await service.send('PATCH', `/api/v1/customers/${row.id}`, {
      address: { billing: { street: '1 Infinite Loop', country: 'US', state: 'CA' } },
    });
    expect(res.status).toBe(200);
    expect(res.body.address).toHaveLength(1);
    expect(res.body.address[0].billing).toMatchObject({ street: '1 Infinite Loop', country: 'US', state: 'CA' });
  });

  it.each([
    [{ email: 'not-an-email' }, 'email'],
    [{ address: { shipping: { country: 'XX' } } }, 'address.shipping.country'],
    [{ address: { billing: { country: 'US', state: 'ZZ' } } }, 'address.billing.state'],
    [{ address: { shipping: { country: 'DE', state: 'CA' } } }, 'address.shipping.state'],
    [{ first_name: 42 }, 'first_name'],
    [{ nickname: 'x' }, 'nickname'],
    [{ id: 7 }, 'id'],
    [{ statistics: {} }, 'statistics'],
    [{ address: { shipping: { planet: 'Mars' } } }, 'address.shipping.planet'],
    [{ address: { phone: 5 } }, 'address.phone'],
    [{ address: { billing: { company: 'Hidden Co' } } }, 'address.billing.company'],
    [{ first_name: 'a\u0000b' }, 'first_name'],
    [{ address: { shipping: { city: '\u0000' } } }, 'address.shipping.city'],
  ])('refuses %j with 422 naming %s and changes nothing', async (body, field) => {
    const before = await snapshot(9);
    const res = await service.send('PATCH', '/api/v1/customers/9', body);
    expect(res.status).toBe(422);
    expect(res.headers.get('content-type')).toMatch(/application\/problem\+json/);
    expect(res.body.errors.map((e: { field: string }) => e.field)).toContain(field);
    expect(await snapshot(9)).toEqual(before);
  });

  it('marks read-only fields as such', async () => {
    const res = await service.send('PATCH', '/api/v1/customers/9', { created_at: 1 });
    expect(res.body.errors).toEqual([{ field: 'created_at', message: 'is read-only' }]);
  });

  it('refuses an e-mail another customer has with 409, case-insensitively', async () => {
    const [other] = await service.sql<{ email: string }>('select email from customer where id = 10');
    const before = await snapshot(11);
    const res = await service.send('PATCH', '/api/v1/customers/11', { email: other.email.toUpperCase() });
    expect(res.status).toBe(409);
    expect(res.body.errors.map((e: { field: string }) => e.field)).toEqual(['email']);
    expect(await snapshot(11)).toEqual(before);
    const own = await service.send('PATCH', '/api/v1/customers/11', { email: before.email.toUpperCase() });
    expect(own.status).toBe(200);
  });

  it('answers 404 for a missing customer, 415 for a non-JSON body, 400 for malformed JSON', async () => {
    expect((await service.send('PATCH', '/api/v1/customers/99999', { notes: 'x' })).status).toBe(404);
    expect(
      (await service.send('PATCH', '/api/v1/customers/9', 'notes=x', undefined, { 'content-type': 'text/plain' }))
        .status,
    ).toBe(415);
    expect(
      (
        await service.send('PATCH', '/api/v1/customers/9', '{"notes":', undefined, {
          'content-type': 'application/json',
        })
      ).status,
    ).toBe(400);
  });

  it('needs write_customers', async () => {
    const reader = await service.tokenWith(['read_customers']);
    expect((await service.send('PATCH', '/api/v1/customers/9', { notes: 'x' }, reader)).status).toBe(403);
  });
});

describe('GraphQL customers', () => {
  it('creates, filters, updates and deletes customers; refuses deleting one with orders', async () => {
    const created = await service.graphql(
      'mutation ($input: CustomerCreate!) { createCustomer(input: $input) { id email ' +
        'addresses { shipping { country } } statistics { orderCount } } }',
      {
        input: {
          email: 'new.person@example.com',
          firstName: 'New',
          lastName: 'Person',
          address: { shipping: { country: 'GB', state: 'LND' } },
        },
      },
    );
    expect(created.body.errors).toBeUndefined();
    const id = created.body.data.createCustomer.id;
    expect(created.body.data.createCustomer.addresses[0].shipping.country).toBe('GB');
    const found = await service.graphql('{ customers(filter: { email: ["new.person"] }) { totalCount items { id } } }');
    expect(found.body.data.customers.items).toEqual([{ id }]);
    const dup = await service.graphql('mutation { createCustomer(input: { email: "NEW.person@example.com" }) { id } }');
    expect(dup.body.errors[0].extensions.code).toBe('CONFLICT');
    const deleted = await service.graphql(`mutation { deleteCustomer(id: ${id}) }`);
    expect(deleted.body.data.deleteCustomer).toBe(id);
    expect((await service.get(`/api/v1/customers/${id}`)).status).toBe(404);

    const [buyer] = await service.sql<{ customer_id: number }>('select customer_id from orders limit 1');
    const refused = await service.graphql(`mutation { deleteCustomer(id: ${buyer.customer_id}) }`);
    expect(refused.body.errors[0].extensions.code).toBe('CONFLICT');
    expect((await service.get(`/api/v1/customers/${buyer.customer_id}`)).status).toBe(200);
  });

  it('refuses NUL characters and huge lists in any argument before running', async () => {
    const nul = await service.graphql('query ($f: CustomerFilter) { customers(filter: $f) { totalCount } }', {
      f: { email: ['a\u0000'] },
    });
    expect(nul.body.errors[0].extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      fields: [{ field: 'email[0]', message: expect.any(String) }],
    });
    const huge = await service.graphql('query ($f: CustomerFilter) { customers(filter: $f) { totalCount } }', {
      f: { email: Array.from({ length: 5000 }, () => 'a') },
    });
    expect(huge.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
    const update = await service.graphql('mutation { updateCustomer(id: 3, input: { firstName: "x\\u0000" }) { id } }');
    expect(update.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
  });

  it('reports field errors in GraphQL names', async () => {
    const res = await service.graphql(
      'mutation { updateCustomer(id: 3, input: { email: "nope", address: { shipping: { country: "XX" } } }) { id } }',
    );
    expect(res.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
    expect(res.body.errors[0].extensions.fields.map((f: { field: string }) => f.field)).toEqual([
      'email',
      'address.shipping.country',
    ]);
  });
});
