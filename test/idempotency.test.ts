// docs/decisions.md#retries: Idempotency-Key replays the first answer of a write without
// doing the work again, refuses the key with another body, and makes concurrent duplicates wait.
import { randomBytes } from 'node:crypto';
import { startTestService, type TestService } from './support/harness.js';
import { pickVariants, placeOrder } from './support/orders.js';

let service: TestService;
let variants: { tracked: number; untracked: number };
beforeAll(async () => {
  service = await startTestService();
  variants = await pickVariants(service);
});
afterAll(() => service.stop());

const fulfilmentsOf = async (orderId: number) =>
  (await service.sql<{ n: number }>('select count(*)::int as n from fulfilment where order_id = ?', [orderId]))[0].n;

it('answers a sequential retry with the first answer, doing the work once', async () => {
  const order = await placeOrder(service, [{ variantId: variants.untracked, quantity: 5 }]);
  const body = { items: [{ id: order.items[0].data.id, quantity: 1 }] };
  const first = await service.send('POST', `/api/v1/orders/${order.id}/fulfilments`, body, undefined, {
    'idempotency-key': 'retry-1',
  });
  expect(first.status).toBe(201);
  const again = await service.send(
    'POST',
    `/api/v1/orders/${order.id}/fulfilments`,
    { items: [{ quantity: 1, id: order.items[0].data.id }] },
    undefined,
    { 'idempotency-key': 'retry-1' },
  );
  expect(again.status).toBe(201);
  expect(again.body).toEqual(first.body);
  expect(again.headers.get('etag')).toBe(first.headers.get('etag'));
  expect(again.headers.get('idempotent-replayed')).toBe('true');
  expect(await fulfilmentsOf(order.id)).toBe(1);
  // Another key is another request.
  expect(
    (
      await service.send('POST', `/api/v1/orders/${order.id}/fulfilments`, body, undefined, {
        'idempotency-key': 'retry-2',
      })
    ).status,
  ).toBe(201);
  expect(await fulfilmentsOf(order.id)).toBe(2);
});

it('refuses the same key with another body with 422, before anything else', async () => {
  await service.send('PATCH', '/api/v1/customers/14', { notes: 'first' }, undefined, {
    'idempotency-key': 'notes-key',
  });
  const other = await service.send('PATCH', '/api/v1/customers/14', { notes: 'second' }, undefined, {
    'idempotency-key': 'notes-key',
  });
  expect(other.status).toBe(422);
  expect(other.body.errors[0].field).toBe('Idempotency-Key');
  expect((await service.get('/api/v1/customers/14')).body.notes).toBe('first');
  // Even a body that would be invalid gets the key refusal first.
  const invalid = await service.send('PATCH', '/api/v1/customers/14', { nickname: 1 }, undefined, {
    'idempotency-key': 'notes-key',
  });
  expect(invalid.body.errors[0].field).toBe('Idempotency-Key');
});

it('keeps and replays 4xx answers too', async () => {
  const first = await service.send('PATCH', '/api/v1/customers/15', { email: 'not-an-email' }, undefined, {
    'idempotency-key': 'bad-email',
  });
  expect(first.status).toBe(422);
  const again = await service.send('PATCH', '/api/v1/customers/15', { email: 'not-an-email' }, undefined, {
    'idempotency-key': 'bad-email',
  });
  expect(again.status).toBe(422);
  expect(again.body).toEqual(first.body);
  expect(again.headers.get('content-type')).toMatch(/application\/problem\+json/);
});

it('scopes keys per token, method and path', async () => {
  const other = await service.tokenWith(['write_customers', 'read_customers']);
  await service.send('PATCH', '/api/v1/customers/16', { notes: 'a' }, undefined, { 'idempotency-key': 'shared' });
  const byOther = await service.send('PATCH', '/api/v1/customers/16', { notes: 'b' }, other, {
    'idempotency-key': 'shared',
  });
  expect(byOther.status).toBe(200);
  const otherPath = await service.send('PATCH', '/api/v1/customers/17', { notes: 'c' }, undefined, {
    'idempotency-key': 'shared',
  });
  expect(otherPath.status).toBe(200);
});

it('makes concurrent duplicates wait for the first and answer the same', async () => {
  const order = await placeOrder(service, [{ variantId: variants.untracked, quantity: 50 }]);
  const body = { items: [{ id: order.items[0].data.id, quantity: 1 }] };
  const answers = await Promise.all(
    Array.from({ length: 10 }, () =>
      service.send('POST', `/api/v1/orders/${order.id}/fulfilments`, body, undefined, { 'idempotency-key': 'burst' }),
    ),
  );
  expect(answers.map((a) => a.status)).toEqual(Array(10).fill(201));
  for (const a of answers) expect(a.body).toEqual(answers[0].body);
  expect(await fulfilmentsOf(order.id)).toBe(1);
});

it('refuses a malformed key with 400', async () => {
  const res = await service.send('PATCH', '/api/v1/customers/18', { notes: 'x' }, undefined, {
    'idempotency-key': 'x'.repeat(300),
  });
  expect(res.status).toBe(400);
  expect(res.body.errors[0].field).toBe('Idempotency-Key');
  // Sent empty, it is no key a retry could repeat: refused too, and nothing written.
  const empty = await service.send('PATCH', '/api/v1/customers/18', { notes: 'empty key' }, undefined, {
    'idempotency-key': '',
  });
  expect(empty.status).toBe(400);
  expect(empty.body.errors[0].field).toBe('Idempotency-Key');
  expect((await service.get('/api/v1/customers/18')).body.notes).not.toBe('empty key');
});

it('a path segment that is no id is a 404 with a key too, however long (no key is stored for it)', async () => {
  const [{ count: before }] = await service.sql<{ count: string }>('select count(*) from idempotency_key');
  // Random, so it does not compress: longer than a btree index entry PostgreSQL takes.
  const segment = randomBytes(3000).toString('hex');
  const res = await service.send('POST', `/api/v1/orders/${segment}/fulfilments`, { items: [] }, undefined, {
    'idempotency-key': 'no-such-order',
  });
  expect(res.status).toBe(404);
  expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  const [{ count: after }] = await service.sql<{ count: string }>('select count(*) from idempotency_key');
  expect(after).toBe(before);
});

it('replays the first answer with its JSON keys in the order they were sent', async () => {
  const first = await service.send('PATCH', '/api/v1/customers/19', { notes: 'ordered' }, undefined, {
    'idempotency-key': 'key-order',
  });
  expect(first.status).toBe(200);
  const again = await service.send('PATCH', '/api/v1/customers/19', { notes: 'ordered' }, undefined, {
    'idempotency-key': 'key-order',
  });
  expect(again.headers.get('idempotent-replayed')).toBe('true');
  expect(again.text).toBe(first.text);
  expect(Object.keys(again.body)).toEqual(Object.keys(first.body));
});

it(
  'D4: a database fault while keeping the answer is a 503 with Retry-After, ' + 'and the write is rolled back with it',
  async () => {
    const order = await placeOrder(service, [{ variantId: variants.untracked, quantity: 5 }]);
    const body = { items: [{ id: order.items[0].data.id, quantity: 1 }] };
    await service.sql(`create function test_fail_complete() returns trigger language plpgsql as $$
    begin if new.status is not null then raise exception 'injected fault'; end if; return new; end $$`);
    await service.sql(
      'create trigger test_fail_complete before update on idempotency_key ' +
        'for each row execute function test_fail_complete()',
    );
    try {
      const failed = await service.send('POST', `/api/v1/orders/${order.id}/fulfilments`, body, undefined, {
        'idempotency-key': 'fault-1',
      });
      expect(failed.status).toBe(503);
      expect(failed.headers.get('retry-after')).toBe('2');
      expect(failed.headers.get('content-type')).toMatch(/application\/problem\+json/);
      expect(failed.text).not.toMatch(/injected|trigger|update/i);
      // A 4xx answered before anything ran is kept by the autocommit path: same fault, same 503.
      const invalid = await service.send('PATCH', '/api/v1/customers/20', { email: 'nope' }, undefined, {
        'idempotency-key': 'fault-2',
      });
      expect(invalid.status).toBe(503);
      expect(await fulfilmentsOf(order.id)).toBe(0);
    } finally {
      await service.sql('drop trigger test_fail_complete on idempotency_key');
      await service.sql('drop function test_fail_complete()');
    }
    // The retry runs the write, once.
    const retried = await service.send('POST', `/api/v1/orders/${order.id}/fulfilments`, body, undefined, {
      'idempotency-key': 'fault-1',
    });
    expect(retried.status).toBe(201);
    expect(retried.headers.get('idempotent-replayed')).toBeNull();
    expect(await fulfilmentsOf(order.id)).toBe(1);
  },
);
