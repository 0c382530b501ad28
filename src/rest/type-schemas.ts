import {
  GRAPHQL_MAX_INT,
  GRAPHQL_MIN_INT,
  type GraphQLEnumType,
  type GraphQLLeafType,
  type GraphQLScalarType,
  isEnumType,
  isSpecifiedScalarType,
} from 'graphql';
import type { JsonSchema } from './json-schema.js';

/**
 * What a GraphQL leaf type is in REST's JSON, as JSON Schema. Nothing here defines a format or a
 * limit: the built-in scalars are JSON's own types (Int's range is graphql-js's GRAPHQL_MIN_INT /
 * GRAPHQL_MAX_INT), a custom scalar publishes its schema itself (`extensions.jsonSchema`, and
 * `jsonInputSchema` when it takes more than it answers, as src/schema/scalars/*.ts do), and an enum
 * is its values.
 */
const BUILT_IN: Record<string, JsonSchema> = {
  Int: { type: 'integer', minimum: GRAPHQL_MIN_INT, maximum: GRAPHQL_MAX_INT },
  Float: { type: 'number' },
  String: { type: 'string' },
  Boolean: { type: 'boolean' },
  ID: { type: ['string', 'integer'] },
};

export type Direction = 'input' | 'output';

function scalarSchema(type: GraphQLScalarType, direction: Direction): JsonSchema {
  if (isSpecifiedScalarType(type)) return { ...BUILT_IN[type.name] };
  const published = type.extensions as { jsonSchema?: JsonSchema; jsonInputSchema?: JsonSchema };
  const schema = (direction === 'input' && published.jsonInputSchema) || published.jsonSchema;
  if (!schema)
    throw new Error(
      `the scalar ${type.name} publishes no JSON Schema (extensions.jsonSchema): ` +
        `declare the REST schema of fields using it`,
    );
  return { ...schema };
}

/**
 * An enum whose values are all numbers (FulfilmentStatus, PaymentStatus) stands for the spec's
 * integer codes: REST shows and takes the numbers (docs/decisions.md#graphql-names-and-types),
 * GraphQL the names. Its name by code, or undefined for an enum of names.
 */
export function enumCodes(type: GraphQLEnumType): Map<number, string> | undefined {
  const values = type.getValues();
  if (!values.every((v) => typeof v.value === 'number')) return undefined;
  return new Map(values.map((v) => [v.value as number, v.name]));
}

export function leafSchema(type: GraphQLLeafType, direction: Direction): JsonSchema {
  if (!isEnumType(type)) return scalarSchema(type, direction);
  const codes = enumCodes(type);
  return codes
    ? { type: 'integer', enum: [...codes.keys()] }
    : { type: 'string', enum: type.getValues().map((v) => v.name) };
}

/** `schema`, also taking null. */
export function orNull(schema: JsonSchema): JsonSchema {
  if (schema.type === undefined) return { anyOf: [schema, { type: 'null' }] };
  const types = [schema.type].flat();
  const nullable: JsonSchema = { ...schema, type: types.includes('null') ? types : [...types, 'null'] };
  if (Array.isArray(schema.enum) && !schema.enum.includes(null)) nullable.enum = [...schema.enum, null];
  return nullable;
}

export const takesNull = (schema: JsonSchema): boolean =>
  [schema.type].flat().includes('null') ||
  (Array.isArray(schema.anyOf) && schema.anyOf.some((s: JsonSchema) => s.type === 'null'));

/** The same value shown as another JSON type (a Decimal shown as a number), null kept. */
export const retyped = (schema: JsonSchema, type: string): JsonSchema => ({
  type: takesNull(schema) ? [type, 'null'] : type,
});

/** `schema` without null (a value REST always shows, e.g. 0 for a missing timestamp). */
export const withoutNull = (schema: JsonSchema): JsonSchema => ({
  ...schema,
  type: [schema.type].flat().find((t) => t !== 'null'),
});

/** "an integer", "a string", or the schema's own description: how an error says what was expected. */
export function expected(schema: JsonSchema): string {
  if (typeof schema.description === 'string') return schema.description;
  if (Array.isArray(schema.enum)) return `one of ${schema.enum.filter((v) => v !== null).join(', ')}`;
  const type = [schema.type].flat().find((t) => t !== 'null');
  return type === 'integer'
    ? 'an integer'
    : type === 'array'
      ? 'an array'
      : type === 'object'
        ? 'an object'
        : `a ${type}`;
}
