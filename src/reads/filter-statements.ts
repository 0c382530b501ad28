import { setBounded } from '../bounded-map.js';

/**
 * Filtered statements built once per filter shape. MikroORM's query builder turns a filter (a
 * plain `where` object) into SQL on every request, which was all of what a customer search cost
 * the service's CPU over a plain page (docs/performance.md).
 * The text depends only on the filter's shape (its keys, operators and list lengths), never on
 * its values, which are bound (test/statement-texts.test.ts); so a shape's statement is built
 * once and later requests bind their own values in the places the builder put the first ones.
 *
 * Where each value goes is learnt from that first build: every parameter the builder emitted must
 * be one of the filter's values, found exactly once among them (the same value given twice, or a
 * value the builder converted, leaves the shape uncached and built each time, as before).
 */

/** A built statement: its text with `?` placeholders, and the values it binds. */
export interface Statement {
  sql: string;
  params: readonly unknown[];
}

interface Compiled {
  sql: string;
  /** For each parameter, the index of the filter value it binds. */
  sources: readonly number[];
}

const compiled = new Map<string, Compiled>();
// Shapes are finite in practice (a form's fields); bounded all the same (a text is a few kB).
const COMPILED_MAX = 500;

/** The filter's shape with its values left out, and its values in the order of the walk. */
function filterTemplateOf(where: unknown): { shape: string; values: unknown[] } | null {
  const values: unknown[] = [];
  const walk = (node: unknown): string | null => {
    if (node === null) return 'null';
    if (Array.isArray(node)) {
      const items = node.map(walk);
      return items.includes(null) ? null : `[${items.join(',')}]`;
    }
    if (typeof node === 'object') {
      // Anything but a plain object (a Date, a raw SQL fragment) keeps the shape uncached.
      if (Object.getPrototypeOf(node) !== Object.prototype) return null;
      const parts: string[] = [];
      for (const [key, value] of Object.entries(node as Record<string, unknown>)) {
        const inner = walk(value);
        if (inner === null) return null;
        parts.push(`${JSON.stringify(key)}:${inner}`);
      }
      return `{${parts.join(',')}}`;
    }
    if (typeof node === 'string' || typeof node === 'number' || typeof node === 'boolean') {
      values.push(node);
      return `$${typeof node}`;
    }
    return null;
  };
  const shape = walk(where);
  return shape === null ? null : { shape, values };
}

/** For each emitted parameter, the one filter value it is; null when that is not one-to-one. */
function sourcesOf(params: readonly unknown[], values: readonly unknown[]): number[] | null {
  const sources: number[] = [];
  for (const param of params) {
    const first = values.indexOf(param);
    if (first < 0 || values.indexOf(param, first + 1) >= 0) return null;
    sources.push(first);
  }
  // Every value bound exactly once: a value written into the text instead would make the text
  // depend on it, and then it is not a shape's text.
  return new Set(sources).size === sources.length && sources.length === values.length ? sources : null;
}

/**
 * The statement `build` makes for `where`, from the shape's compiled text where there is one.
 * `key` names everything else the text depends on (the type, the selection, the sort, the kind).
 */
export function filterStatement(key: string, where: unknown, build: () => Statement): Statement {
  const shaped = filterTemplateOf(where);
  if (!shaped) return build();
  const cacheKey = `${key}\u0000${shaped.shape}`;
  const known = compiled.get(cacheKey);
  if (known) return { sql: known.sql, params: known.sources.map((source) => shaped.values[source]) };
  const built = build();
  const sources = sourcesOf(built.params, shaped.values);
  if (sources) setBounded(compiled, cacheKey, { sql: built.sql, sources }, COMPILED_MAX);
  return built;
}
