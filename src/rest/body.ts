import { Ajv, type ErrorObject, type SchemaValidateFunction, type ValidateFunction } from 'ajv';
import { camelCase, DECIMAL_KEYWORD, gqlNameOf, type FieldMap, type JsonSchema } from './fields.js';
import { Problem, type ProblemFieldError } from './problem.js';

/**
 * Request bodies. A route declares its body as a field map (REST key → GraphQL input field); the
 * JSON schema derived from it is strict (no unknown keys, exact types) and checked with ajv before
 * anything runs, so a typo never reaches the domain as a silently dropped field. Meaning (valid
 * e-mail, existing ids, domain rules) is the resolvers' job.
 */
export function inputSchema(map: FieldMap): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  for (const [key, spec] of Object.entries(map)) {
    let schema = spec.schema;
    if (spec.sub) {
      const nested = inputSchema(spec.sub);
      const nullable = Array.isArray(schema.type) && schema.type.includes('null');
      const shape = schema.type === 'array' || (Array.isArray(schema.type) && schema.type.includes('array')) ? { type: 'array', items: nested } : nested;
      schema = nullable ? { anyOf: [shape, { type: 'null' }] } : shape;
    }
    properties[key] = spec.description ? { ...schema, description: spec.description } : schema;
    if (spec.required) required.push(key);
  }
  return { type: 'object', properties, additionalProperties: false, ...(required.length ? { required } : {}) };
}

const ajv = new Ajv({ allErrors: true, strict: false });
const validators = new WeakMap<FieldMap, ValidateFunction>();

// numeric(12,2): at most 10 digits before the point, 2 after; a JSON number is checked on its
// shortest text form (12.5 → "12.5"), so 0.125 or 1e21 are refused without float arithmetic.
const AMOUNT = /^\d{1,10}(\.\d{1,2})?$/;
const checkAmount: SchemaValidateFunction = (_schema: boolean, data: number | string) => {
  const ok = AMOUNT.test(typeof data === 'number' ? String(data) : data);
  checkAmount.errors = ok ? [] : [{ keyword: DECIMAL_KEYWORD, message: 'must be an amount ≥ 0 with at most 2 decimals and 10 digits before the point', params: {} }];
  return ok;
};
ajv.addKeyword({ keyword: DECIMAL_KEYWORD, type: ['number', 'string'], schemaType: 'boolean', errors: true, validate: checkAmount });

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

/**
 * Checks a body against its map: 422 naming every offending field. Keys the record shows (`shown`,
 * the resource's fields and relations) but the body cannot set are called read-only, at any depth
 * (`id`, `variants[0].id`).
 */
export function checkBody(map: FieldMap, body: unknown, shown: FieldMap = {}): Record<string, unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new Problem(422, 'The request body must be a JSON object', [{ field: 'body', message: 'must be a JSON object' }]);
  }
  let validate = validators.get(map);
  if (!validate) {
    validate = ajv.compile(inputSchema(map));
    validators.set(map, validate);
  }
  if (!validate(body)) {
    const seen = new Set<string>();
    const errors = (validate.errors ?? [])
      .filter((e) => e.keyword !== 'anyOf')
      .map((e) => describe(e, shown))
      .filter((e) => !seen.has(`${e.field}|${e.message}`) && seen.add(`${e.field}|${e.message}`));
    throw new Problem(422, `Invalid request body: ${errors.map((e) => `${e.field} ${e.message}`).join('; ')}`, errors);
  }
  const withNul = nulPaths(body, '', []);
  if (withNul.length) {
    throw new Problem(422, 'Text must not contain the NUL character', withNul.map((field) => ({ field, message: 'must not contain the NUL character' })));
  }
  return body as Record<string, unknown>;
}

/** REST body (snake_case keys) → GraphQL input (the mapped names), recursively. */
export function toInput(map: FieldMap, body: Record<string, unknown>): Record<string, unknown> {
  const input: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(body)) {
    const spec = map[key];
    let converted = value;
    if (spec.sub && value !== null) {
      const sub = spec.sub;
      converted = Array.isArray(value) ? value.map((v) => toInput(sub, v as Record<string, unknown>)) : toInput(sub, value as Record<string, unknown>);
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
