// A write whose PostgreSQL backend dies mid-transaction (terminated by an operator, a crash, a
// failover) fails that request, and gives its pooled connection back: before, the failed ROLLBACK
// left the client checked out for good, so a few such deaths used up the pool and every later
// request waited for a connection that never came.
import pg from 'pg';
import { startTestService, type TestService } from './support/harness.js';
import { until } from './support/until.js';

const POOL = 3;
let service: TestService;
let databaseUrl: string;
let blocker: pg.Client;

beforeAll(async () => {
  service = await startTestService({ poolMax: POOL });
  databaseUrl = service.orm.config.get('clientUrl')!;
  blocker = new pg.Client({ connectionString: databaseUrl });
  await blocker.connect();
});
afterAll(async () => {
  await blocker?.end();
  await service?.stop();
});

it('gives a connection back when its backend dies inside a write, however often that happens', async () => {
  const [{ id }] = await service.sql<{ id: number }>('select id from product order by id limit 1');
  for (let round = 1; round <= POOL + 2; round++) {
    // The product's row is held by another session, so the service's write waits inside its transaction.
    await blocker.query('begin');
    await blocker.query('select 1 from product where id = $1 for update', [id]);
    const patched = service.send('PATCH', `/api/v1/products/${id}`, { title: `round ${round}` });
    const pid = await until(
      async () => {
        // The blocker's transaction would otherwise see the activity view as it was at its first look.
        await blocker.query('select pg_stat_clear_snapshot()');
        const { rows } = await blocker.query<{ pid: number }>(
          `select pid from pg_stat_activity
         where datname = current_database() and wait_event_type = 'Lock' and pid <> pg_backend_pid()`,
        );
        return rows[0]?.pid;
      },
      10_000,
      20,
    );
    await blocker.query('select pg_terminate_backend($1)', [pid]);
    const answer = await patched;
    expect(answer.status).toBe(503);
    await blocker.query('rollback');
  }
  // Every connection of the pool has had its backend killed once by now; writes and reads still run.
  const patched = await service.send('PATCH', `/api/v1/products/${id}`, { title: 'after the deaths' });
  expect(patched.status).toBe(200);
  expect((await service.get(`/api/v1/products/${id}?fields=title`)).body.title).toBe('after the deaths');
  const [{ title }] = await service.sql<{ title: string }>('select title from product where id = ?', [id]);
  expect(title).toBe('after the deaths');
}, 60_000);
