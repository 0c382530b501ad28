import { type GraphQLEnumType, type GraphQLSchema, getNamedType, isEnumType, isInputObjectType } from 'graphql';
import { screamingCase } from '../schema/enum-names.js';
import { type FieldMap, gqlNameOf } from './fields.js';

/**
 * A REST resource as data, holding only what is REST's own: its record keys, the relations
 * `expand` may add, the GraphQL names they map onto and how the spec presents a value. Types come
 * from the GraphQL schema (src/rest/rest-api.ts completes the resource at start-up), and so do the
 * sorts and filters: the list's declaration (src/schema/list-fields.ts) makes the sort enum and the
 * filter input, and REST takes every value and field of them, under the names below.
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
   * REST keys of sort fields that are not a record key of theirs (camelCase sort field → REST key,
   * e.g. `orderCount` → `statistics.order_count`). Others are sorted by their record key, or by the
   * snake_case of the sort field when REST shows none.
   */
  sortNames?: Record<string, string>;
  /** GraphQL filter input of the resource's search, e.g. `OrderFilter`. */
  filterInput?: string;
  /**
   * REST keys of filters named otherwise than their GraphQL field's snake_case (dotted GraphQL path
   * → REST key; a nested filter input's fields follow its key): `null` leaves one out of REST.
   */
  filterNames?: Record<string, string | null>;
  /** Descriptions of search keys in the OpenAPI document (REST key → text). */
  filterDescriptions?: Record<string, string>;
  /**
   * The GraphQL type whose `version` single reads and write answers show as a strong ETag. The
   * schema is the list of versioned types (those with a `version` field): the start-up check holds
   * every get and write route to it.
   */
  versioned?: string;
}

/** `shippingCountry` → `shipping_country`: a GraphQL name as REST writes it. */
export const snakeCase = (name: string) => screamingCase(name).toLowerCase();

/** The sort enum of a resource's sort input (`field` of `ProductSort`), if it has one. */
function sortEnum(schema: GraphQLSchema, resource: RestResource, where: string): GraphQLEnumType | undefined {
  if (!resource.sortInput) return undefined;
  const input = schema.getType(resource.sortInput);
  const field = isInputObjectType(input) ? getNamedType(input.getFields().field?.type) : undefined;
  if (!isEnumType(field)) throw new Error(`${where}: ${resource.sortInput} is not a sort input of the schema`);
  return field;
}

/**
 * Every key `sort` takes, with the GraphQL sort enum value it stands for: each value of the enum.
 * A value whose field is a record key is that key, in the record's order; the others follow in the
 * enum's order, under their `sortNames` or the snake_case of the field.
 */
export function deriveSorts(schema: GraphQLSchema, resource: RestResource, where: string): Record<string, string> {
  const values = (sortEnum(schema, resource, where)?.getValues() ?? []).map((v) => v.name);
  const sorts: Record<string, string> = {};
  for (const [key, spec] of Object.entries(resource.fields)) {
    const value = screamingCase(gqlNameOf(key, spec));
    if (values.includes(value)) sorts[key] = value;
  }
  const named = new Map<string, string>();
  for (const [field, key] of Object.entries(resource.sortNames ?? {})) {
    const value = screamingCase(field);
    if (!values.includes(value)) throw new Error(`${where}: sortNames: ${resource.sortInput} sorts by no ${field}`);
    if (Object.values(sorts).includes(value)) throw new Error(`${where}: sortNames: ${field} is a record key already`);
    named.set(value, key);
  }
  for (const value of values) {
    if (Object.values(sorts).includes(value)) continue;
    const key = named.get(value) ?? value.toLowerCase();
    if (sorts[key]) throw new Error(`${where}: sort key ${key} stands for both ${sorts[key]} and ${value}`);
    sorts[key] = value;
  }
  return sorts;
}
