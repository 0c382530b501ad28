import { INPUT_LIMITS, leafProblem } from '../domain/input-limits.js';
import { Problem, type ProblemFieldError } from './problem.js';

/**
 * Search filters as data (decisions §2 "Search filters"): each REST filter key names the GraphQL
 * filter field it fills and how its value is read. Strings are substrings (any of a list), numbers
 * and ids exact (any of a list), `{gte, lte}` a range. Nested objects and dotted keys are alike.
 */
export type FilterKind = 'text' | 'int' | 'id' | 'money' | 'bool' | 'timestamp';

export interface FilterSpec {
  /** Dotted path in the GraphQL filter input, e.g. `shipping.city`. */
  gql: string;
  kind: FilterKind;
  /** An `int` filter over a GraphQL enum: the numeric TS enum that maps the REST integers to its names. */
  enumOf?: Record<string, string | number>;
  description?: string;
}

export type FilterMap = Record<string, FilterSpec>;

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
/** Most values one filter may list ("any of"); more is a 422, never an unbounded query. */
export const MAX_FILTER_VALUES = INPUT_LIMITS.filterValues;
const MONEY = /^-?\d{1,10}(\.\d{1,2})?$/;
const INT_MAX = 2_147_483_647;

function scalar(kind: FilterKind, value: unknown): unknown {
  switch (kind) {
    case 'text':
      // The shared filter limits: valid Unicode, no NUL (PostgreSQL text cannot hold it), 1000 characters.
      return typeof value === 'string' && !leafProblem(value, true) ? value : undefined;
    case 'bool':
      return typeof value === 'boolean' ? value : undefined;
    case 'money': {
      const text = typeof value === 'number' && Number.isFinite(value) ? String(value) : value;
      return typeof text === 'string' && MONEY.test(text) ? text : undefined;
    }
    default:
      return Number.isInteger(value) && Math.abs(value as number) <= INT_MAX ? value : undefined;
  }
}

const EXPECTED: Record<FilterKind, string> = {
  text: `a string (at most ${INPUT_LIMITS.filterText} characters of valid Unicode, no NUL) or an array of strings`,
  bool: 'a boolean or an array of booleans',
  id: 'an integer id or an array of them',
  int: 'an integer, an array of integers or a range {"gte": a, "lte": b}',
  money: 'a number or numeric string, an array of them, or a range {"gte": a, "lte": b}',
  timestamp: 'Unix seconds, an array of them, or a range {"gte": a, "lte": b}',
};

function convert(key: string, spec: FilterSpec, value: unknown, errors: ProblemFieldError[]): unknown {
  const fail = () => {
    errors.push({ field: key, message: `must be ${EXPECTED[spec.kind]}` });
    return undefined;
  };
  const ranged = spec.kind === 'int' || spec.kind === 'money' || spec.kind === 'timestamp';
  if (ranged && isPlainObject(value)) {
    const keys = Object.keys(value);
    if (!keys.length || keys.some((k) => k !== 'gte' && k !== 'lte')) return fail();
    const range: Record<string, unknown> = {};
    for (const k of keys) {
      const bound = scalar(spec.kind, value[k]);
      if (bound === undefined) return fail();
      range[k] = bound;
    }
    return spec.enumOf ? enumNames(key, spec.enumOf, range as { gte?: number; lte?: number }, errors) : range;
  }
  const list = Array.isArray(value) ? value : [value];
  if (!list.length) return fail();
  if (list.length > MAX_FILTER_VALUES) {
    errors.push({ field: key, message: `may list at most ${MAX_FILTER_VALUES} values` });
    return undefined;
  }
  const converted = list.map((v) => scalar(spec.kind, v));
  if (converted.some((v) => v === undefined)) return fail();
  if (spec.enumOf) return enumNames(key, spec.enumOf, { eq: converted as number[] }, errors);
  return spec.kind === 'text' || spec.kind === 'bool' || spec.kind === 'id' ? converted : { eq: converted };
}

/** REST integers (a list or a range) → the GraphQL enum names they stand for (any of). */
function enumNames(key: string, enumOf: Record<string, string | number>, match: { eq?: number[]; gte?: number; lte?: number }, errors: ProblemFieldError[]) {
  const codes = new Map(Object.entries(enumOf).filter((e): e is [string, number] => typeof e[1] === 'number').map(([name, code]) => [code, name]));
  if (match.eq) {
    const unknown = match.eq.filter((code) => !codes.has(code));
    if (unknown.length) {
      errors.push({ field: key, message: `must be one of ${[...codes.keys()].join(', ')}` });
      return undefined;
    }
    return match.eq.map((code) => codes.get(code));
  }
  return [...codes].filter(([code]) => (match.gte ?? code) <= code && code <= (match.lte ?? code)).map(([, name]) => name);
}

function setPath(target: Record<string, unknown>, path: string, value: unknown) {
  const parts = path.split('.');
  let node = target;
  for (const part of parts.slice(0, -1)) node = (node[part] ??= {}) as Record<string, unknown>;
  node[parts[parts.length - 1]] = value;
}

/** A search body → the GraphQL filter input; 422 naming each unknown key or bad value. */
export function toFilter(map: FilterMap, body: unknown): Record<string, unknown> {
  if (body === undefined || body === null) return {};
  if (!isPlainObject(body)) throw new Problem(422, 'The search body must be a JSON object of filters', [{ field: 'body', message: 'must be a JSON object' }]);
  const errors: ProblemFieldError[] = [];
  const filter: Record<string, unknown> = {};
  const keys = Object.keys(map);
  const given = new Set<string>();
  const visit = (object: Record<string, unknown>, prefix: string) => {
    for (const [name, value] of Object.entries(object)) {
      const key = prefix ? `${prefix}.${name}` : name;
      const spec = Object.hasOwn(map, key) ? map[key] : undefined;
      if (spec && given.has(key)) {
        errors.push({ field: key, message: 'is given twice (as a nested object and a dotted key)' });
      } else if (spec) {
        given.add(key);
        const converted = convert(key, spec, value, errors);
        if (converted !== undefined) setPath(filter, spec.gql, converted);
      } else if (isPlainObject(value) && keys.some((k) => k.startsWith(`${key}.`))) {
        visit(value, key);
      } else {
        errors.push({ field: key, message: `is not a filter; valid: ${keys.join(', ')}` });
      }
    }
  };
  visit(body, '');
  if (errors.length) throw new Problem(422, `Invalid search filters: ${errors.map((e) => `${e.field} ${e.message}`).join('; ')}`, errors);
  return filter;
}
