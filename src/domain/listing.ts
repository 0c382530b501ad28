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

/** One page of a filtered, sorted set plus its total: two statements whatever the page size. */
export async function findPage<T extends object>(
  em: EntityManager,
  entity: EntityName<T>,
  where: FilterQuery<T>,
  args: { page: number; size: number; sort?: readonly SortTerm[] },
  columns: Record<string, string>,
  options: Omit<FindOptions<T>, 'orderBy' | 'limit' | 'offset'> = {},
): Promise<Page<T>> {
  const [items, totalCount] = await em.findAndCount(entity, where as never, {
    ...options,
    orderBy: orderByOf(args.sort, columns) as never,
    limit: args.size,
    offset: (args.page - 1) * args.size,
  } as FindOptions<T>);
  return { items: items as T[], totalCount, page: args.page, size: args.size, pageCount: Math.ceil(totalCount / args.size) };
}
