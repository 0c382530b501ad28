/**
 * Declarative REST ↔ GraphQL field mapping: what is REST's own. A resource lists its REST keys;
 * each key names the GraphQL field it comes from (or fills, in a body), an optional nested map and
 * an optional conversion where the spec shows a value differently from GraphQL. Types, nullability,
 * requiredness and limits are not declared here: src/rest/rest-api.ts reads them from the schema's
 * types at start-up and completes every map (`DerivedMap`), from which come the selection set, the
 * response shape, the body validator and the OpenAPI document.
 */
import { setBounded } from '../bounded-map.js';
import type { Shown } from '../graphql/rendering.js';
import type { Deprecation } from './deprecation.js';
import type { JsonSchema } from './json-schema.js';
import { retyped, withoutNull } from './type-schemas.js';

export interface FieldSpec {
  /** GraphQL field; defaults to the camelCase of the REST key. `.` groups fields of the same node. */
  gql?: string;
  /** Arguments written after the GraphQL field, e.g. `(size: 250)`. */
  args?: string;
  /** Keys of a nested object or list of objects (the GraphQL type says which). */
  sub?: FieldMap;
  /** Converts the GraphQL value (after nesting) into the REST value. */
  out?(value: unknown): unknown;
  /**
   * Of a nested object (or each of a list of them): two of its keys, of which it shows one, the
   * first when its value is not null, else the second (`field.nested`'s option; PostgreSQL writes
   * it too).
   */
  either?: readonly [string, string];
  /**
   * A view of the value other than GraphQL's (src/graphql/shown-views.ts): the key's conversion of an
   * executed answer and the SQL of PostgreSQL's are both the view's, so they cannot disagree.
   */
  shown?: Shown;
  /** In a request body: converts the REST value (after its schema passed) into the GraphQL input value. */
  in?(value: unknown): unknown;
  /** In a request body: one object or an array of them (the GraphQL input always gets a list). */
  oneOrMany?: boolean;
  /**
   * Of a key in a nested map: shown only when the request's `expand` also names this relation of the
   * record (a product's `variants[].metafields` with `expand=variants,metafields`; src/rest/operations.ts
   * `askedFieldsOf`), so it is not `required` in the OpenAPI schema.
   */
  shownWith?: string;
  /**
   * Only where REST shows or takes a value differently from GraphQL: a fixed JSON schema (open
   * content, or a body value that `in` converts), or a function of the GraphQL value's schema (for
   * an `out` conversion: a Decimal shown as a number). Everything else is derived.
   */
  schema?: JsonSchema | ((graphql: JsonSchema) => JsonSchema);
  description?: string;
  /**
   * A key on its way out (docs/operations.md#api-versioning): marked `deprecated` in the OpenAPI
   * document, and every answer holding it carries `Deprecation` and `Sunset` headers. A key read
   * from a GraphQL field with `@deprecated` must say so (the start-up check).
   */
  deprecated?: Deprecation;
}

export type FieldMap = Record<string, FieldSpec>;

/** A spec completed from the schema (src/rest/rest-api.ts): the REST value's JSON schema, always. */
export interface DerivedSpec extends FieldSpec {
  schema: JsonSchema;
  sub?: DerivedMap;
  /** In a body: the JSON schema the validator runs (custom scalars checked by their own `parseValue`). */
  check?: JsonSchema;
  /** In a body: the GraphQL input field is non-null and has no default. */
  required?: boolean;
}

export type DerivedMap = Record<string, DerivedSpec>;

/** `gql` of a REST object built from fields of the same GraphQL node (the spec's `items[].data`). */
export const INLINE = '.';

export const camelCase = (key: string) => key.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
export const gqlNameOf = (key: string, spec: FieldSpec) => spec.gql ?? camelCase(key);

/** A map's keys with their GraphQL names, worked out once per map (reshaping runs per record). */
interface NamedKeys {
  /** Every key in declaration order (an array: no iterator object per record). */
  all: readonly string[];
  names: ReadonlyMap<string, string>;
}
const namedKeys = new WeakMap<FieldMap, NamedKeys>();
function gqlNames(map: FieldMap): NamedKeys {
  let named = namedKeys.get(map);
  if (!named) {
    const all = Object.keys(map);
    namedKeys.set(map, (named = { all, names: new Map(all.map((key) => [key, gqlNameOf(key, map[key])])) }));
  }
  return named;
}

type Options = Omit<FieldSpec, 'sub'>;

/**
 * A key shown (or taken) as GraphQL has it: `field()`, `field({ description: '…' })`. The helpers
 * are REST's own presentations of a GraphQL value.
 */
export const field = Object.assign((options: Options = {}): FieldSpec => ({ ...options }), {
  /** A nested object or list of objects, its keys mapped like a resource's (see `either`). */
  nested: (sub: FieldMap, options: Options = {}): FieldSpec => ({
    sub,
    ...(options.either ? { out: showingEither(options.either) } : {}),
    ...options,
  }),
  /** A body field taking one object or an array of them (the GraphQL input takes a list). */
  oneOrMany: (sub: FieldMap, options: Options = {}): FieldSpec => ({ sub, oneOrMany: true, ...options }),
  /** A GraphQL Decimal shown as a JSON number (product prices, per the spec's samples). */
  decimalNumber: (options: Options = {}): FieldSpec => ({
    shown: 'number',
    schema: (graphql) => retyped(graphql, 'number'),
    ...options,
  }),
  /** Unix seconds, 0 for "never" (the spec's products and customers). */
  timestampOrZero: (options: Options = {}): FieldSpec => ({
    shown: 'zeroForNull',
    schema: (graphql) => ({ ...withoutNull(graphql), description: 'Unix seconds; 0 when never updated' }),
    ...options,
  }),
});

/** `either`'s conversion: each object without the key it does not show (the others in their order). */
function showingEither([first, second]: readonly [string, string]): (value: unknown) => unknown {
  const one = (object: Record<string, unknown> | null) => {
    if (object == null) return object;
    const hidden = object[first] != null ? second : first;
    return Object.fromEntries(Object.entries(object).filter(([key]) => key !== hidden));
  };
  return (value) => (Array.isArray(value) ? value.map(one) : one(value as Record<string, unknown> | null));
}

/** Key sets kept per map: `fields` makes any subset of a record's keys, so the caches are bounded. */
export const KEY_SETS_PER_MAP = 200;

/**
 * `derive` of a field map and some of its keys (all by default), kept per map and key set. Every
 * REST read and write asks for what the same few maps and key sets give; `fields` lets a client vary
 * the key sets, so at most KEY_SETS_PER_MAP are kept per map.
 */
export function perKeySet<T>(derive: (map: FieldMap, keys: readonly string[]) => T) {
  const cache = new WeakMap<FieldMap, Map<string, T>>();
  return (map: FieldMap, keys: readonly string[] = Object.keys(map)): T => {
    let byKeys = cache.get(map);
    if (!byKeys) cache.set(map, (byKeys = new Map()));
    const id = keys.join(',');
    let value = byKeys.get(id);
    if (value === undefined) setBounded(byKeys, id, (value = derive(map, keys)), KEY_SETS_PER_MAP);
    return value;
  };
}

/** The GraphQL selection set for the given REST keys (in declaration order). */
export const selectionOf = perKeySet(writeSelection);

function writeSelection(map: FieldMap, keys: readonly string[]): string {
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
export function reshape(
  map: FieldMap,
  node: Record<string, unknown>,
  keys?: readonly string[],
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const { all, names } = gqlNames(map);
  const shown = keys ?? all;
  for (let i = 0; i < shown.length; i++) {
    const key = shown[i];
    const spec = map[key];
    let value = spec.gql === INLINE ? node : node[names.get(key)!];
    if (spec.sub && value != null) {
      const sub = spec.sub;
      value = Array.isArray(value)
        ? value.map((v) => reshape(sub, v as Record<string, unknown>))
        : reshape(sub, value as Record<string, unknown>);
    }
    out[key] = spec.out ? spec.out(value) : value;
  }
  return out;
}
