import { type FieldMap, type FieldSpec, reshape, selectionOf } from './fields.js';
import type { ListParams, ReadParams } from './query-params.js';
import type { RestResource } from './resource.js';

/**
 * A resource's fields and relations as one map, made once per set of expanded relations that nested
 * keys are shown with (`shownWith`; reshaping runs for every record, and renderings are kept by map).
 */
const wholeMaps = new WeakMap<RestResource, Map<string, FieldMap>>();

/** `map` without the nested keys shown with a relation not in `expand` (the same map when none is left out). */
function shownFor(map: FieldMap, expand: ReadonlySet<string>): FieldMap {
  let changed = false;
  const entries = Object.entries(map).flatMap(([key, spec]): [string, FieldSpec][] => {
    if (spec.shownWith && !expand.has(spec.shownWith)) {
      changed = true;
      return [];
    }
    const sub = spec.sub && shownFor(spec.sub, expand);
    if (sub === spec.sub) return [[key, spec]];
    changed = true;
    return [[key, { ...spec, sub }]];
  });
  return changed ? Object.fromEntries(entries) : map;
}

/** The map of the record as asked: chosen fields, then expanded relations. */
export function askedFieldsOf(resource: RestResource, params: ReadParams): { map: FieldMap; keys: string[] } {
  let maps = wholeMaps.get(resource);
  if (!maps) wholeMaps.set(resource, (maps = new Map()));
  const shownWith = params.expand.filter((key) => withKeys(resource).has(key));
  const variant = shownWith.join(',');
  let map = maps.get(variant);
  if (!map) maps.set(variant, (map = shownFor({ ...resource.fields, ...resource.expand }, new Set(shownWith))));
  return { map, keys: [...params.keys, ...params.expand] };
}

/** The relations some nested key of the resource is shown with (usually none). */
const withKeysOf = new WeakMap<RestResource, Set<string>>();
function withKeys(resource: RestResource): Set<string> {
  let keys = withKeysOf.get(resource);
  if (!keys) {
    keys = new Set();
    const walk = (map: FieldMap) => {
      for (const spec of Object.values(map)) {
        if (spec.shownWith) keys!.add(spec.shownWith);
        if (spec.sub) walk(spec.sub);
      }
    };
    walk({ ...resource.fields, ...resource.expand });
    withKeysOf.set(resource, keys);
  }
  return keys;
}

/** Single records of versioned resources also select `version`, for the ETag (not shown). */
const versionOf = (resource: RestResource) => (resource.versioned ? ' version' : '');

/**
 * `query { result: products(page:…, size:…, sort:…[, filter:…]) { totalCount items { … } } }`; `intArgs`
 * from the path (required), `optionalIntArgs` from the query string.
 */
export function listDocument(
  resource: RestResource,
  queryField: string,
  params: ReadParams,
  options: { filtered?: boolean; intArgs?: string[]; optionalIntArgs?: string[] } = {},
): string {
  const { map, keys } = askedFieldsOf(resource, params);
  const ints = options.intArgs ?? [];
  const optional = options.optionalIntArgs ?? [];
  const declare = [
    ...ints.map((a) => `, $${a}: Int!`),
    ...optional.map((a) => `, $${a}: Int`),
    options.filtered ? `, $filter: ${resource.filterInput}` : '',
  ].join('');
  const pass = [
    ...[...ints, ...optional].map((a) => `, ${a}: $${a}`),
    options.filtered ? ', filter: $filter' : '',
  ].join('');
  return `query RestList($page: Int!, $size: Int!, $sort: [${resource.sortInput}!]${declare}) {
  result: ${queryField}(page: $page, size: $size, sort: $sort${pass}) { totalCount items { ${selectionOf(map, keys)} } }
}`;
}

/**
 * One chunk of an export: `size` records after `afterId` in id order, no count. `id` is always
 * selected (the next chunk starts after the last one); reshaping shows only the keys asked for.
 */
export function exportDocument(
  resource: RestResource,
  queryField: string,
  params: ReadParams,
  options: { filtered?: boolean } = {},
): string {
  const { map, keys } = askedFieldsOf(resource, params);
  const declare = options.filtered ? `, $filter: ${resource.filterInput}` : '';
  const pass = options.filtered ? ', filter: $filter' : '';
  return `query RestExport($size: Int!, $afterId: Int${declare}) {
  result: ${queryField}(page: 1, size: $size, sort: [{ field: ID, direction: ASC }], afterId: $afterId${pass}) {
    items { id ${selectionOf(map, keys)} }
  }
}`;
}

export function listVariables(params: ListParams, filter?: Record<string, unknown>) {
  return {
    page: params.page,
    size: params.size,
    sort: params.sort.map((t) => ({ field: t.field, direction: t.descending ? 'DESC' : 'ASC' })),
    ...(filter ? { filter } : {}),
  };
}

/**
 * `mutation { result: updateCustomer(id: …, input: …, expectedVersion: …) { … } }` (Int arguments
 * from the path, input from the body, the versions If-Match names as the `ifMatch` argument), or
 * with `bodyArgs` (argument → its GraphQL type) the body's keys as arguments of their own.
 */
export function mutationDocument(
  resource: RestResource,
  mutationField: string,
  params: ReadParams,
  args: { intArgs: string[]; input?: string; ifMatch?: string; bodyArgs?: Record<string, string> },
): string {
  const { map, keys } = askedFieldsOf(resource, params);
  const bodyArgs = Object.entries(args.bodyArgs ?? {});
  const declare = [
    ...args.intArgs.map((a) => `$${a}: Int!`),
    args.input ? `$input: ${args.input}!` : '',
    ...bodyArgs.map(([name, type]) => `$${name}: ${type}`),
    args.ifMatch ? `$${args.ifMatch}: [Int!]` : '',
  ]
    .filter(Boolean)
    .join(', ');
  const pass = [
    ...args.intArgs.map((a) => `${a}: $${a}`),
    args.input ? 'input: $input' : '',
    ...bodyArgs.map(([name]) => `${name}: $${name}`),
    args.ifMatch ? `${args.ifMatch}: $${args.ifMatch}` : '',
  ]
    .filter(Boolean)
    .join(', ');
  return `mutation RestWrite(${declare}) {
  result: ${mutationField}(${pass}) { ${selectionOf(map, keys)}${versionOf(resource)} }
}`;
}

/** `query { result: product(id: …) { … } }` */
export function getDocument(resource: RestResource, queryField: string, params: ReadParams): string {
  const { map, keys } = askedFieldsOf(resource, params);
  return `query RestGet($id: Int!) {
  result: ${queryField}(id: $id) { ${selectionOf(map, keys)}${versionOf(resource)} }
}`;
}

export function reshapeRecord(resource: RestResource, params: ReadParams, node: Record<string, unknown>) {
  const { map, keys } = askedFieldsOf(resource, params);
  return reshape(map, node, keys);
}

/** Every record of a page, reshaped with one shape. */
export function reshapeRecords(resource: RestResource, params: ReadParams, nodes: Record<string, unknown>[]) {
  const { map, keys } = askedFieldsOf(resource, params);
  return nodes.map((node) => reshape(map, node, keys));
}

/** `query { result: orderPage(id: …, size: …, sort: …) }` → an Int. */
export function positionDocument(resource: RestResource, queryField: string): string {
  return `query RestPosition($id: Int!, $size: Int!, $sort: [${resource.sortInput}!]) {
  result: ${queryField}(id: $id, size: $size, sort: $sort)
}`;
}

/** `query { result: events(after: …, size: …, types: …) { totalCount next items { … } } }` */
export function feedDocument(resource: RestResource, queryField: string, params: ReadParams): string {
  const { map, keys } = askedFieldsOf(resource, params);
  return `query RestFeed($after: Int, $size: Int!, $types: [String!]) {
  result: ${queryField}(after: $after, size: $size, types: $types) {
    totalCount next items { ${selectionOf(map, keys)} }
  }
}`;
}
