import { type EntityManager, type EntityMetadata, type FilterQuery, raw } from '@mikro-orm/postgresql';
import { countQuery, isEmptyWhere } from '../domain/listing.js';
import { filterStatement, type Statement } from './filter-statements.js';
import { columnOf, primaryKey } from './read-plan.js';
import { WALK_ROWS, walkGate } from './search-walk.js';

/** From this offset on, a page is read through its ids (a deferred join). */
const DEFERRED_JOIN_OFFSET = 1000;

/** ORDER BY in SQL for whitelisted sort terms (entity properties → their columns on `alias`). */
export function orderSql(meta: EntityMetadata, orderBy: Record<string, 'asc' | 'desc'>[], alias: string): string {
  return orderBy
    .flatMap((term) => Object.entries(term))
    .map(([property, direction]) => `${columnOf(meta, property, alias)} ${direction}`)
    .join(', ');
}

/** What a page reads: the type's table and key, its filter and sort, its window and select list. */
export interface PageRead {
  type: string;
  meta: EntityMetadata;
  /** The type's table, and its key's column on alias `r0`. */
  table: string;
  key: string;
  where: FilterQuery<object>;
  orderBy: Record<string, 'asc' | 'desc'>[];
  /** `orderBy` in SQL on alias `r0`. */
  order: string;
  size: number;
  offset: number;
  /** The select list of a page's row: its JSON, and its number `n` in the sort order. */
  numbered: string;
  /** Whether the page's total is asked for. */
  counted: boolean;
  /** An export's chunk (its lines): never a text search's shared matches. */
  lines: boolean;
}

/**
 * A page's statements, for readPage to aggregate in the output mode asked (read-query.ts): the
 * page's rows, its count (`select null` when not asked), a WITH both read from, and a column saying
 * whether a text search walked (search-walk.ts). An unfiltered page reads from the read plan and
 * the sort; a filtered one from the filter's statement (filter-statements.ts), a counted text
 * search from its matches read once, a deep page through its ids.
 */
export function pageStatements(em: EntityManager, read: PageRead) {
  const { type, meta, table, key, where, orderBy, order, size, offset, numbered, counted, lines } = read;
  const deep = offset >= DEFERRED_JOIN_OFFSET;
  // LIMIT and OFFSET are written into the text (whole numbers from the validated arguments): with
  // them bound PostgreSQL cannot cost a generic plan and re-plans the statement on every execution
  // (Q1's fall is in bench/analysis.md). Every other value (search terms, ids, ranges) stays a bound
  // parameter, so the statement texts are the finite set of query shapes, not one per search. A
  // deep page's OFFSET is bound all the same: its read is an index walk past the offset, which
  // costs more than planning it, and written in, the long tail of page numbers users ask for made
  // thousands of texts, each kept prepared (src/db/prepared-statements.ts) in the service and in
  // every connection's backend (the memory it took is in docs/performance.md).
  if (!Number.isSafeInteger(size) || !Number.isSafeInteger(offset))
    throw new Error('page bounds must be whole numbers');
  const window = deep
    ? { sql: `limit ${size} offset ?`, params: [offset] }
    : { sql: `limit ${size} offset ${offset}`, params: [] };
  let page: Statement;
  let count: Statement = { sql: 'select null', params: [] };
  // A WITH the page and the count read from (text and bound values); empty but for a counted text search.
  let prelude: Statement = { sql: '', params: [] };
  // A counted text search in key order that may walk: whether the answer walked (search-walk.ts).
  let walkedColumn = '';
  if (isEmptyWhere(where)) {
    // An unfiltered list: the statement from the read plan and the whitelisted sort alone.
    page = deep
      ? // Deep page: the page's ids come from the sort index (an index-only scan past the offset
        // rows), then just those rows are read, instead of reading and discarding every earlier row.
        {
          sql:
            `select ${numbered} from ${table} r0 where ${key} in (select ` +
            `${key} from ${table} r0 order by ${order} ${window.sql})`,
          params: window.params,
        }
      : { sql: `select ${numbered} from ${table} r0 order by ${order} ${window.sql}`, params: window.params };
    if (counted) count = countQuery(em, meta.class, where);
  } else {
    // The filter is applied once (its raw fragments are single-use) and the builder cloned from it,
    // when a statement of this filter's shape is not built already (filter-statements.ts).
    const builder = () => em.createQueryBuilder(meta.class, 'r0').where(where as never);
    let built: ReturnType<typeof builder> | undefined;
    const filtered = () => (built ??= builder());
    const sorted = JSON.stringify(orderBy);
    if (counted && !lines && searchesText(where)) {
      // A text search's matches come from a trigram bitmap scan, in no order an index keeps: the page
      // sorts all of them and the count reads all of them. They are read once, with the sort's
      // columns, and both take theirs from that: the trigram scan and its recheck, most of such a
      // search's time, then run once instead of twice (bench/analysis.md).
      const sortKeys = [...new Set([primaryKey(meta, 'm').property, ...orderBy.flatMap((term) => Object.keys(term))])];
      const matches = patternsHidden(
        filterStatement(`${type} matches ${sorted}`, where, () => filtered().clone().select(sortKeys).toQuery()),
      );
      const pageKeys = `select ${primaryKey(meta, 'm').column} from matches m order by ${orderSql(meta, orderBy, 'm')}`;
      const from = `from ${table} as "r0"`;
      const inKeyOrder = orderBy.length === 1 && Object.keys(orderBy[0]).join() === primaryKey(meta, 'r0').property;
      const gate =
        inKeyOrder && !deep && matches.sql.split(from).length === 2 ? walkGate(meta, where, size) : undefined;
      if (gate) {
        // The walk (search-walk.ts): where the column's statistics say the term is broad, the filter
        // over the first WALK_ROWS rows in key order; when it fills the page, the matches' CTE is
        // never read and the count is the bitmap scan's alone.
        const capped = `from (select * ${from} where ${gate.sql} order by ${order} limit ${WALK_ROWS}) as "r0"`;
        const walk = `${matches.sql.replace(from, capped)} order by ${order} ${window.sql}`;
        const total = patternsHidden(
          filterStatement(`${type} count`, where, () => countQuery(em, meta.class, where, filtered())),
        );
        prelude = {
          sql:
            `with walk as materialized (${walk}), walked as (select count(*) = ${size} as whole from walk), ` +
            `matches as materialized (select m.* from (${matches.sql}) m where not (select whole from walked)) `,
          params: [...gate.params, ...matches.params, ...matches.params],
        };
        page = {
          sql:
            `select ${numbered} from ${table} r0 where ${key} in (select ${primaryKey(meta, 'w').column} from walk w ` +
            `where (select whole from walked) union all (${pageKeys} ${window.sql}))`,
          params: window.params,
        };
        count = {
          sql:
            `select case when (select whole from walked) then (${total.sql}) ` +
            `else (select count(*) from matches) end`,
          params: total.params,
        };
        walkedColumn = ', (select whole from walked) as walked';
      } else {
        prelude = { sql: `with matches as materialized (${matches.sql}) `, params: matches.params };
        page = {
          sql: `select ${numbered} from ${table} r0 where ${key} in (${pageKeys} ${window.sql})`,
          params: window.params,
        };
        count = { sql: 'select count(*) from matches', params: [] };
      }
    } else if (deep) {
      const ids = filterStatement(`${type} ids ${sorted}`, where, () =>
        filtered()
          .clone()
          .select(primaryKey(meta, 'r0').property)
          .orderBy(orderBy as never)
          .toQuery(),
      );
      page = {
        sql: `select ${numbered} from ${table} r0 where ${key} in (${ids.sql} ${window.sql})`,
        params: [...ids.params, ...window.params],
      };
    } else {
      const rows = filterStatement(`${type} rows ${sorted} ${numbered}`, where, () =>
        filtered()
          .clone()
          .select(raw(numbered))
          .orderBy(orderBy as never)
          .toQuery(),
      );
      page = { sql: `${rows.sql} ${window.sql}`, params: [...rows.params, ...window.params] };
    }
    if (counted && !prelude.sql)
      count = filterStatement(`${type} count`, where, () => countQuery(em, meta.class, where, filtered()));
  }
  return { prelude, page, count, walkedColumn };
}

/**
 * A counted text search's statement with each LIKE pattern hidden from the planner, `like (select
 * ?::text)`: the value is bound as before and read once when the statement runs (the trigram index
 * takes it there as it takes a bound value). The statement's form does not depend on the term (the
 * walk or the matches' CTE is chosen when it runs, from the column's statistics: search-walk.ts),
 * but a visible pattern let PostgreSQL plan it anew for every narrow term, its custom plans
 * estimated cheaper than the generic one, and planning this statement took about as long as running
 * it (bench/analysis.md, "Search statements planned once"). Hidden, every term costs the planner
 * alike, so the statement is planned once per connection, whatever terms came before.
 */
const patternsHidden = (statement: Statement): Statement => ({
  ...statement,
  sql: statement.sql.replace(/ (i?like) \?/g, ' $1 (select ?::text)'),
});

/** Whether a filter searches text (a substring match, `$ilike` or `$like`, anywhere in it). */
function searchesText(where: unknown): boolean {
  if (!where || typeof where !== 'object') return false;
  return Object.entries(where).some(([key, value]) => key === '$ilike' || key === '$like' || searchesText(value));
}
