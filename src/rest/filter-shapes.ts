import {
  type GraphQLInputField,
  type GraphQLInputObjectType,
  type GraphQLInputType,
  GraphQLInt,
  type GraphQLLeafType,
  getNamedType,
  getNullableType,
  isEnumType,
  isInputObjectType,
  isLeafType,
  isListType,
} from 'graphql';
import { INPUT_LIMITS } from '../domain/input-limits.js';
import type { JsonSchema } from './json-schema.js';
import { type RestResource, snakeCase } from './resource.js';
import { enumCodes, expected, leafSchema } from './type-schemas.js';

/**
 * Search filters (docs/decisions.md#search-filters). The filter keys are the fields of the
 * resource's GraphQL filter input (made from the list's declaration, src/schema/list-fields.ts),
 * snake_cased, with a nested filter input's fields under its key (`address.shipping.city`) and the
 * names the resource gives otherwise (`filterNames`). What a key takes is read from its field's type
 * at start-up: a list of values (`[String!]`: any of) takes one value or an array of them; a range
 * input (`eq`/`gte`/`lte`, e.g. DecimalFilter) also takes `{gte, lte}`. Each value is checked by its
 * GraphQL type's own `parseValue` (Int's 32 bits, Decimal's format, Timestamp's years), and text by
 * the shared input limits before this runs (src/rest/request-input.ts `requestBody`). Nested objects and
 * dotted keys are alike.
 */
export interface FilterSpec {
  /** Dotted path in the GraphQL filter input, e.g. `shipping.city`. */
  gql: string;
  description?: string;
}

export type FilterMap = Record<string, FilterSpec>;

/** One filter key as derived from its GraphQL filter field. */
export interface FilterShape {
  gql: string;
  /**
   * `list`: one value or an array (any of); `range`: those or `{gte, lte}`; `one`: a single value;
   * `keyed`: `{"namespace.key": value}`, a list of `{namespace, key, value}` in GraphQL (the metafields').
   */
  form: 'list' | 'range' | 'one' | 'keyed';
  /** The GraphQL value of one REST value, or undefined when the type refuses it. */
  read: (value: unknown) => unknown;
  /** Integer codes of an enum (REST takes the codes, GraphQL the names): they take ranges too. */
  codes?: Map<number, string>;
  /** What one value must be, for error messages. */
  one: string;
  /** The key's JSON schema in the OpenAPI document. */
  schema: JsonSchema;
}

export interface FilterReader {
  shapes: Record<string, FilterShape>;
  /** The search body's JSON schema: dotted keys and the same filters as nested objects. */
  schema: JsonSchema;
}

export const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** The input field at a dotted path of the filter input (`shipping.city`). */
function fieldAt(type: GraphQLInputObjectType, path: string, where: string): GraphQLInputField {
  let current: GraphQLInputType = type;
  let found: GraphQLInputField | undefined;
  for (const part of path.split('.')) {
    const object: GraphQLInputType = getNullableType(current);
    found = isInputObjectType(object) ? object.getFields()[part] : undefined;
    if (!found) throw new Error(`${where}: ${type.name} has no field ${path}`);
    current = found.type;
  }
  return found!;
}

/** A leaf type's reader: its own `parseValue` decides; the REST value itself goes on (GraphQL parses it again). */
function leafReader(type: GraphQLLeafType): (value: unknown) => unknown {
  return (value) => {
    if (value === null || value === undefined) return undefined;
    try {
      type.parseValue(value);
      return value;
    } catch {
      return undefined;
    }
  };
}

/** A range input: `eq: [T]`, `gte: T`, `lte: T` and nothing else. */
function rangeOf(type: GraphQLInputType): GraphQLLeafType | undefined {
  const object = getNullableType(type);
  if (!isInputObjectType(object)) return undefined;
  const fields = object.getFields();
  const names = Object.keys(fields).sort().join(',');
  const leaf = getNamedType(fields.gte?.type);
  return names === 'eq,gte,lte' &&
    isLeafType(leaf) &&
    getNamedType(fields.eq.type) === leaf &&
    getNamedType(fields.lte.type) === leaf
    ? leaf
    : undefined;
}

/** A list of `{namespace, key, value}` inputs (MetafieldFilter), the value a String. */
function isKeyedValues(type: GraphQLInputType): boolean {
  const list = getNullableType(type);
  const item = isListType(list) ? getNullableType(list.ofType) : undefined;
  if (!isInputObjectType(item)) return false;
  const fields = item.getFields();
  return Object.keys(fields).sort().join(',') === 'key,namespace,typedValue,value';
}

/**
 * REST's `{"namespace.key": value}` (docs/decisions.md#custom-data-metafields), each value as JSON
 * (a string, number, boolean, object or array): the GraphQL list of `{namespace, key, typedValue}`,
 * each value as REST gave it, which the domain brings to its definition's stored form.
 */
function keyedShape(gql: string, spec: FilterSpec): FilterShape {
  const value = { description: "the metafield's value, typed as REST shows it" };
  return {
    gql,
    form: 'keyed',
    read: (given) => (given === null ? undefined : given),
    one: 'an object of "namespace.key": value',
    schema: {
      type: 'object',
      additionalProperties: value,
      minProperties: 1,
      ...(spec.description ? { description: spec.description } : {}),
    },
  };
}

function filterShapeOf(gql: string, spec: FilterSpec, field: GraphQLInputField, where: string): FilterShape {
  if (isKeyedValues(field.type)) return keyedShape(gql, spec);
  const nullable = getNullableType(field.type);
  const range = rangeOf(field.type);
  const leaf = range ?? getNamedType(field.type);
  if (!isLeafType(leaf)) throw new Error(`${where}: ${field.name} is neither a list of values nor a range of them`);
  const form = range ? 'range' : isListType(nullable) ? 'list' : 'one';
  const codes = isEnumType(leaf) ? enumCodes(leaf) : undefined;
  const leafJson = leafSchema(leaf, 'input');
  const one = { ...leafJson, ...(leafJson.type === 'string' ? { maxLength: INPUT_LIMITS.filterText } : {}) };
  const variants: JsonSchema[] = [one];
  if (form !== 'one') variants.push({ type: 'array', items: one, minItems: 1, maxItems: INPUT_LIMITS.filterValues });
  // A range of codes takes any integers as bounds (`{"lte": 2}`): the codes between them.
  const bound = codes ? leafSchema(GraphQLInt, 'input') : one;
  if (form === 'range' || codes)
    variants.push({
      type: 'object',
      properties: { gte: bound, lte: bound },
      additionalProperties: false,
      minProperties: 1,
    });
  return {
    gql,
    form,
    read: leafReader(codes ? GraphQLInt : leaf),
    codes,
    one: expected(codes ? leafSchema(GraphQLInt, 'input') : leafJson),
    schema: { anyOf: variants, ...(spec.description ? { description: spec.description } : {}) },
  };
}

/** Search body: dotted keys and the same filters as nested objects. */
function searchBodySchema(shapes: Record<string, FilterShape>): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  const tree: Record<string, unknown> = {};
  for (const [key, shape] of Object.entries(shapes)) {
    properties[key] = shape.schema;
    if (key.includes('.')) {
      const parts = key.split('.');
      let node = tree;
      for (const part of parts.slice(0, -1)) node = (node[part] ??= {}) as Record<string, unknown>;
      node[parts[parts.length - 1]] = properties[key];
    }
  }
  const nested = (node: Record<string, unknown>): JsonSchema => ({
    type: 'object',
    properties: Object.fromEntries(
      Object.entries(node).map(([k, v]) => [
        k,
        (v as JsonSchema).anyOf ? (v as JsonSchema) : nested(v as Record<string, unknown>),
      ]),
    ),
    additionalProperties: false,
  });
  for (const [key, node] of Object.entries(tree)) {
    if (!properties[key])
      properties[key] = {
        ...nested(node as Record<string, unknown>),
        description: `the ${key}.* filters as a nested object`,
      };
  }
  return {
    type: 'object',
    properties,
    additionalProperties: false,
    description: 'All filters are optional and combine with AND.',
  };
}

/**
 * The REST filter keys of a filter input, in its fields' order: each field snake_cased, or as the
 * resource's `filterNames` name it (null: left out); a nested filter input (neither a list of values
 * nor a range) gives its fields under its key.
 */
function filterKeys(
  input: GraphQLInputObjectType,
  resource: RestResource,
  where: string,
  map: FilterMap = {},
  path = '',
  prefix = '',
): FilterMap {
  const names = resource.filterNames ?? {};
  for (const field of Object.values(input.getFields())) {
    const gql = path ? `${path}.${field.name}` : field.name;
    const key = Object.hasOwn(names, gql) ? names[gql] : `${prefix ? `${prefix}.` : ''}${snakeCase(field.name)}`;
    if (key === null) continue;
    const type = getNullableType(field.type);
    if (isInputObjectType(type) && !rangeOf(type)) filterKeys(type, resource, where, map, gql, key);
    else if (map[key]) throw new Error(`${where}: filter key ${key} stands for both ${map[key].gql} and ${gql}`);
    else {
      const description = resource.filterDescriptions?.[key];
      map[key] = { gql, ...(description ? { description } : {}) };
    }
  }
  return map;
}

/** Each filter key's shape, read from the GraphQL filter input (at start-up). */
export function deriveFilters(
  resource: RestResource,
  input: GraphQLInputObjectType | undefined,
  where: string,
): FilterReader {
  if (!input) {
    if (resource.filterNames || resource.filterDescriptions)
      throw new Error(`${where}: filters need the GraphQL filter input (filterInput)`);
    return { shapes: {}, schema: searchBodySchema({}) };
  }
  for (const gql of Object.keys(resource.filterNames ?? {})) fieldAt(input, gql, `${where} filterNames`);
  const map = filterKeys(input, resource, where);
  for (const key of Object.keys(resource.filterDescriptions ?? {}))
    if (!map[key]) throw new Error(`${where}: filterDescriptions: ${key} is not a filter key`);
  const shapes = Object.fromEntries(
    Object.entries(map).map(([key, spec]) => [
      key,
      filterShapeOf(spec.gql, spec, fieldAt(input, spec.gql, where), where),
    ]),
  );
  return { shapes, schema: searchBodySchema(shapes) };
}
