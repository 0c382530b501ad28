// A bulk operation survives the process running it (docs/decisions.md#bulk-writes): the service
// as `npm start` runs it applies a file of fulfilments, is killed with SIGKILL mid-way, and a second
// process takes the operation over once the first one's lease ran out, resuming at the first line
// without a result. Counted in the database afterwards: every line applied exactly once (one
// fulfilment, one unit of stock, one event per line; one result per line, in order).
import { createDatabase, startTestService, type TestService } from './support/harness.js';
import { pickVariants, placeOrder, setStock, stockOf } from './support/orders.js';
import { npmStartNodeFlags, type ServerProcess, startServerProcess } from './support/server-process.js';
import { until } from './support/until.js';

const ADMIN = 'sk_bulk_crash_admin_token_0123456789abc';
const LINES = 300;
const WAREHOUSE = 1;

let service: TestService;
let databaseUrl: string;
const servers: ServerProcess[] = [];

beforeAll(async () => {
  databaseUrl = await createDatabase();
  // This process only places the orders and counts: made without bulk settings, it runs no bulk work.
  service = await startTestService({ databaseUrl });
}, 30_000);
afterAll(async () => {
  await Promise.all(servers.map((server) => server.stop()));
  await service.stop();
}, 30_000);

const start = async () => {
  const env = { RATE_LIMIT_RPS: '0', RATE_LIMIT_BURST: '0', BULK_CONCURRENCY: '1' };
  const server = await startServerProcess(databaseUrl, ADMIN, env, npmStartNodeFlags());
  servers.push(server);
  return server;
};

const progress = async (id: number) =>
  (
    await service.sql<{ status: string; processed: number; runner: string | null }>(
      'select status, processed_lines as processed, runner from bulk_operation where id = ?',
      [id],
    )
  )[0];

it('is resumed by another process after a SIGKILL, every line applied exactly once', async () => {
  const { tracked } = await pickVariants(service);
  await setStock(service, WAREHOUSE, tracked, LINES + 10);
  const orders: { id: number; line: number }[] = [];
  for (let i = 0; i < LINES; i++) {
    const order = await placeOrder(service, [{ variantId: tracked, quantity: 1 }]);
    orders.push({ id: order.id, line: order.items[0].data.id });
  }
  const stockBefore = await stockOf(service, WAREHOUSE, tracked);
  const file = orders
    .map((order) =>
      JSON.stringify({
        method: 'POST',
        path: `/orders/${order.id}/fulfilments`,
        body: { items: [{ id: order.line, quantity: 1, warehouse: WAREHOUSE }] },
      }),
    )
    .join('\n');

  const first = await start();
  const made = await fetch(`${first.url}/api/v1/bulk-operations`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/x-ndjson' },
    body: file,
  });
  expect(made.status).toBe(202);
  const { id } = (await made.json()) as { id: number };
  await until(async () => (await progress(id)).processed >= 40, 30_000, 20);
  const runner = (await progress(id)).runner;
  expect(await first.signal('SIGKILL')).toBe(null);
  const atKill = await progress(id);
  expect(atKill.status).toBe('running');
  expect(atKill.processed).toBeLessThan(LINES);

  const second = await start();
  const done = await until(
    async () => {
      const now = await progress(id);
      return now.status === 'completed' && now;
    },
    60_000,
    200,
  );
  expect(done.processed).toBe(LINES);
  // Only the second process was left to finish it (the first one's runner had held it).
  expect(runner).not.toBeNull();

  // Exactly once, counted in the database: one fulfilment per order, one unit of stock per line,
  // one fulfilment.created event per order, one result per line, lines 1..N.
  const perOrder = await service.sql<{ order_id: number; n: number }>(
    'select o.id as order_id, count(f.id)::int as n from orders o left join fulfilment f on f.order_id = o.id ' +
      'where o.id in (?) group by o.id',
    [orders.map((o) => o.id)],
  );
  expect(perOrder.filter((row) => row.n !== 1)).toEqual([]);
  expect(perOrder).toHaveLength(LINES);
  expect(await stockOf(service, WAREHOUSE, tracked)).toBe(stockBefore - LINES);
  const [{ events }] = await service.sql<{ events: number }>(
    "select count(*)::int as events from event where type = 'fulfilment.created' and order_id in (?)",
    [orders.map((o) => o.id)],
  );
  expect(events).toBe(LINES);
  const resultLines = await service.sql<{ line: number; failed: boolean }>(
    'select line, failed from bulk_result where operation_id = ? order by line',
    [id],
  );
  expect(resultLines.map((row) => row.line)).toEqual(orders.map((_, i) => i + 1));
  expect(resultLines.filter((row) => row.failed)).toEqual([]);
  const answer = await fetch(`${second.url}/api/v1/bulk-operations/${id}/results`, {
    headers: { authorization: `Bearer ${ADMIN}` },
  });
  const lines = (await answer.text())
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line));
  expect(lines.map((line) => [line.line, line.status])).toEqual(orders.map((_, i) => [i + 1, 201]));
}, 120_000);
