import {
  type GraphQLField,
  type GraphQLObjectType,
  type GraphQLOutputType,
  getNullableType,
  isEnumType,
  isLeafType,
  isListType,
  isNonNullType,
  isObjectType,
} from 'graphql';
import { SHOWN_VIEWS } from '../graphql/shown-views.js';
import { deprecationProblem } from './deprecation.js';
import { type DerivedMap, type DerivedSpec, type FieldMap, type FieldSpec, gqlNameOf, INLINE } from './fields.js';
import type { JsonSchema } from './json-schema.js';
import { enumCodes, leafSchema, orNull, takesNull } from './type-schemas.js';

/**
 * The records REST answers, completed from the GraphQL object types they are read from: each key's
 * JSON schema is its GraphQL field's type (null where GraphQL may give null), unless the key shows
 * the value differently (`out` with a `schema` of its own). An enum of integer codes is shown as
 * its codes. A key the type lacks fails the start.
 */
interface Derived {
  schema: JsonSchema;
  sub?: DerivedMap;
  out?(value: unknown): unknown;
}

/** An object every key of which reshaping writes: all required, nothing else. */
export function recordObject(map: DerivedMap): JsonSchema {
  const properties = Object.fromEntries(Object.entries(map).map(([key, spec]) => [key, spec.schema]));
  // A key shown only with another relation expanded (`shownWith`) may be missing.
  const required = Object.keys(map).filter((key) => !map[key].shownWith);
  return { type: 'object', properties, required, additionalProperties: false };
}

function recordValueOf(type: GraphQLOutputType, spec: FieldSpec, where: string): Derived {
  const inner = getNullableType(type);
  let derived: Derived;
  if (isListType(inner)) {
    const item = recordValueOf(inner.ofType, spec, where);
    const convert = item.out;
    derived = {
      schema: { type: 'array', items: item.schema },
      sub: item.sub,
      ...(convert ? { out: (v: unknown[]) => v.map(convert) } : {}),
    };
  } else if (isObjectType(inner)) {
    if (!spec.sub) throw new Error(`${where}: ${inner.name} is an object: declare its keys with field.nested`);
    const sub = deriveRecordMap(spec.sub, inner, where);
    derived = { schema: recordObject(sub), sub };
  } else if (isLeafType(inner)) {
    const codes = isEnumType(inner) ? enumCodes(inner) : undefined;
    const byName = codes && new Map([...codes].map(([code, name]) => [name, code]));
    derived = { schema: leafSchema(inner, 'output'), ...(byName ? { out: (name: string) => byName.get(name) } : {}) };
  } else {
    throw new Error(`${where}: ${inner.name} (an interface or union) has no REST shape`);
  }
  if (isNonNullType(type)) return derived;
  const convert = derived.out;
  return {
    ...derived,
    schema: orNull(derived.schema),
    ...(convert ? { out: (v: unknown) => (v == null ? v : convert(v)) } : {}),
  };
}

/**
 * A deprecated key's schema says so (`deprecated`, and the dates in its description); a key read
 * from a GraphQL field that is `@deprecated` must be deprecated too, or the start fails: REST
 * would otherwise keep sending, unannounced, a value GraphQL has told its clients is going.
 */
function deprecatedSchema(
  schema: JsonSchema,
  spec: FieldSpec,
  field: GraphQLField<unknown, unknown> | undefined,
  at: string,
) {
  const { deprecated } = spec;
  if (!deprecated) {
    if (field?.deprecationReason)
      throw new Error(
        `${at} reads ${field.name}, deprecated in GraphQL (${field.deprecationReason}): declare the key ` +
          'deprecated too (deprecated: { since, sunset, use }, docs/operations.md#api-versioning)',
      );
    return schema;
  }
  const problem = deprecationProblem(deprecated);
  if (problem) throw new Error(`${at}: deprecated, but ${problem}`);
  const note = `Deprecated since ${deprecated.since}; may be gone from ${deprecated.sunset}: ${deprecated.use}`;
  return { ...schema, deprecated: true, description: schema.description ? `${schema.description}. ${note}` : note };
}

function deriveKey(key: string, spec: FieldSpec, type: GraphQLObjectType, where: string): DerivedSpec {
  const at = `${where}.${key}`;
  const { sub: _declared, schema: _given, ...own } = spec;
  const field = spec.gql === INLINE ? undefined : type.getFields()[gqlNameOf(key, spec)];
  const described = (schema: JsonSchema) =>
    deprecatedSchema(spec.description ? { ...schema, description: spec.description } : schema, spec, field, at);
  if (spec.gql === INLINE) {
    const sub = deriveRecordMap(spec.sub ?? {}, type, at);
    return { ...own, sub, schema: described(recordObject(sub)) };
  }
  if (!field) throw new Error(`${at}: ${type.name} has no field ${gqlNameOf(key, spec)}`);
  // A fixed schema (open content such as a JSON scalar) is REST's own: nothing to derive.
  if (typeof spec.schema === 'object') return { ...own, schema: described(spec.schema) };
  const value = recordValueOf(field.type, spec, at);
  // A named view converts as its SQL does (src/graphql/shown-views.ts); `code` is the enum's own.
  const view = spec.shown ? SHOWN_VIEWS[spec.shown].value : undefined;
  const out = spec.out ?? view;
  if (out && takesNull(value.schema)) {
    try {
      out(null);
    } catch {
      throw new Error(`${at}: ${type.name}.${field.name} may be null, which its REST conversion cannot take`);
    }
  }
  const schema = typeof spec.schema === 'function' ? spec.schema(value.schema) : value.schema;
  return {
    ...own,
    schema: described(schema),
    ...(value.sub ? { sub: value.sub } : {}),
    // A view's conversion, or the one derived from the type: an enum's name to its integer code.
    ...(out ? { out } : value.out ? { out: value.out, shown: 'code' as const } : {}),
  };
}

/** Completes a record map from the GraphQL object type its values come from. */
export function deriveRecordMap(map: FieldMap, type: GraphQLObjectType, where: string): DerivedMap {
  return Object.fromEntries(Object.entries(map).map(([key, spec]) => [key, deriveKey(key, spec, type, where)]));
}
