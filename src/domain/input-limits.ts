import type { FieldError } from './errors.js';

/**
 * The one set of input limits (docs/operations.md#input-limits). REST bodies and search filters, `/graphql`
 * variables and the arguments of every root operation are all checked against these values, so
 * neither edge accepts what the other refuses and no input can cost unbounded CPU or SQL.
 */
export const INPUT_LIMITS = {
  /** Longest text any input field takes (a product textarea, the longest field, holds 100 000). */
  text: 100_000,
  /** Longest text one search filter value may be (a search term, not a document). */
  filterText: 1000,
  /** Most values one search filter may list ("any of"). */
  filterValues: 100,
  /** Most items any other list input may hold. */
  list: 1000,
  /** How deep JSON input may nest (objects and arrays); no request shape needs more than 6. */
  depth: 32,
  /**
   * Most keys one JSON object may hold: four times the widest input (OrderFilter, 24 fields). Counted
   * before anything looks at the keys, so a body of 50 000 unknown keys costs one count, not 50 000
   * schema errors, messages and stored bytes (issue #25).
   */
  keys: 100,
  /**
   * Most values one JSON input may hold in all (object members and list items, at any depth): a
   * product of 1000 variants with a dozen values each fits. Without it a 1 MiB body of nested lists
   * holds 500 000 values, each a schema error of its own: hundreds of MB of heap (issue #25).
   */
  values: 20_000,
  /** Field errors named in one answer at most (a huge bad input must not make a huge answer). */
  reported: 20,
} as const;

/**
 * Metafield values a record keeps (docs/decisions.md#custom-data-metafields): a body's `metafields`
 * map may name as many (inputProblems), and the domain holds each record to it.
 */
export const METAFIELDS_PER_RECORD = 200;

/** A string holding an unpaired UTF-16 surrogate cannot be stored or sent as UTF-8. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Why PostgreSQL cannot hold `text` as text (a NUL, an unpaired surrogate), if it cannot. */
export function unstorableText(text: string): string | undefined {
  if (text.includes('\u0000')) return 'must not contain the NUL character';
  if (LONE_SURROGATE.test(text)) return 'must be valid Unicode text (it holds an unpaired surrogate)';
  return undefined;
}

export interface InputCheckOptions {
  /** Prefix of every reported path (`filter`, `$input`). */
  root?: string;
  /** Search filter values: the tighter text and list limits apply, and a list may not be empty. */
  filter?: boolean;
  /** Check text too (default); off where the text is checked later with better names. */
  text?: boolean;
}

/** Whether a JSON object holds more than `limit` keys; stops counting there. */
export function hasTooManyKeys(object: object, limit: number = INPUT_LIMITS.keys): boolean {
  let count = 0;
  for (const key in object) if (Object.hasOwn(object, key) && ++count > limit) return true;
  return false;
}

/** The field error of an object over the key limit (`body` when it is the whole input). */
export const tooManyKeys = (field: string, limit: number = INPUT_LIMITS.keys): FieldError => ({
  field: field || 'body',
  message: `may hold at most ${limit} keys`,
});

/**
 * The path of a record's `metafields` map in a write: a REST body's (at its top, or a variant's),
 * or the same in a GraphQL input: in a variable of any name (`$patch.metafields`), or in the
 * argument the input guard names (`input.metafields`). A variable that is the map itself
 * (`input: { metafields: $mf }`) is held to any JSON object's limits (100 keys) before the
 * document is parsed: its type is not known then.
 */
const METAFIELDS_KEY = /^(?:\$\w+\.|input\.)?(?:variants\[\d+\]\.)?metafields$/;

const join = (path: string, key: string | number) =>
  typeof key === 'number' ? `${path}[${key}]` : path ? `${path}.${key}` : key;

/** What is wrong with one leaf value (text or number), if anything. */
export function leafProblem(value: unknown, filter = false, text = true): string | undefined {
  if (typeof value === 'string' && text) {
    const limit = filter ? INPUT_LIMITS.filterText : INPUT_LIMITS.text;
    if (value.length > limit) return `must be at most ${limit} characters`;
    return unstorableText(value);
  } else if (typeof value === 'number' && !Number.isFinite(value)) {
    return 'is outside the range of numbers';
  }
  return undefined;
}

/**
 * Every value of a JSON input that breaks a limit, by path (`items[2].title`). The walk uses an
 * explicit stack, never recursion, so no nesting can overflow the call stack; it stops descending
 * at the depth limit, does not open an object over the key limit, stops walking once the input
 * holds more than `INPUT_LIMITS.values` values, and stops collecting after `INPUT_LIMITS.reported`
 * problems.
 */
export function inputProblems(
  value: unknown,
  { root = '', filter = false, text = true }: InputCheckOptions = {},
): FieldError[] {
  const problems: FieldError[] = [];
  // `whole`: inside a metafield's value, which takes any width (its type bounds it: 64 KiB).
  const stack: { value: unknown; path: string; depth: number; whole?: boolean }[] = [{ value, path: root, depth: 0 }];
  let values = 0;
  const tooManyValues = { field: root || 'body', message: `may hold at most ${INPUT_LIMITS.values} values in all` };
  while (stack.length && problems.length < INPUT_LIMITS.reported) {
    if (values > INPUT_LIMITS.values) {
      problems.push(tooManyValues);
      break;
    }
    const { value: node, path, depth, whole = false } = stack.pop()!;
    if (node === null || typeof node !== 'object') {
      const message = leafProblem(node, filter, text);
      if (message) problems.push({ field: path || 'body', message });
      continue;
    }
    if (depth >= INPUT_LIMITS.depth) {
      problems.push({ field: path || 'body', message: `nests deeper than ${INPUT_LIMITS.depth} levels` });
      continue;
    }
    if (Array.isArray(node)) {
      const limit = filter ? INPUT_LIMITS.filterValues : INPUT_LIMITS.list;
      // "Any of" nothing would match nothing: an empty list in a filter is a client's mistake.
      if (filter && !node.length) {
        problems.push({ field: path || 'body', message: 'must list at least one value' });
        continue;
      }
      if (node.length > limit && !whole) {
        problems.push({ field: path || 'body', message: `may hold at most ${limit} values` });
        continue;
      }
      // Counted before the items are walked: a list may not hold more than the values in all.
      values += node.length;
      if (values > INPUT_LIMITS.values) {
        problems.push(tooManyValues);
        break;
      }
      for (let i = node.length - 1; i >= 0; i--)
        stack.push({ value: node[i], path: join(path, i), depth: depth + 1, whole });
    } else if (!(node instanceof Date)) {
      // A record's `metafields` in a body: as many keys as a record keeps, and each value of any
      // width (its definition's type bounds it: 64 KiB; src/domain/metafield-types.ts), so a body
      // takes what metafieldsSet takes as text. Depth and the count of values still hold (a body is
      // hashed and walked by recursion). A search's `metafields` keeps the filter limits.
      const valuesMap = !whole && !filter && METAFIELDS_KEY.test(path);
      const keyLimit = valuesMap ? METAFIELDS_PER_RECORD : INPUT_LIMITS.keys;
      if (!whole && hasTooManyKeys(node, keyLimit)) {
        problems.push(tooManyKeys(path, keyLimit));
        continue;
      }
      // Within a metafield's value (no key limit), its keys are counted before they are listed.
      if (whole && hasTooManyKeys(node, INPUT_LIMITS.values - values)) {
        problems.push(tooManyValues);
        break;
      }
      const entries = Object.entries(node);
      values += entries.length;
      for (let i = entries.length - 1; i >= 0; i--) {
        const [key, child] = entries[i];
        const keyProblem = text ? leafProblem(key) : undefined;
        if (keyProblem) problems.push({ field: join(path, key), message: `key ${keyProblem}` });
        else stack.push({ value: child, path: join(path, key), depth: depth + 1, whole: whole || valuesMap });
      }
    }
  }
  return problems;
}
