import { type FilterReader, type FilterShape, isPlainObject } from './filter-shapes.js';
import { Problem, type ProblemFieldError } from './problem.js';

/**
 * A search body read against the resource's filter shapes (src/rest/filter-shapes.ts, derived at
 * start-up): each REST key's value brought to its GraphQL filter input field, or a 422 naming it.
 */
function convert(key: string, shape: FilterShape, value: unknown, errors: ProblemFieldError[]): unknown {
  const fail = () => {
    const many =
      shape.form === 'one'
        ? ''
        : shape.form === 'range' || shape.codes
          ? ', an array of them, or a range {"gte": a, "lte": b}'
          : ' or an array of them';
    errors.push({ field: key, message: `must be ${shape.one}${many}` });
    return undefined;
  };
  if ((shape.form === 'range' || shape.codes) && isPlainObject(value)) {
    const keys = Object.keys(value);
    if (!keys.length || keys.some((k) => k !== 'gte' && k !== 'lte')) return fail();
    const range: Record<string, unknown> = {};
    for (const k of keys) {
      const bound = shape.read(value[k]);
      if (bound === undefined) return fail();
      range[k] = bound;
    }
    return shape.codes ? enumNames(key, shape.codes, range as { gte?: number; lte?: number }, errors) : range;
  }
  if (shape.form === 'keyed') {
    if (!isPlainObject(value) || !Object.keys(value).length) return fail();
    const entries = Object.entries(value).map(([name, given]) => {
      const dot = name.indexOf('.');
      const typedValue = shape.read(given);
      if (dot < 1 || typedValue === undefined) {
        errors.push({ field: `${key}.${name}`, message: 'must be named namespace.key, with a value that is not null' });
        return undefined;
      }
      return { namespace: name.slice(0, dot), key: name.slice(dot + 1), typedValue };
    });
    return entries.includes(undefined) ? undefined : entries;
  }
  if (shape.form === 'one') return shape.read(value) ?? fail();
  // An empty list was refused with the shared filter limits, before this ran.
  const list = Array.isArray(value) ? value : [value];
  const converted = list.map((v) => shape.read(v));
  if (converted.some((v) => v === undefined)) return fail();
  if (shape.codes) return enumNames(key, shape.codes, { eq: converted as number[] }, errors);
  return shape.form === 'range' ? { eq: converted } : converted;
}

/** REST integer codes (a list or a range) → the GraphQL enum names they stand for (any of). */
function enumNames(
  key: string,
  codes: Map<number, string>,
  match: { eq?: number[]; gte?: number; lte?: number },
  errors: ProblemFieldError[],
) {
  if (match.eq) {
    if (match.eq.some((code) => !codes.has(code))) {
      errors.push({ field: key, message: `must be one of ${[...codes.keys()].join(', ')}` });
      return undefined;
    }
    return match.eq.map((code) => codes.get(code));
  }
  return [...codes]
    .filter(([code]) => (match.gte ?? code) <= code && code <= (match.lte ?? code))
    .map(([, name]) => name);
}

function setPath(target: Record<string, unknown>, path: string, value: unknown) {
  const parts = path.split('.');
  let node = target;
  for (const part of parts.slice(0, -1)) node = (node[part] ??= {}) as Record<string, unknown>;
  node[parts[parts.length - 1]] = value;
}

/** A search body → the GraphQL filter input; 422 naming each unknown key or bad value. */
export function toFilter(reader: FilterReader, body: unknown): Record<string, unknown> {
  if (body === undefined || body === null) return {};
  if (!isPlainObject(body))
    throw new Problem(422, 'The search body must be a JSON object of filters', [
      { field: 'body', message: 'must be a JSON object' },
    ]);
  const errors: ProblemFieldError[] = [];
  const filter: Record<string, unknown> = {};
  const keys = Object.keys(reader.shapes);
  const given = new Set<string>();
  // A keyed filter's entries (`metafields`), gathered from every form it may be sent in first.
  const keyed = new Map<string, Record<string, unknown>>();
  const keyedUnder = (key: string) =>
    keys.find((k) => reader.shapes[k].form === 'keyed' && (key === k || key.startsWith(`${k}.`)));
  const visit = (object: Record<string, unknown>, prefix: string) => {
    for (const [name, value] of Object.entries(object)) {
      const key = prefix ? `${prefix}.${name}` : name;
      const shape = Object.hasOwn(reader.shapes, key) ? reader.shapes[key] : undefined;
      const under = keyedUnder(key);
      if (under !== undefined) {
        gatherKeyed(keyed, under, key, value, errors);
      } else if (shape && given.has(key)) {
        errors.push({ field: key, message: 'is given twice (as a nested object and a dotted key)' });
      } else if (shape) {
        given.add(key);
        const converted = convert(key, shape, value, errors);
        if (converted !== undefined) setPath(filter, shape.gql, converted);
      } else if (isPlainObject(value) && keys.some((k) => k.startsWith(`${key}.`))) {
        visit(value, key);
      } else {
        errors.push({ field: key, message: `is not a filter; valid: ${keys.join(', ')}` });
      }
    }
  };
  visit(body, '');
  for (const [key, entries] of keyed) {
    const converted = convert(key, reader.shapes[key], entries, errors);
    if (converted !== undefined) setPath(filter, reader.shapes[key].gql, converted);
  }
  if (errors.length) throw Problem.fields(422, 'Invalid search filters', errors, (e) => `${e.field} ${e.message}`);
  return filter;
}

/**
 * A keyed filter's entries as `"namespace.key": value`, whichever way they are sent (nested
 * objects or dotted keys, alike, as every nested filter): `{"metafields": {"erp.no": v}}`,
 * `{"metafields": {"erp": {"no": v}}}` or `{"metafields.erp.no": v}`. A name without a dot whose
 * value is an object is a namespace of keys; a name with one holds its value as it is (a `json`
 * value may be an object). The same entry given twice is refused.
 */
function gatherKeyed(
  keyed: Map<string, Record<string, unknown>>,
  under: string,
  key: string,
  value: unknown,
  errors: ProblemFieldError[],
) {
  let entries = keyed.get(under);
  if (!entries) keyed.set(under, (entries = {}));
  const add = (name: string, given: unknown) => {
    if (Object.hasOwn(entries, name)) {
      errors.push({ field: `${under}.${name}`, message: 'is given twice (as a nested object and a dotted key)' });
    } else {
      entries[name] = given;
    }
  };
  const named = key === under ? value : { [key.slice(under.length + 1)]: value };
  if (!isPlainObject(named)) {
    errors.push({ field: key, message: 'must be an object of "namespace.key": value' });
    return;
  }
  for (const [name, given] of Object.entries(named)) {
    if (!name.includes('.') && isPlainObject(given) && Object.keys(given).length) {
      for (const [inner, innerValue] of Object.entries(given)) add(`${name}.${inner}`, innerValue);
    } else {
      add(name, given);
    }
  }
}
