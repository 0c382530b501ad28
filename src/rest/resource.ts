import { screamingCase } from '../schema/enum-names.js';
import { type FieldMap, gqlNameOf } from './fields.js';
import type { FilterMap } from './filters.js';

/**
 * A REST resource as data, holding only what is REST's own: its record keys, the relations
 * `expand` may add, the GraphQL names they map onto and how the spec presents a value. Types come
 * from the GraphQL schema (src/rest/rest-api.ts completes the resource at start-up).
 */
export interface RestResource {
  /** Schema name in the API docs, e.g. `Product`. */
  name: string;
  /** Keys every record has (what `fields` may choose from). */
  fields: FieldMap;
  /** Relations added by `expand` (and all of them by `expand=all`). */
  expand: FieldMap;
  /** GraphQL input type of one sort term, e.g. `ProductSort`, for resources with lists. */
  sortInput?: string;
  /**
   * Sort keys that are not top-level fields (e.g. `statistics.order_count`) → sort field (camelCase,
   * as the GraphQL field).
   */
  extraSorts?: Record<string, string>;
  /** Search filters (REST key → GraphQL filter field) and the GraphQL filter input type. */
  filters?: FilterMap;
  filterInput?: string;
  /**
   * The GraphQL type whose `version` single reads and write answers show as a strong ETag. The
   * schema is the list of versioned types (those with a `version` field): the start-up check holds
   * every get and write route to it.
   */
  versioned?: string;
}

/** Every key `sort` accepts, with the GraphQL sort enum value it stands for. */
export function sortKeys(resource: RestResource): Record<string, string> {
  const keys: Record<string, string> = {};
  for (const [key, spec] of Object.entries(resource.fields))
    if (spec.sortable) keys[key] = screamingCase(gqlNameOf(key, spec));
  for (const [key, name] of Object.entries(resource.extraSorts ?? {})) keys[key] = screamingCase(name);
  return keys;
}
