import type { MikroORM } from '@mikro-orm/postgresql';
import type { Pool, PoolClient } from 'pg';
import { Histogram } from 'prom-client';
import { registry } from './metrics.js';

registry.removeSingleMetric('db_pool_wait_seconds');
const poolWait = new Histogram({
  name: 'db_pool_wait_seconds',
  help: 'time a request waited for a database connection from the pool',
  buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2, 3],
  registers: [registry],
});

const measured = new WeakSet<Pool>();

/**
 * Times every checkout of the ORM's `pg` pool (`db_pool_wait_seconds`), next to the pool's queue
 * length (`db_pool_waiting_requests`): a wait growing towards the connect timeout means the
 * admission limits (MAX_IN_FLIGHT) are too high for DB_POOL_MAX.
 */
export async function measurePoolWait(orm: MikroORM): Promise<void> {
  const pool: Pool = await orm.em.getConnection().getNativeClient();
  if (!pool || measured.has(pool) || typeof pool.connect !== 'function') return;
  measured.add(pool);
  const connect = pool.connect.bind(pool) as (...args: unknown[]) => Promise<PoolClient> | undefined;
  // pg's `connect` is overloaded (promise and callback forms): the timed one is set as a plain value.
  Object.assign(pool, {
    connect: (...args: unknown[]) => {
      if (args.length) return connect(...args); // callback form: not used by the ORM
      const end = poolWait.startTimer();
      const checkout = connect() as Promise<PoolClient>;
      checkout.then(
        () => end(),
        () => end(),
      );
      return checkout;
    },
  });
}
