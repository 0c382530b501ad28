import { Ajv, type ErrorObject, type SchemaValidateFunction, type ValidateFunction } from 'ajv';
import {
  type GraphQLInputField,
  type GraphQLInputObjectType,
  type GraphQLInputType,
  type GraphQLLeafType,
  type GraphQLScalarType,
  type GraphQLSchema,
  getNullableType,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  isSpecifiedScalarType,
} from 'graphql';
import { inputChecks } from '../observability/metrics.js';
import { refusesNull } from '../schema/optional-field.js';
import { type DerivedMap, type DerivedSpec, type FieldMap, type FieldSpec, gqlNameOf } from './fields.js';
import type { JsonSchema } from './json-schema.js';
import { Problem, type ProblemFieldError } from './problem.js';
import { enumCodes, expected, leafSchema, orNull } from './type-schemas.js';

/**
 * Request bodies. A route declares its body as a field map (REST key → GraphQL input field); at
 * start-up the map is completed from the GraphQL input type (`deriveBody`): each key's type, which
 * keys are required (non-null without a default) and which take null (nullable and not
 * `@Optional`). The resulting JSON schema is strict (no unknown keys, exact types) and checked with
 * ajv before anything runs, so a typo never reaches the domain as a silently dropped field; a custom
 * scalar's value is checked by the scalar's own `parseValue`. Meaning (valid e-mail, existing ids,
 * domain rules such as "a price is not negative") is the resolvers' job.
 */
export interface BodyValidator {
  /** The body's map, completed from the input type (the element's, for a list body). */
  map: DerivedMap;
  /** The body is a JSON array of `map` objects. */
  list: boolean;
  /** The body's JSON schema as the OpenAPI document shows it. */
  schema: JsonSchema;
  validate: ValidateFunction;
}

/** The keyword by which a body's JSON schema hands a custom scalar's value to that scalar's `parseValue`. */
const SCALAR_KEYWORD = 'x-graphql-scalar';

/** A GraphQL input value as a body holds it: documented and checked JSON schema, nested keys, a conversion. */
interface Derived {
  schema: JsonSchema;
  check: JsonSchema;
  sub?: DerivedMap;
  in?(value: unknown): unknown;
}

function jsonTypeOf(value: unknown): string[] {
  if (value === null) return ['null'];
  if (Array.isArray(value)) return ['array'];
  if (typeof value === 'number') return Number.isInteger(value) ? ['integer', 'number'] : ['number'];
  return [typeof value];
}

/** One ajv per schema: its scalar keyword looks the scalar up in that schema. */
export function bodyAjv(schema: GraphQLSchema): Ajv {
  const ajv = new Ajv({ allErrors: true, strict: false });
  const check: SchemaValidateFunction = (name: string, data: unknown) => {
    const scalar = schema.getType(name) as GraphQLScalarType;
    const published = leafSchema(scalar, 'input');
    // A value of another JSON type is the `type` keyword's to report, once.
    if (!jsonTypeOf(data).some((t) => [published.type].flat().includes(t))) return true;
    try {
      scalar.parseValue(data);
      check.errors = [];
      return true;
    } catch {
      check.errors = [{ keyword: SCALAR_KEYWORD, message: `must be ${expected(published)}`, params: {} }];
      return false;
    }
  };
  ajv.addKeyword({ keyword: SCALAR_KEYWORD, schemaType: 'string', errors: true, validate: check });
  return ajv;
}

function leaf(type: GraphQLLeafType): Derived {
  const schema = leafSchema(type, 'input');
  const custom = !isEnumType(type) && !isSpecifiedScalarType(type);
  const codes = isEnumType(type) ? enumCodes(type) : undefined;
  return {
    schema,
    check: custom ? { type: schema.type, [SCALAR_KEYWORD]: type.name } : schema,
    ...(codes ? { in: (code: number) => codes.get(code) } : {}),
  };
}

/** What a value of `type` is in a body, null included when `takesNull`. */
function bodyValueOf(type: GraphQLInputType, spec: FieldSpec, takesNull: boolean, where: string): Derived {
  const inner = getNullableType(type);
  let derived: Derived;
  if (isListType(inner)) {
    const item = bodyValueOf(inner.ofType, spec, !isNonNullType(inner.ofType), where);
    const convert = item.in;
    derived = {
      schema: { type: 'array', items: item.schema },
      check: { type: 'array', items: item.check },
      sub: item.sub,
      ...(convert ? { in: (v: unknown[]) => v.map(convert) } : {}),
    };
  } else if (isInputObjectType(inner)) {
    if (!spec.sub) throw new Error(`${where}: ${inner.name} is an input object: declare its keys with field.nested`);
    const sub = deriveInputMap(spec.sub, inner, where);
    derived = { schema: objectSchema(sub, 'schema'), check: objectSchema(sub, 'check'), sub };
  } else {
    derived = leaf(inner);
  }
  return takesNull ? { ...derived, schema: orNull(derived.schema), check: orNull(derived.check) } : derived;
}

function deriveKey(key: string, spec: FieldSpec, field: GraphQLInputField, where: string): DerivedSpec {
  const takesNull = !isNonNullType(field.type) && !refusesNull(field);
  // A REST-declared schema is what REST takes where it differs (a value `in` converts).
  const given = typeof spec.schema === 'object' ? spec.schema : undefined;
  const value = given
    ? { schema: takesNull ? orNull(given) : given, check: takesNull ? orNull(given) : given }
    : bodyValueOf(field.type, spec, takesNull, `${where}.${key}`);
  let { schema, check } = value;
  if (spec.oneOrMany) {
    const item = value.schema.items as JsonSchema | undefined;
    if (!item || !value.sub) throw new Error(`${where}.${key}: one-or-many needs a list of input objects`);
    // Validation sees the list (checkBody wraps a single object first), so errors name the real field.
    check = { type: 'array', items: value.check.items, minItems: 1 };
    schema = { anyOf: [item, { type: 'array', items: item, minItems: 1 }] };
  }
  const { sub: _declared, schema: _given, ...own } = spec;
  return {
    ...own,
    // The key's own words first, then what its type says (a Decimal's format).
    schema: spec.description
      ? { ...schema, description: [spec.description, schema.description].filter(Boolean).join('; ') }
      : schema,
    check,
    ...(value.sub ? { sub: value.sub } : {}),
    ...(!spec.in && value.in ? { in: value.in } : {}),
    required: isNonNullType(field.type) && field.defaultValue === undefined,
  };
}

/**
 * Completes a body map from its GraphQL input type; a key the type lacks, or a required field REST
 * cannot send, fails the start.
 */
export function deriveInputMap(map: FieldMap, type: GraphQLInputObjectType, where: string): DerivedMap {
  const fields = type.getFields();
  const derived: DerivedMap = {};
  for (const [key, spec] of Object.entries(map)) {
    const field = fields[gqlNameOf(key, spec)];
    if (!field) throw new Error(`${where}.${key}: ${type.name} has no field ${gqlNameOf(key, spec)}`);
    derived[key] = deriveKey(key, spec, field, where);
  }
  const sent = new Set(Object.entries(map).map(([key, spec]) => gqlNameOf(key, spec)));
  for (const field of Object.values(fields)) {
    if (isNonNullType(field.type) && field.defaultValue === undefined && !sent.has(field.name)) {
      throw new Error(`${where}: ${type.name}.${field.name} is required but no REST key fills it`);
    }
  }
  return derived;
}

function objectSchema(map: DerivedMap, which: 'schema' | 'check'): JsonSchema {
  const properties = Object.fromEntries(
    Object.entries(map).map(([key, spec]) => [key, which === 'schema' ? spec.schema : spec.check]),
  );
  const required = Object.keys(map).filter((key) => map[key].required);
  return { type: 'object', properties, additionalProperties: false, ...(required.length ? { required } : {}) };
}

/** A route's body validator: its map completed from `input` (a list body's elements when `list`), compiled once. */
export function deriveBody(
  ajv: Ajv,
  map: FieldMap,
  input: GraphQLInputObjectType,
  list: boolean,
  where: string,
): BodyValidator {
  const derived = deriveInputMap(map, input, where);
  const wrap = (schema: JsonSchema) => (list ? { type: 'array', items: schema, minItems: 1 } : schema);
  return {
    map: derived,
    list,
    schema: wrap(objectSchema(derived, 'schema')),
    validate: ajv.compile(wrap(objectSchema(derived, 'check'))),
  };
}

const isObjectValue = (v: unknown) => typeof v === 'object' && v !== null && !Array.isArray(v);

function pathOf(instancePath: string, extra?: string): string {
  const segments = instancePath.split('/').slice(1);
  if (extra !== undefined) segments.push(extra);
  return segments.reduce((path, seg) => (/^\d+$/.test(seg) ? `${path}[${seg}]` : path ? `${path}.${seg}` : seg), '');
}

/** Whether the record as the resource shows it has `key` at this place: then the key is read-only. */
function isShown(shown: FieldMap, instancePath: string, key: string): boolean {
  let map: FieldMap | undefined = shown;
  for (const segment of instancePath.split('/').slice(1)) {
    if (/^\d+$/.test(segment)) continue;
    map = map?.[segment]?.sub;
  }
  return map !== undefined && Object.hasOwn(map, key);
}

function describe(error: ErrorObject, shown: FieldMap): ProblemFieldError {
  switch (error.keyword) {
    case 'additionalProperties': {
      const key = (error.params as { additionalProperty: string }).additionalProperty;
      const field = pathOf(error.instancePath, key);
      return {
        field,
        message: isShown(shown, error.instancePath, key) ? 'is read-only' : 'is not a field of this request',
      };
    }
    case 'required':
      return {
        field: pathOf(error.instancePath, (error.params as { missingProperty: string }).missingProperty),
        message: 'is required',
      };
    default:
      return { field: pathOf(error.instancePath) || 'body', message: error.message ?? 'is invalid' };
  }
}

export interface CheckedBody {
  value: Record<string, unknown> | Record<string, unknown>[];
  /** Maps a field path of the list form (`data[0].x`) back to the single form the client sent (`data.x`). */
  unwrap: (field: string) => string;
}

/**
 * Checks a body: 422 naming every offending field. Keys the record shows (`shown`, the resource's
 * fields and relations) but the body cannot set are called read-only, at any depth (`id`,
 * `variants[0].id`). List bodies are a top-level array of objects (`[0].items…`). Text limits and
 * NUL were checked before, on the raw body (src/rest/request-input.ts `requestBody`).
 */
export function checkBody(body: BodyValidator, value: unknown, shown: FieldMap = {}): CheckedBody {
  const { map, list, validate } = body;
  const isObject = isObjectValue(value);
  if (list ? !Array.isArray(value) : !isObject) {
    const shape = list ? 'a JSON array of objects' : 'a JSON object';
    throw new Problem(422, `The request body must be ${shape}`, [{ field: 'body', message: `must be ${shape}` }]);
  }
  const single = !list
    ? Object.keys(map).filter((k) => map[k].oneOrMany && isObjectValue((value as Record<string, unknown>)[k]))
    : [];
  const checked = single.length
    ? {
        ...(value as Record<string, unknown>),
        ...Object.fromEntries(single.map((k) => [k, [(value as Record<string, unknown>)[k]]])),
      }
    : value;
  const unwrap = (field: string) =>
    single.reduce((f, k) => (f === `${k}[0]` || f.startsWith(`${k}[0].`) ? k + f.slice(k.length + 3) : f), field);
  inputChecks.inc({ check: 'body_schema', at: 'rest_edge' });
  if (!validate(checked)) {
    const seen = new Set<string>();
    const errors = (validate.errors ?? [])
      .filter((e) => e.keyword !== 'anyOf')
      .map((e) => describe(e, shown))
      .map((e) => ({ ...e, field: unwrap(e.field) }))
      .filter((e) => !seen.has(`${e.field}|${e.message}`) && seen.add(`${e.field}|${e.message}`));
    throw Problem.fields(422, 'Invalid request body', errors, (e) => `${e.field} ${e.message}`);
  }
  return { value: value as Record<string, unknown> | Record<string, unknown>[], unwrap };
}

/** REST body (snake_case keys) → GraphQL input (the mapped names), recursively. */
export function toInput(map: FieldMap, body: Record<string, unknown>): Record<string, unknown> {
  const input: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(body)) {
    const spec = map[key];
    let converted = value;
    if (spec.sub && value !== null) {
      const sub = spec.sub;
      const given = spec.oneOrMany && !Array.isArray(value) ? [value] : value;
      converted = Array.isArray(given)
        ? given.map((v) => toInput(sub, v as Record<string, unknown>))
        : toInput(sub, given as Record<string, unknown>);
    }
    if (spec.in && converted !== null) converted = spec.in(converted);
    input[gqlNameOf(key, spec)] = converted;
  }
  return input;
}

const snake = (name: string) => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/** A body field whose keys are the client's own (`metafields`: `{"namespace.key": value}`). */
const isKeyMap = (spec: FieldSpec) =>
  !spec.sub && typeof spec.schema === 'object' && spec.schema.additionalProperties !== undefined;

/**
 * A GraphQL input path from the domain (`variants[2].isDefault`) in the body's REST names
 * (`variants[2].default`), walking the map; names the map does not know become snake_case, but
 * for the keys of a key map, named as the client sent them (`metafields.erp.orderNo`).
 */
export function restFieldPath(map: FieldMap | undefined, path: string): string {
  let current: FieldMap | undefined = map;
  let asSent = false;
  return path.replace(/[A-Za-z_][A-Za-z0-9_]*/g, (segment) => {
    if (asSent) return segment;
    const entry =
      current && Object.entries(current).find(([key, spec]) => gqlNameOf(key, spec) === segment || key === segment);
    current = entry?.[1].sub;
    if (entry && isKeyMap(entry[1])) asSent = true;
    return entry ? entry[0] : snake(segment);
  });
}
