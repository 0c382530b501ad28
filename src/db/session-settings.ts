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
