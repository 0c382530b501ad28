import type { FieldMap } from './fields.js';

/**
 * A REST resource as data: its record fields, the relations `expand` may add, and the GraphQL
 * names it maps onto. Routes, the OpenAPI document and the start-up self-check read this.
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
}

export const sortableKeys = (resource: RestResource) =>
  Object.entries(resource.fields)
    .filter(([, spec]) => spec.sortable)
    .map(([key]) => key);
