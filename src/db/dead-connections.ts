import type { Pool, PoolClient } from 'pg';

/**
 * Gives back to the pool a client whose connection ended while it was checked out (its backend was
 * terminated, PostgreSQL restarted or failed over), released with an error so the pool drops it.
 *
 * A holder normally releases its client however its work ends, but a transaction's does not:
 * Kysely releases a transaction's connection only after a successful COMMIT or ROLLBACK, and on a
 * dead connection both fail, so MikroORM's `transactional` left the client checked out for good.
 * A few backend deaths inside writes used up the pool, and every later request waited for a
 * connection that never came (`test/dead-backend.test.ts`). A later release by the holder is a
 * no-op.
 */
export function releaseDeadClients(pool: Pool): void {
  const checkedOut = new WeakSet<PoolClient>();
  pool.on('acquire', (client) => checkedOut.add(client));
  pool.on('release', (_error, client) => checkedOut.delete(client));
  pool.on('connect', (client) => {
    client.once('end', () => {
      if (!checkedOut.has(client)) return;
      const release = client.release;
      client.release = () => undefined;
      release(new Error('the connection ended while checked out'));
    });
  });
}
