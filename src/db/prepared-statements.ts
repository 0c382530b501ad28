import type { Pool, PoolClient } from 'pg';

/**
 * Statements that start with this comment run as named prepared statements: parsed and planned
 * once per connection instead of on every request. The read path's statements are generated per
 * selection and carry many subqueries, so PostgreSQL spent longer planning them than running them
 * (0.5 ms against 0.35 ms for an order with everything).
 */
export const PREPARED = '/* prepared */ ';

// One name per distinct text, for the whole process; the texts are the finite set of selection
// shapes, bounded all the same (past the bound a statement simply runs unnamed).
const names = new Map<string, string>();
const MAX_NAMES = 2000;

function nameOf(text: string): string | undefined {
  let name = names.get(text);
  if (!name && names.size < MAX_NAMES) names.set(text, (name = `s${names.size + 1}`));
  return name;
}

/**
 * Hooked into the pool MikroORM creates (`driverOptions.onPoolCreated`): a marked text sent by
 * any layer above (Kysely, MikroORM) goes to `pg` with its name, which `pg` prepares on first use
 * per connection and then only binds and executes.
 */
export function preparePooledStatements(pool: Pool): void {
  pool.on('connect', (client: PoolClient) => {
    const query = client.query.bind(client) as (...args: unknown[]) => unknown;
    client.query = ((text: unknown, ...rest: unknown[]) => {
      const name = typeof text === 'string' && text.startsWith(PREPARED) ? nameOf(text) : undefined;
      return name ? query({ name, text, values: rest[0] }, ...rest.slice(1)) : query(text, ...rest);
    }) as PoolClient['query'];
  });
}
