import { reshape, selectionOf, type FieldMap } from './fields.js';
import type { RestResource } from './resource.js';
import type { ListParams, ReadParams } from './query-params.js';

/** The map of the record as asked: chosen fields, then expanded relations. */
export function shapeOf(resource: RestResource, params: ReadParams): { map: FieldMap; keys: string[] } {
  const map = { ...resource.fields, ...resource.expand };
  return { map, keys: [...params.keys, ...params.expand] };
}

/** `query { result: products(page:…, size:…, sort:…[, filter:…]) { totalCount items { … } } }` */
export function listDocument(resource: RestResource, queryField: string, params: ReadParams, filtered = false): string {
  const { map, keys } = shapeOf(resource, params);
  const filter = filtered ? { declare: `, $filter: ${resource.filterInput}`, pass: ', filter: $filter' } : { declare: '', pass: '' };
  return `query RestList($page: Int!, $size: Int!, $sort: [${resource.sortInput}!]${filter.declare}) {
  result: ${queryField}(page: $page, size: $size, sort: $sort${filter.pass}) { totalCount items { ${selectionOf(map, keys)} } }
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

/** `mutation { result: updateCustomer(id: …, input: …) { … } }` (id and input as the route needs). */
export function mutationDocument(
  resource: RestResource,
  mutationField: string,
  params: ReadParams,
  args: { id?: boolean; input?: string },
): string {
  const { map, keys } = shapeOf(resource, params);
  const declare = [args.id ? '$id: Int!' : '', args.input ? `$input: ${args.input}!` : ''].filter(Boolean).join(', ');
  const pass = [args.id ? 'id: $id' : '', args.input ? 'input: $input' : ''].filter(Boolean).join(', ');
  return `mutation RestWrite(${declare}) {
  result: ${mutationField}(${pass}) { ${selectionOf(map, keys)} }
}`;
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

/** `query { result: orderPage(id: …, size: …, sort: …) }` → an Int. */
export function positionDocument(resource: RestResource, queryField: string): string {
  return `query RestPosition($id: Int!, $size: Int!, $sort: [${resource.sortInput}!]) {
  result: ${queryField}(id: $id, size: $size, sort: $sort)
}`;
}
