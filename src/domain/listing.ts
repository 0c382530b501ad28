import type { EntityManager, EntityName, FilterQuery, FindOptions } from '@mikro-orm/postgresql';
import { SortDirection, type SortTerm } from '../schema/pagination.js';

export interface Page<T> {
  items: T[];
  totalCount: number;
  page: number;
  size: number;
  pageCount: number;
}

/**
 * ORDER BY from whitelisted sort terms. `id` always closes the order, in the direction of the last
 * term, so equal sort keys still give every row one place and pages never overlap or skip.
 */
export function orderByOf(terms: readonly SortTerm[] | undefined, columns: Record<string, string>) {
  const given = terms?.length ? terms : [{ field: 'id', direction: SortDirection.DESC }];
  const orderBy: Record<string, 'asc' | 'desc'>[] = [];
  for (const term of given) {
    const column = columns[term.field];
    if (!column) throw new Error(`sort field ${term.field} is not whitelisted`);
    orderBy.push({ [column]: term.direction === SortDirection.DESC ? 'desc' : 'asc' });
  }
  if (!given.some((t) => columns[t.field] === 'id')) {
    orderBy.push({ id: given[given.length - 1].direction === SortDirection.DESC ? 'desc' : 'asc' });
  }
  return orderBy;
}

/** From this offset on, a page is read through its ids (a deferred join). */
const DEFERRED_JOIN_OFFSET = 1000;

/** Tables whose row count the `row_count` triggers keep (migration big_store_indexes_and_row_counts). */
const COUNTED_TABLES = new Set(['orders', 'product', 'customer']);

const isEmptyWhere = (where: unknown) => !where || (typeof where === 'object' && Object.keys(where).length === 0);

/**
 * How many rows match `where`: for an unfiltered list of a counted table, the sum of its
 * `row_count` deltas (a few rows, exact, however big the table); otherwise `COUNT(*)` with the
 * filter, which PostgreSQL answers from the filter's indexes. Always one statement.
 */
export async function countRows<T extends object>(em: EntityManager, entity: EntityName<T>, where: FilterQuery<T>): Promise<number> {
  const table = em.getMetadata().get(entity).tableName;
  if (isEmptyWhere(where) && COUNTED_TABLES.has(table)) {
    const [row] = await em
      .getConnection()
      .execute<{ count: string }[]>('select coalesce(sum(delta), 0) as count from row_count where table_name = ?', [table], 'all', em.getTransactionContext());
    return Number(row.count);
  }
  return em.count(entity, where as never);
}

/** One page of a filtered, sorted set plus its total: two statements whatever the page size, sent together. */
export async function findPage<T extends object>(
  em: EntityManager,
  entity: EntityName<T>,
  where: FilterQuery<T>,
  args: { page: number; size: number; sort?: readonly SortTerm[] },
  columns: Record<string, string>,
  options: Omit<FindOptions<T>, 'orderBy' | 'limit' | 'offset'> = {},
): Promise<Page<T>> {
  const orderBy = orderByOf(args.sort, columns);
  const offset = (args.page - 1) * args.size;
  const page =
    offset < DEFERRED_JOIN_OFFSET
      ? em.find(entity, where as never, { ...options, orderBy, limit: args.size, offset } as FindOptions<T>)
      : // Deep page: find the page's ids in the sort index (an index-only scan past the offset rows),
        // then read just those rows, instead of reading and discarding every row before the page.
        em.find(
          entity,
          { id: { $in: em.createQueryBuilder(entity, 'k').select('id' as never).where(where as never).orderBy(orderBy as never).limit(args.size).offset(offset) } } as never,
          { ...options, orderBy } as FindOptions<T>,
        );
  const [items, totalCount] = await Promise.all([page, countRows(em, entity, where)]);
  return { items: items as T[], totalCount, page: args.page, size: args.size, pageCount: Math.ceil(totalCount / args.size) };
}
