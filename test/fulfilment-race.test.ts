// Concurrency (docs/decisions.md#concurrency): parallel requests to two server processes sharing one database can
// never over-fulfil or oversell. Exactly the available number succeed, the rest get 409.
import { createDatabase, startTestService, type TestService } from './support/harness.js';
import { pickVariants, placeOrder, setStock, stockOf } from './support/orders.js';
import { type ServerProcess, startServerProcess } from './support/server-process.js';

const ADMIN = 'race-test-admin-token-0123456789';
let service: TestService;
let servers: ServerProcess[] = [];
let variants: { tracked: number; untracked: number };

beforeAll(async () => {
  // The in-test service shares the database with the two processes (for setup and checks).
  const url = await createDatabase();
  service = await startTestService({ databaseUrl: url });
  variants = await pickVariants(service);
  servers = await Promise.all([startServerProcess(url, ADMIN), startServerProcess(url, ADMIN)]);
}, 60_000);
afterAll(async () => {
  await Promise.all(servers.map((s) => s.stop()));
  await service.stop();
});

async function fulfilOneEach(orderId: number, body: unknown, count: number): Promise<number[]> {
  const requests = Array.from({ length: count }, (_, i) =>
    fetch(`${servers[i % 2].url}/api/v1/orders/${orderId}/fulfilments`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    }).then(async (res) => {
      await res.text();
      return res.status;
    }),
  );
  return Promise.all(requests);
}

it('20 requests for 1 unit each of a line with 5 left: exactly 5 succeed, 15 get 409', async () => {
  const order = await placeOrder(service, [{ variantId: variants.untracked, quantity: 5 }]);
  const line = order.items[0].data.id;
  const statuses = await fulfilOneEach(order.id, { items: [{ id: line, quantity: 1 }] }, 20);
  expect(statuses.filter((s) => s === 201)).toHaveLength(5);
  expect(statuses.filter((s) => s === 409)).toHaveLength(15);
  const after = (await service.get(`/api/v1/orders/${order.id}`)).body;
  expect(after.items[0].status).toEqual({ quantity: 5, not_fulfilled: 0, fulfilled: 5, shipped: 0, restocked: 0 });
  expect(after.fulfilments).toHaveLength(5);
  expect(after.status).toBe(3);
});

it('20 requests for 1 tracked unit each with 7 in stock: exactly 7 succeed, stock ends at 0', async () => {
  await setStock(service, 1, variants.tracked, 7);
  const order = await placeOrder(service, [{ variantId: variants.tracked, quantity: 30 }]);
  const line = order.items[0].data.id;
  const statuses = await fulfilOneEach(order.id, { items: [{ id: line, quantity: 1, warehouse: 1 }] }, 20);
  expect(statuses.filter((s) => s === 201)).toHaveLength(7);
  expect(statuses.filter((s) => s === 409)).toHaveLength(13);
  expect(await stockOf(service, 1, variants.tracked)).toBe(0);
  const after = (await service.get(`/api/v1/orders/${order.id}`)).body;
  expect(after.items[0].status).toEqual({ quantity: 30, not_fulfilled: 23, fulfilled: 7, shipped: 0, restocked: 0 });
});

it('two orders racing for the last units of one variant never oversell', async () => {
  await setStock(service, 1, variants.tracked, 6);
  const [a, b] = await Promise.all(
    [1, 2].map(() => placeOrder(service, [{ variantId: variants.tracked, quantity: 10 }])),
  );
  const results = await Promise.all([
    fulfilOneEach(a.id, { items: [{ id: a.items[0].data.id, quantity: 1, warehouse: 1 }] }, 10),
    fulfilOneEach(b.id, { items: [{ id: b.items[0].data.id, quantity: 1, warehouse: 1 }] }, 10),
  ]);
  expect(results.flat().filter((s) => s === 201)).toHaveLength(6);
  expect(await stockOf(service, 1, variants.tracked)).toBe(0);
  const fulfilled = await service.sql<{ n: number }>(
    'select coalesce(sum(fulfilled), 0)::int as n from line_item where order_id in (?, ?)',
    [a.id, b.id],
  );
  expect(fulfilled[0].n).toBe(6);
});
