import { gqlNameOf, reshape, selectionOf, type FieldMap } from './fields.js';
import type { RestResource } from './resource.js';
import type { ListParams, ReadParams } from './query-params.js';

/** The map of the record as asked: chosen fields, then expanded relations. */
export function shapeOf(resource: RestResource, params: ReadParams): { map: FieldMap; keys: string[] } {
  const map = { ...resource.fields, ...resource.expand };
  return { map, keys: [...params.keys, ...params.expand] };
}

/** `query { result: products(page:…, size:…, sort:…) { totalCount items { … } } }` */
export function listDocument(resource: RestResource, queryField: string, params: ReadParams): string {
  const { map, keys } = shapeOf(resource, params);
  return `query RestList($page: Int!, $size: Int!, $sort: [${resource.sortInput}!]) {
  result: ${queryField}(page: $page, size: $size, sort: $sort) { totalCount items { ${selectionOf(map, keys)} } }
}`;
}

export function listVariables(resource: RestResource, params: ListParams) {
  return {
    page: params.page,
    size: params.size,
    sort: params.sort.map((t) => ({ field: gqlNameOf(t.key, resource.fields[t.key]), direction: t.descending ? 'DESC' : 'ASC' })),
  };
}

/** `query { result: product(id: …) { … } }` */
export function getDocument(resource: RestResource, queryField: string, params: ReadParams): string {
  const { map, keys } = shapeOf(resource, params);
  return `query RestGet($id: Int!) {
  result: ${queryField}(id: $id) { ${selectionOf(map, keys)} }
}`;
}

export function reshapeRecord(resource: RestResource, params: ReadParams, node: Record<string, unknown>) {
  const { map, keys } = shapeOf(resource, params);
  return reshape(map, node, keys);
}
