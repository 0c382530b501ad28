/**
 * Declarative REST ↔ GraphQL field mapping. A resource lists its REST keys; each key names the
 * GraphQL field it comes from, an optional nested map, an optional value conversion and its JSON
 * schema. From one declaration we get the selection set, the response shape and the OpenAPI
 * schema, so the three cannot drift apart.
 */

/** A JSON schema (the OpenAPI 3.1 dialect) of a REST value. */
export type JsonSchema = Record<string, unknown>;

export interface FieldSpec {
  /** GraphQL field; defaults to the camelCase of the REST key. `.` groups fields of the same node. */
  gql?: string;
  /** Arguments written after the GraphQL field, e.g. `(size: 250)`. */
  args?: string;
  /** Nested fields of an object or list value. */
  sub?: FieldMap;
  /** Converts the GraphQL value (after nesting) into the REST value. */
  out?: (value: any) => unknown;
  /** In a request body: converts the REST value (after its schema passed) into the GraphQL input value. */
  in?: (value: any) => unknown;
  /** In a request body: must be present. */
  required?: boolean;
  /** In a request body: one object or an array of them (the GraphQL input always gets a list). */
  oneOrMany?: boolean;
  /** The REST value's JSON schema (OpenAPI 3.1). */
  schema: JsonSchema;
  /** Whether `sort` may name this key (its GraphQL name is then a sort enum value). */
  sortable?: boolean;
  description?: string;
}

export type FieldMap = Record<string, FieldSpec>;

/** `gql` of a REST object built from fields of the same GraphQL node (the spec's `items[].data`). */
export const INLINE = '.';

export const camelCase = (key: string) => key.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
export const gqlNameOf = (key: string, spec: FieldSpec) => spec.gql ?? camelCase(key);

/** A map's keys with their GraphQL names, worked out once per map (reshaping runs per record). */
const namedKeys = new WeakMap<FieldMap, Map<string, string>>();
function gqlNames(map: FieldMap): Map<string, string> {
  let names = namedKeys.get(map);
  if (!names) namedKeys.set(map, (names = new Map(Object.entries(map).map(([key, spec]) => [key, gqlNameOf(key, spec)]))));
  return names;
}

type Options = Partial<Omit<FieldSpec, 'schema' | 'sub'>>;

const nullableSchema = (schema: JsonSchema): JsonSchema => ({ ...schema, type: [...[schema.type].flat(), 'null'] });

/**
 * JSON schema keyword (checked by the body validator) for money in request bodies: a number or a
 * numeric string, ≥ 0, at most 2 decimals, fitting numeric(12,2). Checked on the text, never by
 * float arithmetic.
 */
export const DECIMAL_KEYWORD = 'x-decimal-amount';

/** GraphQL `Int` is 32-bit: a body value outside it must be a 422 naming the field, not a failed operation. */
const INT32 = { type: 'integer', minimum: -2_147_483_648, maximum: 2_147_483_647 } as const;

/** Field constructors: the REST type and how the GraphQL value becomes it. */
export const field = {
  /** 32-bit, as GraphQL's Int: a larger number is a 422 naming the field, not a failed operation. */
  integer: (o: Options = {}): FieldSpec => ({ schema: { ...INT32 }, ...o }),
  string: (o: Options = {}): FieldSpec => ({ schema: { type: 'string' }, ...o }),
  boolean: (o: Options = {}): FieldSpec => ({ schema: { type: 'boolean' }, ...o }),
  number: (o: Options = {}): FieldSpec => ({ schema: { type: 'number' }, ...o }),
  strings: (o: Options = {}): FieldSpec => ({ schema: { type: 'array', items: { type: 'string' } }, ...o }),
  integers: (o: Options = {}): FieldSpec => ({ schema: { type: 'array', items: { ...INT32 } }, ...o }),
  /** Unix seconds (the GraphQL Timestamp scalar already is). */
  timestamp: (o: Options = {}): FieldSpec => ({ schema: { type: 'integer', description: 'Unix seconds' }, ...o }),
  /** Unix seconds, 0 for "never" (the spec's products and customers). */
  timestampOrZero: (o: Options = {}): FieldSpec => ({
    schema: { type: 'integer', description: 'Unix seconds; 0 when never updated' },
    out: (v: number | null) => v ?? 0,
    ...o,
  }),
  /** A GraphQL Decimal shown as a JSON number (product prices, per the spec's samples). */
  decimalNumber: (o: Options = {}): FieldSpec => ({ schema: { type: 'number' }, out: (v: string | null) => (v == null ? null : Number(v)), ...o }),
  /** A GraphQL Decimal shown as a string with two decimals (order money). */
  decimalString: (o: Options = {}): FieldSpec => ({ schema: { type: 'string', pattern: '^-?\\d+\\.\\d{2}$' }, ...o }),
  /** Money in a request body: a JSON number or numeric string (`12.5`, `"12.50"`), ≥ 0, two decimals at most. */
  money: (o: Options = {}): FieldSpec => ({
    schema: { type: ['number', 'string'], [DECIMAL_KEYWORD]: true, description: 'an amount ≥ 0 with at most 2 decimals' },
    ...o,
  }),
  nullable: (spec: FieldSpec): FieldSpec => ({ ...spec, schema: nullableSchema(spec.schema) }),
  required: (spec: FieldSpec): FieldSpec => ({ ...spec, required: true }),
  object: (sub: FieldMap, o: Options = {}): FieldSpec => ({ schema: objectSchema(sub), sub, ...o }),
  list: (sub: FieldMap, o: Options = {}): FieldSpec => ({ schema: { type: 'array', items: objectSchema(sub) }, sub, ...o }),
  /** A body field taking one object or an array of them. */
  oneOrMany: (sub: FieldMap, o: Options = {}): FieldSpec => ({ schema: { type: 'array', items: objectSchema(sub) }, sub, oneOrMany: true, ...o }),
  /** Related records shown by id only: selects `{ id }` and flattens. */
  ids: (o: Options = {}): FieldSpec => ({
    schema: { type: 'array', items: { type: 'integer' } },
    sub: { id: { schema: { type: 'integer' } } },
    out: (v: { id: number }[]) => v.map((x) => x.id),
    ...o,
  }),
};

export function objectSchema(map: FieldMap): JsonSchema {
  return {
    type: 'object',
    properties: Object.fromEntries(Object.entries(map).map(([k, s]) => [k, s.description ? { ...s.schema, description: s.description } : s.schema])),
  };
}

/** The GraphQL selection set for the given REST keys (in declaration order). */
export function selectionOf(map: FieldMap, keys: readonly string[] = Object.keys(map)): string {
  return keys
    .map((key) => {
      const spec = map[key];
      if (spec.gql === INLINE) return selectionOf(spec.sub ?? {});
      const nested = spec.sub ? ` { ${selectionOf(spec.sub)} }` : '';
      return `${gqlNameOf(key, spec)}${spec.args ?? ''}${nested}`;
    })
    .join(' ');
}

/** Turns one GraphQL result object into the REST record with exactly the given keys. */
export function reshape(map: FieldMap, node: Record<string, unknown>, keys?: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const names = gqlNames(map);
  for (const key of keys ?? names.keys()) {
    const spec = map[key];
    let value = spec.gql === INLINE ? node : node[names.get(key)!];
    if (spec.sub && value != null) {
      const sub = spec.sub;
      value = Array.isArray(value) ? value.map((v) => reshape(sub, v as Record<string, unknown>)) : reshape(sub, value as Record<string, unknown>);
    }
    out[key] = spec.out ? spec.out(value) : value;
  }
  return out;
}
