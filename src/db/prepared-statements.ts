import type { EntityManager } from '@mikro-orm/postgresql';
import { CompiledQuery } from 'kysely';
import type { Pool, PoolClient } from 'pg';

/**
 * Statements that start with this comment run as named prepared statements: parsed and planned
 * once per connection instead of on every request. The read path's statements are generated per
 * selection and carry many subqueries, so PostgreSQL spent longer planning them than running them
 * (bench/analysis.md). Reads and the token check bind their values (`runPrepared`), so one
 * statement serves every id, token and search term; only a page's LIMIT, and a shallow page's
 * OFFSET, are written into the text (see page-statements.ts for why). After five runs of a
 * statement PostgreSQL plans it once for any value: a generic plan, whose planning is next to
 * nothing beside a custom plan's (EXPLAIN ANALYZE).
 */
export const PREPARED = '/* prepared */ ';

/**
 * The statement with its `?` placeholders numbered (`$1`, `$2`, …) for PostgreSQL, leaving quoted
 * literals and identifiers alone; `??` is a literal `?` (MikroORM's escape).
 */
export function numberedPlaceholders(sql: string, count: number): string {
  let out = '';
  let n = 0;
  let from = 0;
  const special = /['"?]/g;
  for (let match = special.exec(sql); match; match = special.exec(sql)) {
    const at = match.index;
    if (match[0] === '?') {
      const escaped = sql[at + 1] === '?';
      out += sql.slice(from, at) + (escaped ? '?' : `$${++n}`);
      special.lastIndex = from = at + (escaped ? 2 : 1);
    } else {
      const end = sql.indexOf(match[0], at + 1);
      if (end < 0) throw new Error('unterminated quote in a prepared statement');
      special.lastIndex = end + 1;
    }
  }
  if (n !== count) throw new Error(`prepared statement has ${n} placeholders for ${count} values`);
  return out + sql.slice(from);
}

// Statements are the finite set of selection shapes: each is numbered once (bounded all the same).
const numberedTexts = new Map<string, string>();

function numberedText(sql: string, count: number): string {
  let text = numberedTexts.get(sql);
  if (text === undefined) {
    text = `${PREPARED}${numberedPlaceholders(sql, count)}`;
    if (numberedTexts.size < MAX_NAMES) numberedTexts.set(sql, text);
  }
  return text;
}

/**
 * Runs a statement (`?` placeholders) as a named prepared statement with its values bound, in the
 * EntityManager's transaction if it has one. MikroORM's own `execute` writes the values into the
 * text, which would make every id a new statement to prepare. The statement still passes through
 * the ORM's `onQuery` (where the tests and the benchmark count statements). A `companion` given by
 * the caller runs in the same statement (see Companion); only a statement outside a transaction
 * may carry one.
 */
export async function runPrepared<T>(
  em: EntityManager,
  sql: string,
  params: readonly unknown[],
  companion?: Companion,
): Promise<T[]> {
  const transaction = em.getTransactionContext<{
    executeQuery: (query: CompiledQuery) => Promise<{ rows: unknown[] }>;
  }>();
  // A companion rides only on a statement outside a transaction: a rollback would undo its writes.
  if (companion && transaction) throw new Error('a companion cannot ride on a statement in a transaction');
  if (companion) {
    sql =
      `with ${ACCOMPANIED_READ} as materialized (select true as ${READ}, o.* from (${sql}) o), ${companion.ctes} ` +
      `select to_json(c) as ${COMPANION}, q.* from (${companion.select}) c left join ${ACCOMPANIED_READ} q on true`;
    params = [...params, ...companion.params];
  }
  const text = em.config.get('onQuery')(numberedText(sql, params.length), params as unknown[]);
  const executor = transaction ?? em.getConnection().getClient();
  const result = await executor.executeQuery(CompiledQuery.raw(text, params as unknown[]));
  if (!companion) return result.rows as T[];
  const rows = result.rows as Record<string, unknown>[];
  companion.settle(rows[0]?.[COMPANION] as Record<string, unknown> | undefined);
  return rows.filter((row) => row[READ] === true) as T[];
}

/**
 * SQL that runs in the same statement as a read, so a request pays one round trip for both: common
 * table expressions (which may wait for the read, the CTE named `ACCOMPANIED_READ`) and a select of
 * at most one row over them. `settle` gets that row (undefined when there was none) before anyone
 * sees the read's rows, and throws to withhold them. The read that carries it names it in its call
 * (`runPrepared`'s last argument): the token check of a read PostgreSQL answers rides this way
 * (src/auth/carried-token-check.ts).
 */
export interface Companion {
  ctes: string;
  params: readonly unknown[];
  select: string;
  settle(row: Record<string, unknown> | undefined): void;
}

/** The read a companion rides on, as a CTE of the statement. */
export const ACCOMPANIED_READ = 'accompanied_read';
// The companion's row as one column (a read's own columns may have any name but these two), and the
// column that tells the read's rows from the companion's row alone (a read that found nothing).
const COMPANION = 'companion';
const READ = 'companion_read';

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
