// Orders listed, read, paged, searched and edited; order creation in GraphQL.
import { startTestService, type TestService } from './support/harness.js';

let service: TestService;
beforeAll(async () => {
  service = await startTestService();
});
afterAll(() => service.stop());

const search = (body: unknown, query = 'size=250') => service.send('POST', `/api/v1/orders/search?${query}`, body);
const idsOf = (items: { id: number }[]) => items.map((o) => o.id).sort((a, b) => a - b);
const sqlIds = async (where: string, params: unknown[] = []) =>
  (await service.sql<{ id: number }>(`select o.id from orders o where ${where} order by o.id`, params)).map(
    (r) => r.id,
  );

describe('GET /orders and /orders/{id}', () => {
  it('answers every Order field of the spec, with money as two-decimal strings and integer timestamps', async () => {
    const res = await service.get('/api/v1/orders?size=5');
    expect(res.status).toBe(200);
    expect(res.body._meta.totalCount).toBe(240);
    for (const o of res.body.items) {
      expect(Object.keys(o)).toEqual([
        'id',
        'display_number',
        'email',
        'status',
        'paid',
        'discounts',
        'shipping',
        'tax',
        'total',
        'ip',
        'items',
        'fulfilments',
        'shipments',
        'restocks',
        'customer',
        'address',
        'payment',
        'conversion',
        'risk_level',
        'refunded',
        'refund_possible',
        'order_date',
        'updated_at',
        'notes',
      ]);
      expect(o.display_number).toBe(`#${o.id}`);
      for (const money of [o.shipping.price, o.tax, o.total, o.refunded]) expect(money).toMatch(/^\d+\.\d{2}$/);
      expect(Number.isInteger(o.order_date)).toBe(true);
      expect(Object.keys(o.customer)).toEqual(['id', 'email', 'first_name', 'last_name']);
      expect(Object.keys(o.address)).toEqual(['shipping', 'billing', 'phone']);
      expect(Object.keys(o.risk_level)).toEqual(['ip_fail', 'address_fail', 'zip_fail', 'cvc_fail']);
      expect(Object.keys(o.conversion)).toEqual(['landing_page', 'referrer']);
      for (const item of o.items) {
        expect(Object.keys(item)).toEqual(['data', 'status']);
        expect(item.data.price).toMatch(/^\d+\.\d{2}$/);
        const s = item.status;
        expect(s.quantity).toBe(s.not_fulfilled + s.fulfilled + s.shipped + s.restocked);
        expect(Object.keys(item.data.variant)).toEqual(['id', 'variant']);
      }
    }
  });

  it('shows fulfilment and shipment records that match the counters, with tracking URLs', async () => {
    const [row] = await service.sql<{ id: number }>('select id from orders where status = 4 order by id limit 1');
    const o = (await service.get(`/api/v1/orders/${row.id}`)).body;
    expect(o.status).toBe(4);
    expect(o.fulfilments[0]).toEqual({
      id: expect.any(Number),
      warehouse: expect.any(Number),
      items: expect.any(Array),
      created_at: expect.any(Number),
      updated_at: null,
    });
    const shipment = o.shipments[0];
    expect(shipment.fulfilment_id).toBe(o.fulfilments[0].id);
    const [carrier] = await service.sql<{ url: string }>('select url from shipping_carrier where id = ?', [
      shipment.shipping_carrier,
    ]);
    expect(shipment.tracking_url).toBe(carrier.url + shipment.tracking_number);
    const shipped = o.items.reduce((n: number, i: any) => n + i.status.shipped, 0);
    expect(shipment.items.reduce((n: number, i: any) => n + i.quantity, 0)).toBe(shipped);
  });

  it('answers updated_at null for an order never updated, and 404 for a missing one', async () => {
    const [row] = await service.sql<{ id: number }>(
      'select id from orders where updated_at is null order by id limit 1',
    );
    expect((await service.get(`/api/v1/orders/${row.id}?fields=id,updated_at`)).body).toEqual({
      id: row.id,
      updated_at: null,
    });
    expect((await service.get('/api/v1/orders/99999')).status).toBe(404);
  });

  it('sorts by scalar fields and nested ones', async () => {
    for (const [sort, key] of [
      ['!total', (o: any) => -Number(o.total)],
      ['status', (o: any) => o.status],
      ['shipping.price', (o: any) => Number(o.shipping.price)],
    ] as const) {
      const items = (await service.get(`/api/v1/orders?size=250&sort=${sort}&fields=id,total,status,shipping`)).body
        .items;
      const values = items.map(key);
      expect(values).toEqual([...values].sort((a: number, b: number) => a - b));
    }
    const bad = await service.get('/api/v1/orders?sort=items');
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0].message).toContain('sortable: id, display_number, email, status');
  });
});

describe('GET /orders/{id}/page', () => {
  it('agrees with the list for several sorts and sizes, ties included', async () => {
    await service.sql('update orders set notes = null where id % 3 = 0');
    for (const sort of ['', 'id', '!total', 'status', '-status,total', 'paid', 'notes', '!updated_at', 'email']) {
      for (const size of [1, 7, 20, 250]) {
        const query = `${sort ? `sort=${sort}&` : ''}size=${size}`;
        const all: number[] = [];
        for (let page = 1; page <= Math.ceil(240 / size) && page <= 40; page++) {
          all.push(
            ...(await service.get(`/api/v1/orders?${query}&page=${page}&fields=id`)).body.items.map(
              (o: { id: number }) => o.id,
            ),
          );
        }
        for (const index of [0, 1, Math.floor(all.length / 2), all.length - 1]) {
          const res = await service.get(`/api/v1/orders/${all[index]}/page?${query}`);
          expect({ sort, size, id: all[index], page: res.body.page }).toEqual({
            sort,
            size,
            id: all[index],
            page: Math.floor(index / size) + 1,
          });
        }
      }
    }
  });

  it('answers 404 for a missing order and 400 for bad parameters', async () => {
    expect((await service.get('/api/v1/orders/99999/page')).status).toBe(404);
    expect((await service.get('/api/v1/orders/1/page?size=0')).status).toBe(400);
    expect((await service.get('/api/v1/orders/1/page?sort=bogus')).status).toBe(400);
  });
});

describe('POST /orders/search', () => {
  it('answers a bare array with the pagination headers', async () => {
    const res = await search({ status: 5 }, 'size=3&page=2');
    expect(Array.isArray(res.body)).toBe(true);
    expect(res.body).toHaveLength(3);
    const total = (await sqlIds('o.status = 5')).length;
    expect(res.headers.get('x-pagination-total-count')).toBe(String(total));
    expect(res.headers.get('x-pagination-current-page')).toBe('2');
    expect(res.headers.get('link')).toContain('rel="next"');
  });

  it.each([
    [{ id: 7 }, 'o.id = 7'],
    [{ id: [7, 8, 9] }, 'o.id in (7, 8, 9)'],
    [{ display_number: '#12' }, "o.id::text like '%12%'"],
    [{ email: 'LOVELACE' }, "o.email ilike '%lovelace%'"],
    [{ status: [1, 2] }, 'o.status in (1, 2)'],
    [{ paid: -1 }, 'o.paid = -1'],
    [{ status: { gte: 2, lte: 4 } }, 'o.status between 2 and 4'],
    [{ paid: { lte: -1 } }, 'o.paid <= -1'],
    [{ shipping_description: 'express' }, "o.shipping_description ilike '%express%'"],
    [{ shipping_price: '12.99' }, 'o.shipping_price = 12.99'],
    [{ shipping_price: 0 }, 'o.shipping_price = 0'],
    [{ tax: { gte: 20, lte: '30.5' } }, 'o.tax between 20 and 30.5'],
    [{ total: { gte: '300' } }, 'o.total >= 300'],
    [{ ip: '203.0.113.1' }, "o.ip like '%203.0.113.1%'"],
    [{ payment_method: 'visa' }, "o.payment_type ilike '%visa%'"],
    [{ last4: '12' }, "o.payment_last4 like '%12%'"],
    [{ ip_fail: true }, 'o.ip_fail'],
    [{ address_fail: false, zip_fail: true }, 'not o.address_fail and o.zip_fail'],
    [{ cvc_fail: [true, false] }, 'true'],
    [{ refunded: { gte: 0.01 } }, 'o.refunded > 0'],
    [{ refund_possible: false }, 'not o.refund_possible'],
    [{ notes: 'gift' }, "o.notes ilike '%gift%'"],
    [{ order_date: { gte: 1767225600 } }, 'o.order_date >= to_timestamp(1767225600)'],
    [{ updated_at: { lte: 1767225600 } }, 'o.updated_at <= to_timestamp(1767225600)'],
  ])('filters %j', async (body, where) => {
    const res = await search(body);
    expect(res.status).toBe(200);
    const expected = await sqlIds(where);
    expect(idsOf(res.body)).toEqual(expected);
  });

  it.each([
    ['!total', 'o.total desc, o.id desc'],
    ['order_date', 'o.order_date asc, o.id asc'],
    ['', 'o.id desc'],
  ])('pages a text search sorted by %j with its total count, ties included', async (sort, order) => {
    const total = (await sqlIds("o.email ilike '%e%'")).length;
    expect(total).toBeGreaterThan(21);
    for (const page of [1, 2, 3]) {
      const res = await search({ email: 'E' }, `size=7&page=${page}${sort ? `&sort=${sort}` : ''}`);
      expect(res.status).toBe(200);
      const expected = await service.sql<{ id: number }>(
        `select o.id from orders o where o.email ilike '%e%' order by ${order} limit 7 offset ${(page - 1) * 7}`,
      );
      expect(res.body.map((o: { id: number }) => o.id)).toEqual(expected.map((r) => r.id));
      expect(res.headers.get('x-pagination-total-count')).toBe(String(total));
    }
  });

  it('filters by cart_price, the sum of item prices × quantities', async () => {
    const [row] = await service.sql<{ id: number; cart: string }>(
      'select o.id, sum(li.price * li.quantity)::text as cart ' +
        'from orders o join line_item li on li.order_id = o.id group by o.id order by o.id limit 1',
    );
    const res = await search({ cart_price: row.cart });
    expect(idsOf(res.body)).toContain(row.id);
    const expected = await sqlIds(
      '(select sum(li.price * li.quantity) from line_item li where li.order_id = o.id) = ?',
      [row.cart],
    );
    expect(idsOf(res.body)).toEqual(expected);
    const ranged = await search({ cart_price: { gte: 100, lte: 200 } });
    expect(idsOf(ranged.body)).toEqual(
      await sqlIds(
        '(select sum(li.price * li.quantity) from line_item li where li.order_id = o.id) between 100 and 200',
      ),
    );
  });

  it('filters by customer_id and by full_name against customer, shipping or billing names', async () => {
    const [c] = await service.sql<{ customer_id: number; first_name: string; last_name: string }>(
      'select o.customer_id, c.first_name, c.last_name ' +
        'from orders o join customer c on c.id = o.customer_id order by o.id limit 1',
    );
    expect(idsOf((await search({ customer_id: c.customer_id })).body)).toEqual(
      await sqlIds('o.customer_id = ?', [c.customer_id]),
    );
    const name = `${c.first_name} ${c.last_name}`.toUpperCase();
    const expected = await sqlIds(
      `concat_ws(' ', o.shipping_first_name, o.shipping_last_name) ilike ?
        or concat_ws(' ', o.billing_first_name, o.billing_last_name) ilike ?
       or exists (select 1 from customer c where c.id = o.customer_id
         and concat_ws(' ', c.first_name, c.last_name) ilike ?)`,
      [`%${name}%`, `%${name}%`, `%${name}%`],
    );
    expect(expected.length).toBeGreaterThan(0);
    expect(idsOf((await search({ full_name: [name, 'Nobody Atall'] })).body)).toEqual(expected);
  });

  it('accepts POST /orders/{id}/search as the same search with the id added', async () => {
    const res = await service.send('POST', '/api/v1/orders/7/search', { status: [0, 1, 2, 3, 4, 5] });
    expect(idsOf(res.body)).toEqual([7]);
    expect((await service.send('POST', '/api/v1/orders/7/search', { id: [8, 9] })).body).toEqual([]);
  });

  it('refuses a status or payment status the spec does not define, naming the values it has', async () => {
    const res = await search({ status: [1, 9], paid: 2 });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual([
      { field: 'status', message: 'must be one of 0, 1, 2, 3, 4, 5' },
      { field: 'paid', message: 'must be one of -2, -1, 0, 1' },
    ]);
  });

  it('refuses unknown keys and bad values with 422 naming them', async () => {
    const res = await search({ colour: 'red', total: 'lots', status: { between: 1 } });
    expect(res.status).toBe(422);
    expect(res.body.errors.map((e: { field: string }) => e.field)).toEqual(['colour', 'total', 'status']);
  });
});

describe('order edits', () => {
  const snapshot = async (id: number) => (await service.get(`/api/v1/orders/${id}`)).body;

  it('PATCH /orders/{id} edits the notes and answers the whole order', async () => {
    const res = await service.send('PATCH', '/api/v1/orders/20', { notes: 'leave at the door' });
    expect(res.status).toBe(200);
    expect(res.body.notes).toBe('leave at the door');
    expect(res.body.updated_at).toBeGreaterThan(0);
    expect(res.body.items.length).toBeGreaterThan(0);
    expect(await snapshot(20)).toEqual(res.body);
  });

  it.each([
    ['/api/v1/orders/21', { status: 5 }, 'status'],
    ['/api/v1/orders/21', { total: '1.00' }, 'total'],
    ['/api/v1/orders/21', { notes: 5 }, 'notes'],
    ['/api/v1/orders/21/address', { shipping: { country: 'QQ' } }, 'shipping.country'],
    ['/api/v1/orders/21/address', { billing: { country: 'US', state: 'XX' } }, 'billing.state'],
    ['/api/v1/orders/21/address', { shipping: { moon: 'x' } }, 'shipping.moon'],
    ['/api/v1/orders/21/address', { phone: '5'.repeat(51) }, 'phone'],
    ['/api/v1/orders/21/address', { phone: 555 }, 'phone'],
    ['/api/v1/orders/21/customer', { id: 99999 }, 'id'],
    ['/api/v1/orders/21/customer', { id: 'seven' }, 'id'],
    ['/api/v1/orders/21/customer', {}, 'id'],
  ])('PATCH %s with %j is a 422 naming %s and changes nothing', async (path, body, field) => {
    const before = await snapshot(21);
    const res = await service.send('PATCH', path, body);
    expect(res.status).toBe(422);
    expect(res.body.errors.map((e: { field: string }) => e.field)).toContain(field);
    expect(await snapshot(21)).toEqual(before);
  });

  it('PATCH /orders/{id}/address merges partial blocks', async () => {
    const before = await snapshot(22);
    const res = await service.send('PATCH', '/api/v1/orders/22/address', {
      shipping: { city: 'Munich', country: 'de', state: 'by' },
      billing: { suite: null },
    });
    expect(res.status).toBe(200);
    expect(res.body.address.shipping).toEqual({
      ...before.address.shipping,
      city: 'Munich',
      country: 'DE',
      state: 'BY',
    });
    expect(res.body.address.billing).toEqual({ ...before.address.billing, suite: null });
  });

  it('PATCH /orders/{id}/address sets and clears the phone of the order', async () => {
    const set = await service.send('PATCH', '/api/v1/orders/22/address', { phone: '+49 89 1234567' });
    expect(set.status).toBe(200);
    expect(set.body.address.phone).toBe('+49 89 1234567');
    expect((await service.get('/api/v1/orders/22')).body.address.phone).toBe('+49 89 1234567');
    const cleared = await service.send('PATCH', '/api/v1/orders/22/address', { phone: null });
    expect(cleared.body.address.phone).toBeNull();
  });

  it('clears a state of the old country when only the country changes, and keeps one of the new', async () => {
    const [order] = await service.sql<{ id: number }>('select id from orders order by id desc limit 1');
    const path = `/api/v1/orders/${order.id}/address`;
    const set = await service.send('PATCH', path, { shipping: { country: 'US', state: 'NY' } });
    expect(set.status).toBe(200);
    const moved = await service.send('PATCH', path, { shipping: { country: 'DE' } });
    expect(moved.status).toBe(200);
    expect(moved.body.address.shipping).toMatchObject({ country: 'DE', state: null });
    const both = await service.send('PATCH', path, { shipping: { country: 'CA', state: 'QC' } });
    expect(both.body.address.shipping).toMatchObject({ country: 'CA', state: 'QC' });
    // A state sent with the country is still judged: one of another country is refused.
    const wrong = await service.send('PATCH', path, { shipping: { country: 'US', state: 'QC' } });
    expect(wrong.status).toBe(422);
    expect(wrong.body.errors[0].field).toBe('shipping.state');
  });

  it("adds an edited order address to the customer's profile only when the profile has none", async () => {
    const [bare] = await service.sql<{ order_id: number; customer_id: number }>(
      `select o.id as order_id, o.customer_id from orders o
        where not exists (select 1 from customer_address a where a.customer_id = o.customer_id) order by o.id limit 1`,
    );
    const etag = (await service.get(`/api/v1/customers/${bare.customer_id}`)).headers.get('etag')!;
    await service.send('PATCH', `/api/v1/orders/${bare.order_id}/address`, {
      shipping: { street: '9 Elm St', country: 'US', state: 'NY' },
    });
    const read = await service.get(`/api/v1/customers/${bare.customer_id}`);
    const profile = read.body;
    // The profile changed, so its version did: a cached copy is not answered 304, a stale If-Match is refused.
    expect(read.headers.get('etag')).not.toBe(etag);
    expect(
      (await service.get(`/api/v1/customers/${bare.customer_id}`, undefined, { 'if-none-match': etag })).status,
    ).toBe(200);
    expect(profile.address).toHaveLength(1);
    expect(profile.address[0].shipping).toMatchObject({ street: '9 Elm St', country: 'US', state: 'NY' });
    // Updated, and said so: its updated_at moved, and a customer.updated carries the address it got.
    expect(profile.updated_at).toBeGreaterThan(0);
    const [event] = await service.sql<{ type: string; data: any }>(
      "select type, data from event where subject = 'customer' and subject_id = ? order by id desc limit 1",
      [bare.customer_id],
    );
    expect(event).toMatchObject({
      type: 'customer.updated',
      data: { id: bare.customer_id, address: { shipping: { street: '9 Elm St', country: 'US', state: 'NY' } } },
    });

    const [full] = await service.sql<{ order_id: number; customer_id: number }>(
      `select o.id as order_id, o.customer_id from orders o
        where exists (select 1 from customer_address a where a.customer_id = o.customer_id) order by o.id limit 1`,
    );
    const before = (await service.get(`/api/v1/customers/${full.customer_id}`)).body.address;
    await service.send('PATCH', `/api/v1/orders/${full.order_id}/address`, { shipping: { street: '1 Other Rd' } });
    expect((await service.get(`/api/v1/customers/${full.customer_id}`)).body.address).toEqual(before);
  });

  it('PATCH /orders/{id}/customer moves the order between both customers and copies the primary address', async () => {
    const [{ id: orderId, customer_id: from }] = await service.sql<{ id: number; customer_id: number }>(
      'select id, customer_id from orders where paid = 1 order by id limit 1',
    );
    const [{ id: to }] = await service.sql<{ id: number }>(
      'select c.id from customer c where c.id <> ? ' +
        'and exists (select 1 from customer_address a where a.customer_id = c.id) order by c.id limit 1',
      [from],
    );
    const [fromBefore, toBefore] = await Promise.all(
      [from, to].map(async (id) => (await service.get(`/api/v1/customers/${id}`)).body),
    );
    const order = (await snapshot(orderId)) as any;
    const res = await service.send('PATCH', `/api/v1/orders/${orderId}/customer`, { id: to });
    expect(res.status).toBe(200);
    expect(res.body.customer).toEqual({
      id: to,
      email: toBefore.email,
      first_name: toBefore.first_name,
      last_name: toBefore.last_name,
    });
    expect(res.body.email).toBe(toBefore.email);
    const primary = toBefore.address[0];
    expect(res.body.address).toEqual({
      shipping: primary.shipping,
      billing: { ...primary.billing, company: null },
      phone: primary.phone,
    });

    const [fromAfter, toAfter] = await Promise.all(
      [from, to].map(async (id) => (await service.get(`/api/v1/customers/${id}`)).body),
    );
    expect(fromAfter.orders).toEqual(fromBefore.orders.filter((id: number) => id !== orderId));
    expect(toAfter.orders).toEqual([...toBefore.orders, orderId].sort((a, b) => a - b));
    expect(fromAfter.statistics.order_count).toBe(fromBefore.statistics.order_count - 1);
    expect(toAfter.statistics.order_count).toBe(toBefore.statistics.order_count + 1);
    const spent = Math.round(Number(order.total) - Number(order.refunded));
    expect(
      Math.abs(toAfter.statistics.lifetime_spent - toBefore.statistics.lifetime_spent - spent),
    ).toBeLessThanOrEqual(1);
  });

  it('PATCH /orders/{id}/customer with the customer it has changes nothing: its own address edits stay', async () => {
    const [{ id: orderId, customer_id: customer }] = await service.sql<{ id: number; customer_id: number }>(
      'select o.id, o.customer_id from orders o ' +
        'where exists (select 1 from customer_address a where a.customer_id = o.customer_id) ' +
        'order by o.id desc limit 1',
    );
    const edited = await service.send('PATCH', `/api/v1/orders/${orderId}/address`, {
      shipping: { street: '9 Elm Street' },
    });
    expect(edited.status).toBe(200);
    const customerBefore = await service.get(`/api/v1/customers/${customer}`);
    const events = async () => (await service.get(`/api/v1/orders/${orderId}/events?size=250`)).body.items.length;
    const eventsBefore = await events();
    const res = await service.send('PATCH', `/api/v1/orders/${orderId}/customer`, { id: customer });
    expect(res.status).toBe(200);
    expect(res.body.address.shipping.street).toBe('9 Elm Street');
    // Nor its ETag: another client holding it still writes.
    expect(res.headers.get('etag')).toBe(edited.headers.get('etag'));
    expect(await events()).toBe(eventsBefore);
    const customerAfter = await service.get(`/api/v1/customers/${customer}`);
    expect(customerAfter.headers.get('etag')).toBe(customerBefore.headers.get('etag'));
  });

  it('answers 404 for a missing order and needs write_orders', async () => {
    expect((await service.send('PATCH', '/api/v1/orders/99999', { notes: 'x' })).status).toBe(404);
    const reader = await service.tokenWith(['read_orders']);
    expect((await service.send('PATCH', '/api/v1/orders/20', { notes: 'x' }, reader)).status).toBe(403);
  });
});

describe('snapshots and createOrder', () => {
  it('keeps a line item unchanged when its product is edited after the order', async () => {
    const [li] = await service.sql<{ order_id: number; product_id: number; variant_id: number }>(
      'select order_id, product_id, variant_id from line_item order by id limit 1',
    );
    const before = (await service.get(`/api/v1/orders/${li.order_id}`)).body.items;
    await service.sql("update product set title = 'Renamed', sku = 'NEW', vendor = 'Other' where id = ?", [
      li.product_id,
    ]);
    await service.sql('update product_variant set price = price + 10, sku = ? where id = ?', [
      'CHANGED',
      li.variant_id,
    ]);
    expect((await service.get(`/api/v1/orders/${li.order_id}`)).body.items).toEqual(before);
  });

  it('creates an order with snapshots, exact totals and status 0, and updates the customer', async () => {
    const variants = await service.sql<{ id: number; price: string; title: string }>(
      'select v.id, v.price::text, p.title from product_variant v ' +
        'join product p on p.id = v.product_id order by v.id limit 2',
    );
    const [customer] = await service.sql<{ id: number; order_count: number }>(
      'select id, order_count from customer where id = 3',
    );
    const res = await service.graphql(
      `mutation ($input: OrderCreate!) { createOrder(input: $input) { id status cartPrice total tax email
        lineItems { title price counters { quantity notFulfilled } variant { id } } shipping { price } } }`,
      {
        input: {
          customerId: 3,
          items: [
            { variantId: variants[0].id, quantity: 3 },
            { variantId: variants[1].id, quantity: 1 },
          ],
          shipping: { description: 'Courier', price: '7.10' },
          tax: '0.20',
          payment: { type: 'Visa', last4: '4242' },
        },
      },
    );
    expect(res.body.errors).toBeUndefined();
    const order = res.body.data.createOrder;
    const cents = (s: string) => Math.round(Number(s) * 100);
    const cart = cents(variants[0].price) * 3 + cents(variants[1].price);
    expect(cents(order.cartPrice)).toBe(cart);
    expect(cents(order.total)).toBe(cart + 710 + 20);
    expect(order.status).toBe('NOT_FULFILLED');
    expect(order.lineItems[0]).toMatchObject({
      title: variants[0].title,
      price: variants[0].price,
      counters: { quantity: 3, notFulfilled: 3 },
    });
    const after = (await service.get('/api/v1/customers/3')).body;
    expect(after.orders).toContain(order.id);
    expect(after.statistics.order_count).toBe(customer.order_count + 1);
    const rest = (await service.get(`/api/v1/orders/${order.id}`)).body;
    expect(rest.items[0].status).toEqual({ quantity: 3, not_fulfilled: 3, fulfilled: 0, shipped: 0, restocked: 0 });
  });

  it('refuses bad orders naming the field', async () => {
    const res = await service.graphql(
      'mutation { createOrder(input: { customerId: 99999, items: [{ variantId: 999999, quantity: 0 }] }) { id } }',
    );
    expect(res.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
    expect(res.body.errors[0].extensions.fields.map((f: { field: string }) => f.field)).toEqual([
      'customerId',
      'items[0].variantId',
      'items[0].quantity',
    ]);
  });
});

describe('review findings', () => {
  it('keeps a customer’s statistics exact under 25 concurrent createOrder calls', async () => {
    const [variant] = await service.sql<{ id: number }>('select id from product_variant order by id limit 1');
    const create = () =>
      service.graphql('mutation ($input: OrderCreate!) { createOrder(input: $input) { id } }', {
        input: { customerId: 30, items: [{ variantId: variant.id, quantity: 1 }], tax: '1.00' },
      });
    const results = await Promise.all(Array.from({ length: 25 }, create));
    expect(results.every((r) => !r.body.errors)).toBe(true);
    const c = (await service.get('/api/v1/customers/30')).body;
    const [truth] = await service.sql<{ n: number; spent: string }>(
      'select count(*)::int as n, coalesce(sum(total - refunded) filter (where paid <> 0), 0)::text as spent ' +
        'from orders where customer_id = 30',
    );
    expect(c.statistics.order_count).toBe(truth.n);
    expect(c.orders).toHaveLength(truth.n);
    expect(c.statistics.lifetime_spent).toBe(Math.round(Number(truth.spent)));
  });

  it('adds at most one address to a profile without any under concurrent order address edits', async () => {
    const created = await service.graphql(
      'mutation { createCustomer(input: { email: "no.address@example.com" }) { id } }',
    );
    const customerId = created.body.data.createCustomer.id;
    const [variant] = await service.sql<{ id: number }>('select id from product_variant order by id limit 1');
    const orders = await Promise.all(
      Array.from({ length: 8 }, () =>
        service.graphql('mutation ($input: OrderCreate!) { createOrder(input: $input) { id } }', {
          input: { customerId, items: [{ variantId: variant.id, quantity: 1 }] },
        }),
      ),
    );
    const ids = orders.map((o) => o.body.data.createOrder.id);
    const edits = await Promise.all(
      ids.map((id, i) =>
        service.send('PATCH', `/api/v1/orders/${id}/address`, { shipping: { street: `${i} Main St` } }),
      ),
    );
    expect(edits.every((e) => e.status === 200)).toBe(true);
    expect((await service.get(`/api/v1/customers/${customerId}`)).body.address).toHaveLength(1);
  });

  it('refuses integers beyond 32 bits with a 422 naming the field', async () => {
    const res = await service.send('PATCH', '/api/v1/orders/10/customer', { id: 2147483648 });
    expect(res.status).toBe(422);
    expect(res.body.errors[0].field).toBe('id');
  });

  it('refuses out-of-range timestamps in GraphQL filters as bad input', async () => {
    const res = await service.graphql('{ orders(filter: { orderDate: { gte: 9999999999999 } }) { totalCount } }');
    expect(res.body.errors[0].extensions.code).not.toBe('INTERNAL_SERVER_ERROR');
    expect(res.status).toBeLessThan(500);
  });

  it('finds an order by the exact updated_at and order_date its answer showed', async () => {
    const edited = await service.send('PATCH', '/api/v1/orders/33', { notes: 'timestamp check' });
    const found = await search({ updated_at: edited.body.updated_at, id: 33 });
    expect(idsOf(found.body)).toEqual([33]);
    const [variant] = await service.sql<{ id: number }>('select id from product_variant order by id limit 1');
    const created = await service.graphql(
      'mutation ($input: OrderCreate!) { createOrder(input: $input) { id orderDate } }',
      { input: { customerId: 4, items: [{ variantId: variant.id, quantity: 1 }] } },
    );
    const { id, orderDate } = created.body.data.createOrder;
    expect(idsOf((await search({ order_date: orderDate, id })).body)).toEqual([id]);
  });
});
