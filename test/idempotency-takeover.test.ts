// docs/decisions.md#retries: a key is written once even when its first request outlives its lease.
// The first request waits on the order's lock past its lease; a retry takes the key over and waits
// on the same lock. Both then run in turn: only one may write, and both answer that one write.
import pg from 'pg';
import { createDatabase, startTestService, type TestService } from './support/harness.js';
import { lockWaits } from './support/lock-waits.js';
import { pickVariants, placeOrder } from './support/orders.js';

let service: TestService;
let locker: pg.Client;
beforeAll(async () => {
  const databaseUrl = await createDatabase();
  service = await startTestService({ databaseUrl });
  locker = new pg.Client({ connectionString: databaseUrl });
  await locker.connect();
});
afterAll(async () => {
  await locker.end();
  await service.stop();
});

it('a retry that takes over a lapsed key makes the write once, and both requests answer it', async () => {
  const { untracked } = await pickVariants(service);
  const order = await placeOrder(service, [{ variantId: untracked, quantity: 5 }]);
  const path = `/api/v1/orders/${order.id}/fulfilments`;
  const body = { items: [{ id: order.items[0].data.id, quantity: 1 }] };
  const headers = { 'idempotency-key': 'outlives-its-lease' };

  await locker.query('begin');
  await locker.query('select id from orders where id = $1 for update', [order.id]);
  const first = service.send('POST', path, body, undefined, headers);
  await lockWaits(service);
  // The first holder's lease lapses while it waits (as when it cannot renew: a stalled process).
  await service.sql(`update idempotency_key set locked_until = now() - interval '1 second' where key = ?`, [
    headers['idempotency-key'],
  ]);
  const retry = service.send('POST', path, body, undefined, headers);
  await lockWaits(service, 2); // both are writing: the retry took the key over
  await locker.query('commit');

  const [a, b] = await Promise.all([first, retry]);
  const fulfilments = await service.sql<{ n: number }>('select count(*)::int as n from fulfilment where order_id = ?', [
    order.id,
  ]);
  expect(fulfilments[0].n).toBe(1);
  expect([a.status, b.status]).toEqual([201, 201]);
  expect(a.body).toEqual(b.body);
  expect(a.headers.get('location')).toBe(b.headers.get('location'));
  const [kept] = await service.sql<{ status: number }>('select status from idempotency_key where key = ?', [
    headers['idempotency-key'],
  ]);
  expect(kept.status).toBe(201);
});
