import { MetadataStorage } from '@mikro-orm/core';
import type { EntityManager, EntityName, QueryBuilder } from '@mikro-orm/postgresql';
import {
  declaredLists,
  type FilterOf,
  type ListFields,
  type ListFieldTable,
  type OwnFilters,
} from '../schema/list-fields.js';
import { SortDirection, type SortTerm } from '../schema/pagination.js';
import { type RangeFilter, rangeCondition } from './range-condition.js';
import { caseInsensitiveLike } from './text-fold.js';
import { containsPattern } from './text-match.js';

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

type Condition = Record<string, unknown>;

/** The conditions of a list's `filterBy.own` filters, each written by the domain into `all` (or elsewhere). */
export type OwnConditions<F> = {
  [K in keyof OwnFilters<F>]: (value: NonNullable<OwnFilters<F>[K]>, all: Condition[]) => void;
};

/**
 * The conditions a list's filter asks for, all of which must hold, in its declaration's order
 * (src/schema/list-fields.ts): text matches any of the substrings case-insensitively (on the
 * column's lower-case copy when `folded`), `anyOf` any of the values, a range its values and bounds;
 * an `own` filter is the domain's (`own`). Every value is a bound parameter.
 */
export function filterConditions<F extends ListFieldTable>(
  list: ListFields<F>,
  filter: FilterOf<F> | undefined,
  own: OwnConditions<F>,
): Condition[] {
  const all: Condition[] = [];
  if (!filter) return all;
  for (const [key, { column = key, filter: by }] of Object.entries(list.fields)) {
    const value = (filter as Record<string, unknown>)[key];
    if (!by || value === undefined || value === null) continue;
    if (by.kind === 'text') {
      const like = (text: string) =>
        by.folded
          ? caseInsensitiveLike(column, `${column}Folded`, containsPattern(text))
          : { [column]: { $ilike: containsPattern(text) } };
      all.push({ $or: (value as string[]).map(like) });
    } else if (by.kind === 'anyOf') all.push({ [column]: { $in: value } });
    else if (by.kind === 'range') all.push({ [column]: rangeCondition(value as RangeFilter<unknown>) });
    else (own as Record<string, (value: unknown, all: Condition[]) => void>)[key](value, all);
  }
  return all;
}

/** All of the conditions as one WHERE (none: every row). */
export const allOf = (conditions: Condition[]): Condition => (conditions.length ? { $and: conditions } : {});

/**
 * Every declared list's columns against its entity, when the schema is built: a sort or filter
 * naming a property the entity does not have (a rename, a typo) stops the service there instead of
 * failing the first request that sorts or filters by it.
 */
export function checkListColumns(): void {
  const entities = Object.values(MetadataStorage.getMetadata());
  for (const list of declaredLists()) {
    const meta = entities.find((m) => m.class === list.target);
    if (!meta) throw new Error(`listFields(${list.type}): ${list.target.name} is not an entity`);
    for (const [key, { column = key, sort, filter }] of Object.entries(list.fields)) {
      const named = [
        ...(sort || (filter && filter.kind !== 'own') ? [column] : []),
        ...(filter?.folded ? [`${column}Folded`] : []),
      ];
      for (const property of named) {
        if (!meta.properties[property as never])
          throw new Error(`listFields(${list.type}): ${key} names ${property}, which ${meta.className} does not have`);
      }
    }
  }
}

/** A WHERE that filters nothing (an unfiltered list). */
export const isEmptyWhere = (where: unknown) =>
  !where || (typeof where === 'object' && Object.keys(where).length === 0);

/**
 * An unfiltered count. A table carrying the row-count triggers answers with the sum of its
 * `row_count` deltas (a few rows, exact, however big the table); any other with COUNT(*). Which
 * tables carry them is asked of the database (a probe of pg_trigger), not listed here: the migration
 * that installs the triggers (big_store_indexes_and_row_counts) is the one list, so a count can
 * never read deltas that no trigger keeps. Each branch is an InitPlan that PostgreSQL runs only when
 * the probe picks it.
 */
// The table's name is written into the text, not bound: it comes from the metadata (never from a
// request), and only as constants can PostgreSQL fold the probe when it plans the statement once
// (bound, the generic plan it settled on after five runs read a page of 50 orders 2–3× slower in a
// trial on the test store).
const UNFILTERED_COUNT = (table: string) => {
  const name = `'${table.replace(/'/g, "''")}'`;
  return `select case
  when exists (select 1 from pg_trigger where tgrelid = ${name}::regclass and tgfoid = 'row_count_inserted'::regproc)
  then (select coalesce(sum(delta), 0) from row_count where table_name = ${name})
  else (select count(*) from "${table}") end`;
};

/**
 * The statement counting the rows that match `where`, to be nested into the page's statement:
 * for an unfiltered list, the count above; otherwise `COUNT(*)` with the filter of `filtered` (a
 * query builder holding the list's WHERE), which PostgreSQL answers from the filter's indexes.
 */
export function countQuery(
  em: EntityManager,
  entity: EntityName<object>,
  where: unknown,
  filtered?: QueryBuilder<object>,
): { sql: string; params: readonly unknown[] } {
  const table = em.getMetadata().get(entity).tableName;
  if (isEmptyWhere(where)) return { sql: UNFILTERED_COUNT(table), params: [] };
  return filtered!.clone().count().toQuery();
}
