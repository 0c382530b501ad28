// A customer's derived figures (docs/decisions.md#domain-rules: statistics from the customer's
// orders) hold whatever orders the store takes: a hundred and one paid orders at the largest total
// an order may have still sum into `lifetime_spent`, and the writes that refresh it still answer.
import { startTestService, type TestService } from './support/harness.js';

let service: TestService;
beforeAll(async () => {
  service = await startTestService();
});
afterAll(() => service.stop());

const LARGEST_TOTAL = '9999999999.99';

it('sums a hundred and one paid orders at the largest total into lifetime_spent', async () => {
  const [{ id: customer }, { id: other }] = await service.sql<{ id: number }>(
    'select id from customer where erased_at is null order by id limit 2',
  );
  // 101 orders of the store become the customer's, paid, at the largest total (as a store running
  // for years could take them); one more is then moved to it through the API, which refreshes its figures.
  const orders = await service.sql<{ id: number }>(
    'select id from orders where customer_id <> ? order by id limit 102',
    [customer],
  );
  const moved = orders
    .slice(0, 101)
    .map((o) => Number(o.id))
    .join(', ');
  await service.sql(`update orders set customer_id = ?, paid = 1, total = ?, refunded = 0 where id in (${moved})`, [
    customer,
    LARGEST_TOTAL,
  ]);
  const last = orders[101].id;
  await service.sql('update orders set customer_id = ?, paid = 0 where id = ?', [other, last]);
  const res = await service.send('PATCH', `/api/v1/orders/${last}/customer`, { id: customer });
  expect(res.status).toBe(200);
  // The sum of its paid orders, exactly (the GraphQL Decimal: REST's JSON number rounds it).
  const [expected] = await service.sql<{ spent: string; orders: number }>(
    `select sum(total - refunded) filter (where paid <> 0)::text as spent, count(*)::int as orders
      from orders where customer_id = ?`,
    [customer],
  );
  expect(Number(expected.spent)).toBeGreaterThan(1e12);
  const read = await service.graphql(`{ customer(id: ${customer}) { statistics { orderCount lifetimeSpent } } }`);
  expect(read.body.data.customer.statistics).toEqual({ orderCount: expected.orders, lifetimeSpent: expected.spent });
});
