// A short statement timeout for reads (docs/operations.md#admission-control-and-timeouts): a read
// that runs past the pool's statement timeout ends with a 503 asking to narrow or retry (never a
// 500, never a held connection), while a write transaction may wait on a lock longer than that and
// still succeed.
import { MikroORM } from '@mikro-orm/postgresql';
import pg from 'pg';
import { ormConfig } from '../mikro-orm.config.js';
import { hashSecret } from '../src/auth/api-tokens.js';
import { WRITE_STATEMENT_TIMEOUT_MS } from '../src/db/statement-timeouts.js';
import { startTestService, type TestService } from './support/harness.js';

let service: TestService;
beforeAll(async () => {
  service = await startTestService({ readTimeoutMs: 300 });
});
afterAll(() => service.stop());

it('ends a read stuck past the read timeout with 503 + Retry-After; a write waits past it and succeeds', async () => {
  // The test's own database (the harness's), reached directly to hold a table lock.
  const url = service.orm.config.get('clientUrl') as string;
  const locker = new pg.Client({ connectionString: url });
  await locker.connect();
  try {
    await locker.query('begin');
    await locker.query('lock table warehouse in access exclusive mode');
    const started = Date.now();
    const write = service.graphql('mutation { createWarehouse(title: "after the lock") { id title } }');
    const read = await service.get('/api/v1/warehouses');
    expect(read.status).toBe(503);
    expect(read.headers.get('retry-after')).toBe('2');
    expect(read.body.detail).toMatch(/took too long/);
    expect(Date.now() - started).toBeLessThan(3000);
    await new Promise((r) => setTimeout(r, 700)); // the write has now waited > 2 × the read timeout
    await locker.query('commit');
    const written = await write;
    expect(written.body.errors).toBeUndefined();
    expect(written.body.data.createWarehouse.title).toBe('after the lock');
  } finally {
    await locker.end();
  }
  expect((await service.get('/api/v1/warehouses')).status).toBe(200);
});

it('checks a caller first once a read that carried its check ran past the timeout: revoked, it gets 401', async () => {
  const url = service.orm.config.get('clientUrl') as string;
  const secret = await service.tokenWith(['read_inventory']);
  expect((await service.get('/api/v1/warehouses', secret)).status).toBe(200); // seen: its next read carries the check
  const locker = new pg.Client({ connectionString: url });
  await locker.connect();
  try {
    await locker.query('begin');
    await locker.query('lock table warehouse in access exclusive mode');
    await service.sql(`update api_token set revoked_at = now() where secret_hash = '${hashSecret(secret)}'`);
    // The page's statement, which carried the check, was cancelled: a 503, the check not come out.
    expect((await service.get('/api/v1/warehouses', secret)).status).toBe(503);
    // Not carried again: the token is looked up first, and found revoked, however long reads take.
    const again = await service.get('/api/v1/warehouses', secret);
    expect(again.status).toBe(401);
  } finally {
    await locker.query('rollback');
    await locker.end();
  }
});

it('answers a bulk operation read past the timeout with 503 + Retry-After, as every read', async () => {
  const url = service.orm.config.get('clientUrl') as string;
  const locker = new pg.Client({ connectionString: url });
  await locker.connect();
  try {
    await locker.query('begin');
    await locker.query('lock table bulk_operation in access exclusive mode');
    // Its statements are the bulk routes' own, outside an operation: they met the 500 of the unexpected.
    const res = await service.get('/api/v1/bulk-operations/1/results');
    expect({ status: res.status, retryAfter: res.headers.get('retry-after') }).toEqual({
      status: 503,
      retryAfter: '2',
    });
    expect(res.body.detail).toMatch(/took too long/);
  } finally {
    await locker.query('rollback');
    await locker.end();
  }
});

it('bounds a write transaction by the write timeout, and leaves the CLIs’ (migrations) unbounded', async () => {
  const url = service.orm.config.get('clientUrl') as string;
  const timeoutIn = async (readTimeoutMs: number) => {
    const orm = await MikroORM.init(ormConfig(url, { pool: { min: 0, max: 1 } }, readTimeoutMs));
    try {
      const outside = await orm.em.getConnection().execute<{ statement_timeout: string }[]>('show statement_timeout');
      const inside = await orm.em
        .fork()
        .transactional((tx) => tx.execute<{ statement_timeout: string }[]>('show statement_timeout'));
      return { outside: outside[0].statement_timeout, inside: inside[0].statement_timeout };
    } finally {
      await orm.close();
    }
  };
  expect(await timeoutIn(300)).toEqual({ outside: '300ms', inside: `${WRITE_STATEMENT_TIMEOUT_MS / 1000}s` });
  expect(await timeoutIn(0)).toEqual({ outside: '0', inside: '0' });
});
