import type { Pool } from 'pg';

/**
 * The session's timeouts, set with one `SET` statement as each pooled connection opens, before any
 * query of its holder, rather than as startup parameters of the connection (node-postgres's
 * `statement_timeout` option): PgBouncer 1.18 (Debian 12's) refuses every startup parameter it does
 * not track, so a connection through it failed outright, and `ignore_startup_parameters` would have
 * dropped the timeouts without a word (docs/deployment.md#pgbouncer). A value of 0 (the CLIs'
 * migrations: no statement timeout) is left at the server's default. One statement per connection
 * opened, never per query.
 */
export function setSessionTimeouts(pool: Pool, settings: Record<string, number>): void {
  const text = Object.entries(settings)
    .filter(([, ms]) => Number.isInteger(ms) && ms > 0)
    .map(([name, ms]) => `set ${name} = ${ms}`)
    .join('; ');
  if (!text) return;
  // Queued first on the new connection: node-postgres runs a client's queries in order.
  pool.on('connect', (client) => {
    client.query(text).catch(() => undefined); // a broken connection fails its holder's query too
  });
}

/**
 * A transaction opened with a plain BEGIN is a write transaction (src/domain/transaction.ts; reads
 * on a snapshot open theirs with START TRANSACTION, bulk uploads lift the bound for themselves): its
 * BEGIN carries the write statement timeout in the same simple query (`begin; set local …`), so a
 * write pays no round trip of its own for it (a lock wait under contention may be longer than a
 * read's bound). MikroORM sends BEGIN through Kysely's driver, which has no setting for it, so the
 * text is replaced on its way to `pg`, where every layer's statements pass. A pool without a read
 * bound (the CLIs: a migration may run long) gets none here either (mikro-orm.config.ts).
 */
export function writeTransactionsBegin(pool: Pool, statementTimeoutMs: number): void {
  const begin = `begin; set local statement_timeout = ${Math.trunc(statementTimeoutMs)}`;
  pool.on('connect', (client) => {
    const query = client.query.bind(client) as (...args: unknown[]) => unknown;
    client.query = ((text: unknown, ...rest: unknown[]) =>
      text === 'begin' ? query(begin, ...rest) : query(text, ...rest)) as typeof client.query;
  });
}
