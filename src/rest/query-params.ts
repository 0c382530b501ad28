import { PAGE_SIZE } from '../schema/page-size.js';
import { CURSOR, type IntegerRange, POSITIVE_INT, parseInteger } from './integer-param.js';
import { Problem } from './problem.js';
import type { RestResource } from './resource.js';
import type { DerivedResource } from './rest-api.js';

export interface SortTerm {
  /** The GraphQL sort enum value. */
  field: string;
  descending: boolean;
}

export interface ReadParams {
  /** REST keys of the record to return, in declaration order. */
  keys: string[];
  /** Relations to add. */
  expand: string[];
}

export interface ListParams extends ReadParams {
  page: number;
  size: number;
  sort: SortTerm[];
}

/** The ranges `page` and `size` are read in: the GraphQL arguments' (an Int; the page size limits). */
export const PAGE_NUMBER = POSITIVE_INT;
export const PAGE_SIZE_RANGE: IntegerRange = { minimum: PAGE_SIZE.min, maximum: PAGE_SIZE.max };

type Query = Record<string, string | string[] | undefined>;

function single(query: Query, name: string): string | undefined {
  const value = query[name];
  if (Array.isArray(value)) throw Problem.parameter(name, 'must be given once');
  return value;
}

function integerParam(query: Query, name: string, fallback: number, range: IntegerRange): number {
  const raw = single(query, name);
  if (raw === undefined) return fallback;
  const value = parseInteger(raw, range);
  if (value === undefined) {
    throw Problem.parameter(name, `must be an integer from ${range.minimum} to ${range.maximum}`);
  }
  return value;
}

function names(raw: string | undefined): string[] {
  if (raw === undefined) return [];
  return raw.split(',').map((s) => s.trim());
}

/** `fields` and `expand`: whitelisted names only; an unknown one is a 400 listing the valid ones. */
export function parseReadParams(query: Query, resource: RestResource): ReadParams {
  const allFields = Object.keys(resource.fields);
  const fields = names(single(query, 'fields')).filter((n) => n !== '');
  const unknownFields = fields.filter((n) => !allFields.includes(n));
  if (unknownFields.length) {
    throw Problem.parameter('fields', `unknown field ${unknownFields.join(', ')}; valid: ${allFields.join(', ')}`);
  }
  const relations = Object.keys(resource.expand);
  const asked = names(single(query, 'expand')).filter((n) => n !== '');
  const unknownRelations = asked.filter((n) => n !== 'all' && !relations.includes(n));
  if (unknownRelations.length) {
    const valid = relations.length ? [...relations, 'all'].join(', ') : 'none (this resource has no relations)';
    throw Problem.parameter('expand', `unknown relation ${unknownRelations.join(', ')}; valid: ${valid}`);
  }
  return {
    keys: fields.length ? allFields.filter((k) => fields.includes(k)) : allFields,
    expand: asked.includes('all') ? relations : relations.filter((r) => asked.includes(r)),
  };
}

/** `page`, `size`, `sort` (`!field` or `-field` descending), plus `fields` and `expand`. */
export function parseListParams(query: Query, resource: DerivedResource): ListParams {
  const page = integerParam(query, 'page', 1, PAGE_NUMBER);
  const size = integerParam(query, 'size', PAGE_SIZE.default, PAGE_SIZE_RANGE);
  const byKey = resource.sorts;
  const sortable = Object.keys(byKey);
  const sort: SortTerm[] = [];
  const rawSort = single(query, 'sort');
  if (rawSort !== undefined) {
    // Empty entries are dropped, as in `fields` and `expand`: `sort=` is the default order. A key
    // sorted by again orders nothing more: dropped too (its first term stands), so a sort holds
    // at most the resource's keys, however long the parameter.
    const sorted = new Set<string>();
    for (const token of names(rawSort).filter((n) => n !== '')) {
      const descending = token.startsWith('!') || token.startsWith('-');
      const key = descending ? token.slice(1) : token;
      if (!sortable.includes(key)) {
        throw Problem.parameter(
          'sort',
          `cannot sort by "${token}"; sortable: ${sortable.join(', ')} (prefix ! or - for descending)`,
        );
      }
      if (sorted.has(key)) continue;
      sorted.add(key);
      sort.push({ field: byKey[key], descending });
    }
  }
  return { page, size, sort, ...parseReadParams(query, resource) };
}

export interface FeedParams extends ReadParams {
  after: number | null;
  size: number;
  /** The `types` filter as given (the operation checks the names); null for none. */
  types: string[] | null;
}

/**
 * A cursor feed's parameters: `after` (an event id, or none for the oldest kept), `size`, `types`
 * (comma-separated), plus `fields` and `expand`. `page` and `sort` belong to lists: a feed is read
 * by cursor in commit order, so they are refused rather than ignored.
 */
export function parseFeedParams(query: Query, resource: RestResource): FeedParams {
  for (const name of ['page', 'sort']) {
    if (query[name] !== undefined) {
      throw Problem.parameter(name, 'a feed is read in commit order by cursor: follow _links.next (after=<event id>)');
    }
  }
  const after = integerParam(query, 'after', 0, CURSOR);
  const size = integerParam(query, 'size', PAGE_SIZE.default, PAGE_SIZE_RANGE);
  const rawTypes = single(query, 'types');
  const types = rawTypes === undefined ? null : names(rawTypes);
  return { after: after || null, size, types, ...parseReadParams(query, resource) };
}

/** List parameters an export does not take: it is every record, in id order, in chunks of its own. */
const LIST_ONLY = ['page', 'size', 'sort'];

/** An export's `fields` and `expand` (as on the list); `page`, `size` or `sort` is a 400 rather than ignored. */
export function parseExportParams(query: Query, resource: RestResource): ReadParams {
  for (const name of LIST_ONLY) {
    if (query[name] !== undefined) {
      throw Problem.parameter(name, 'is not taken by an export (every record, in id order)');
    }
  }
  return parseReadParams(query, resource);
}
