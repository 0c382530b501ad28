// docs/decisions.md#conditional-writes: strong ETags from the record's version, 304 for a
// current If-None-Match, 412 for a stale If-Match with nothing changed, order sub-resources
// compared against the order's ETag.
import { startTestService, type TestService } from './support/harness.js';

let service: TestService;
beforeAll(async () => {
  service = await startTestService();
});
afterAll(() => service.stop());

it('gives single reads a strong ETag that fields and expand do not change, and answers 304', async () => {
  const full = await service.get('/api/v1/products/3?expand=all');
  const some = await service.get('/api/v1/products/3?fields=id');
  const etag = full.headers.get('etag')!;
  expect(etag).toMatch(/^"v\d+"$/);
  expect(some.headers.get('etag')).toBe(etag);
  const cached = await service.get('/api/v1/products/3', undefined, { 'if-none-match': etag });
  expect(cached.status).toBe(304);
  expect(cached.headers.get('etag')).toBe(etag);
  expect(cached.text).toBe('');
  expect((await service.get('/api/v1/products/3', undefined, { 'if-none-match': '"v0"' })).status).toBe(200);
  // If-None-Match compares weakly (RFC 9110): the tag a compressing proxy weakened still matches.
  const weak = await service.get('/api/v1/products/3', undefined, { 'if-none-match': `"v0", W/${etag}` });
  expect(weak.status).toBe(304);
  for (const path of ['/api/v1/orders/3', '/api/v1/customers/3', '/api/v1/collections/1'])
    expect((await service.get(path)).headers.get('etag')).toMatch(/^"v\d+"$/);
});

it('refuses a write with a stale If-Match with 412 and changes nothing; the current one goes through', async () => {
  const before = await service.get('/api/v1/customers/12');
  const etag = before.headers.get('etag')!;
  const first = await service.send('PATCH', '/api/v1/customers/12', { notes: 'first editor' }, undefined, {
    'if-match': etag,
  });
  expect(first.status).toBe(200);
  const newer = first.headers.get('etag')!;
  expect(newer).not.toBe(etag);
  const second = await service.send('PATCH', '/api/v1/customers/12', { notes: 'second editor' }, undefined, {
    'if-match': etag,
  });
  expect(second.status).toBe(412);
  expect(second.headers.get('content-type')).toMatch(/application\/problem\+json/);
  expect((await service.get('/api/v1/customers/12')).body.notes).toBe('first editor');
  const retried = await service.send('PATCH', '/api/v1/customers/12', { notes: 'second editor' }, undefined, {
    'if-match': newer,
  });
  expect(retried.status).toBe(200);
  expect(
    (await service.send('PATCH', '/api/v1/customers/12', { notes: 'any' }, undefined, { 'if-match': '*' })).status,
  ).toBe(200);
});

it('guards product edits the same way', async () => {
  const etag = (await service.get('/api/v1/products/4')).headers.get('etag')!;
  expect(
    (await service.send('PATCH', '/api/v1/products/4', { seo_meta: 'one' }, undefined, { 'if-match': etag })).status,
  ).toBe(200);
  const stale = await service.send('PATCH', '/api/v1/products/4', { seo_meta: 'two' }, undefined, { 'if-match': etag });
  expect(stale.status).toBe(412);
  expect((await service.get('/api/v1/products/4')).body.seo_meta).toBe('one');
});

it('compares writes under an order (notes, address, fulfilments) with the order’s ETag', async () => {
  const [row] = await service.sql<{ id: number; line: number }>(
    `select o.id, li.id as line from orders o join line_item li on li.order_id = o.id
     join inventory_level il on il.variant_id = li.variant_id and il.warehouse_id = 1 and il.quantity >= 2
     where o.status = 0 order by o.id limit 1`,
  );
  const etag = (await service.get(`/api/v1/orders/${row.id}`)).headers.get('etag')!;
  const fulfilled = await service.send(
    'POST',
    `/api/v1/orders/${row.id}/fulfilments`,
    { items: [{ id: row.line, quantity: 1, warehouse: 1 }] },
    undefined,
    { 'if-match': etag },
  );
  expect(fulfilled.status).toBe(201);
  const after = fulfilled.headers.get('etag')!;
  expect(after).not.toBe(etag);
  const before = (await service.get(`/api/v1/orders/${row.id}`)).body;
  for (const [method, path, body] of [
    ['PATCH', '', { notes: 'late' }],
    ['PATCH', '/address', { shipping: { city: 'Late' } }],
    ['POST', '/fulfilments', { items: [{ id: row.line, quantity: 1, warehouse: 1 }] }],
    ['DELETE', `/fulfilments/${fulfilled.body.fulfilments.at(-1).id}`, undefined],
  ] as const) {
    const res = await service.send(method, `/api/v1/orders/${row.id}${path}`, body, undefined, { 'if-match': etag });
    expect({ path, status: res.status }).toEqual({ path, status: 412 });
  }
  expect((await service.get(`/api/v1/orders/${row.id}`)).body).toEqual(before);
  expect(
    (await service.send('PATCH', `/api/v1/orders/${row.id}`, { notes: 'on time' }, undefined, { 'if-match': after }))
      .status,
  ).toBe(200);
});
