import { Ajv, type ErrorObject, type SchemaValidateFunction, type ValidateFunction } from 'ajv';
import { camelCase, DECIMAL_KEYWORD, gqlNameOf, type FieldMap, type JsonSchema } from './fields.js';
import { Problem, type ProblemFieldError } from './problem.js';

/**
 * Request bodies. A route declares its body as a field map (REST key → GraphQL input field); the
 * JSON schema derived from it is strict (no unknown keys, exact types) and checked with ajv before
 * anything runs, so a typo never reaches the domain as a silently dropped field. Meaning (valid
 * e-mail, existing ids, domain rules) is the resolvers' job.
 */
export function inputSchema(map: FieldMap, validating = false): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  for (const [key, spec] of Object.entries(map)) {
    let schema = spec.schema;
    if (spec.sub) {
      const nested = inputSchema(spec.sub, validating);
      const nullable = Array.isArray(schema.type) && schema.type.includes('null');
      const isList = schema.type === 'array' || (Array.isArray(schema.type) && schema.type.includes('array'));
      // Validation sees one-or-many fields as lists (checkBody wraps a single object first), so
      // errors name the real field instead of both branches of an anyOf.
      const many = { type: 'array', items: nested, minItems: 1 };
      const shape = spec.oneOrMany ? (validating ? many : { anyOf: [nested, many] }) : isList ? { type: 'array', items: nested } : nested;
      schema = nullable ? { anyOf: [shape, { type: 'null' }] } : shape;
    }
    properties[key] = spec.description ? { ...schema, description: spec.description } : schema;
    if (spec.required) required.push(key);
  }
  return { type: 'object', properties, additionalProperties: false, ...(required.length ? { required } : {}) };
}

const ajv = new Ajv({ allErrors: true, strict: false });
const isObjectValue = (v: unknown) => typeof v === 'object' && v !== null && !Array.isArray(v);

// numeric(12,2): at most 10 digits before the point, 2 after; a JSON number is checked on its
// shortest text form (12.5 → "12.5"), so 0.125 or 1e21 are refused without float arithmetic.
const AMOUNT = /^\d{1,10}(\.\d{1,2})?$/;
const checkAmount: SchemaValidateFunction = (_schema: boolean, data: number | string) => {
  const ok = AMOUNT.test(typeof data === 'number' ? String(data) : data);
  checkAmount.errors = ok ? [] : [{ keyword: DECIMAL_KEYWORD, message: 'must be an amount ≥ 0 with at most 2 decimals and 10 digits before the point', params: {} }];
  return ok;
};
ajv.addKeyword({ keyword: DECIMAL_KEYWORD, type: ['number', 'string'], schemaType: 'boolean', errors: true, validate: checkAmount });
const validators = new WeakMap<FieldMap, ValidateFunction>();
const listValidators = new WeakMap<FieldMap, ValidateFunction>();

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
      return { field, message: isShown(shown, error.instancePath, key) ? 'is read-only' : 'is not a field of this request' };
    }
    case 'required':
      return { field: pathOf(error.instancePath, (error.params as { missingProperty: string }).missingProperty), message: 'is required' };
    default:
      return { field: pathOf(error.instancePath) || 'body', message: error.message ?? 'is invalid' };
  }
}

/** Paths of strings holding NUL, which PostgreSQL text cannot store. */
function nulPaths(value: unknown, path: string, out: string[]): string[] {
  if (typeof value === 'string') {
    if (value.includes('\u0000')) out.push(path || 'body');
  } else if (Array.isArray(value)) {
    value.forEach((v, i) => nulPaths(v, `${path}[${i}]`, out));
  } else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) nulPaths(v, path ? `${path}.${k}` : k, out);
  }
  return out;
}

/** The JSON schema of a body: one object of the map, or (`list`) a non-empty array of them. */
export function bodySchema(map: FieldMap, list = false, validating = false): JsonSchema {
  return list ? { type: 'array', items: inputSchema(map, validating), minItems: 1 } : inputSchema(map, validating);
}

/**
 * Checks a body against its map: 422 naming every offending field. Keys the record shows (`shown`,
 * the resource's fields and relations) but the body cannot set are called read-only, at any depth
 * (`id`, `variants[0].id`). `list` bodies are a top-level array of such objects (`[0].items…`).
 */
export interface CheckedBody {
  value: Record<string, unknown> | Record<string, unknown>[];
  /** Maps a field path of the list form (`data[0].x`) back to the single form the client sent (`data.x`). */
  unwrap: (field: string) => string;
}

export function checkBody(map: FieldMap, body: unknown, shown: FieldMap = {}, list = false): CheckedBody {
  const isObject = typeof body === 'object' && body !== null && !Array.isArray(body);
  if (list ? !Array.isArray(body) : !isObject) {
    const shape = list ? 'a JSON array of objects' : 'a JSON object';
    throw new Problem(422, `The request body must be ${shape}`, [{ field: 'body', message: `must be ${shape}` }]);
  }
  const cache = list ? listValidators : validators;
  let validate = cache.get(map);
  if (!validate) {
    validate = ajv.compile(bodySchema(map, list, true));
    cache.set(map, validate);
  }
  const single = !list ? Object.keys(map).filter((k) => map[k].oneOrMany && isObjectValue((body as Record<string, unknown>)[k])) : [];
  const checked = single.length ? { ...(body as Record<string, unknown>), ...Object.fromEntries(single.map((k) => [k, [(body as Record<string, unknown>)[k]]])) } : body;
  const unwrap = (field: string) => single.reduce((f, k) => (f === `${k}[0]` || f.startsWith(`${k}[0].`) ? k + f.slice(k.length + 3) : f), field);
  if (!validate(checked)) {
    const seen = new Set<string>();
    const errors = (validate.errors ?? [])
      .filter((e) => e.keyword !== 'anyOf')
      .map((e) => describe(e, shown))
      .map((e) => ({ ...e, field: unwrap(e.field) }))
      .filter((e) => !seen.has(`${e.field}|${e.message}`) && seen.add(`${e.field}|${e.message}`));
    throw new Problem(422, `Invalid request body: ${errors.map((e) => `${e.field} ${e.message}`).join('; ')}`, errors);
  }
  const withNul = nulPaths(body, '', []);
  if (withNul.length) {
    throw new Problem(422, 'Text must not contain the NUL character', withNul.map((field) => ({ field, message: 'must not contain the NUL character' })));
  }
  return { value: body as Record<string, unknown> | Record<string, unknown>[], unwrap };
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
      converted = Array.isArray(given) ? given.map((v) => toInput(sub, v as Record<string, unknown>)) : toInput(sub, given as Record<string, unknown>);
    }
    if (spec.in && converted !== null) converted = spec.in(converted);
    input[gqlNameOf(key, spec)] = converted;
  }
  return input;
}

const snake = (name: string) => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/**
 * A GraphQL input path from the domain (`variants[2].isDefault`) in the body's REST names
 * (`variants[2].default`), walking the map; names the map does not know become snake_case.
 */
export function restFieldPath(map: FieldMap | undefined, path: string): string {
  let current: FieldMap | undefined = map;
  return path.replace(/[A-Za-z_][A-Za-z0-9_]*/g, (segment) => {
    const entry = current && Object.entries(current).find(([key, spec]) => gqlNameOf(key, spec) === segment || key === segment);
    current = entry?.[1].sub;
    return entry ? entry[0] : snake(segment);
  });
}

export { camelCase };
