import type { EntityManager, EntityName, QueryBuilder } from '@mikro-orm/postgresql';
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

/** Tables whose row count the `row_count` triggers keep (migration big_store_indexes_and_row_counts). */
const COUNTED_TABLES = new Set(['orders', 'product', 'customer']);

/** A WHERE that filters nothing (an unfiltered list). */
export const isEmptyWhere = (where: unknown) => !where || (typeof where === 'object' && Object.keys(where).length === 0);

/**
 * The statement counting the rows that match `where`, to be nested into the page's statement: for
 * an unfiltered list of a counted table, the sum of its `row_count` deltas (a few rows, exact,
 * however big the table); otherwise `COUNT(*)`, with the filter of `filtered` (a query builder
 * holding the list's WHERE) which PostgreSQL answers from the filter's indexes.
 */
export function countQuery(em: EntityManager, entity: EntityName<object>, where: unknown, filtered?: QueryBuilder<object>): { sql: string; params: readonly unknown[] } {
  const table = em.getMetadata().get(entity).tableName;
  if (isEmptyWhere(where)) {
    return COUNTED_TABLES.has(table)
      ? { sql: 'select coalesce(sum(delta), 0) from row_count where table_name = ?', params: [table] }
      : { sql: `select count(*) from "${table}"`, params: [] };
  }
  return filtered!.clone().count().toQuery();
}
