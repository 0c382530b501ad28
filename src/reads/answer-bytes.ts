import { DEFAULT_ANSWER_MAX_BYTES } from '../config.js';
import { AnswerTooLargeError } from '../domain/errors.js';

/**
 * The byte bound of an answer (docs/operations.md#answer-size): the JSON of one page of a list, of
 * the event feed or of an export's chunk, as PostgreSQL writes its records, holds at most this many
 * bytes (`DEFAULT_ANSWER_MAX_BYTES`, or `ANSWER_MAX_BYTES` set by src/main.ts). The input limits
 * let one record be large (a product of four 99 000-character textareas, and the event of that
 * PATCH: 396 KB), and a page holds 250 of them: 99 MB of JSON, which the service received, parsed
 * and wrote again at once. One such feed page took a process with `npm start`'s 256 MB heap down
 * (issue #36).
 *
 * 4 MiB: a feed walk through 250 such events at `size=250`, REST and GraphQL, stays within the
 * service's memory goal in a process started as `npm start` starts it, where twice the bound does
 * not (test/page-bytes-crash.test.ts; the figures in docs/operations.md#answer-size). The largest
 * ordinary page, 250 fully expanded orders, is well within it.
 *
 * A page's records are measured where they are aggregated, by the statement that reads them (a
 * running sum of each record's JSON length in their order, `measuredRows`), so the bound costs
 * no statement of its own:
 *
 * - a cursor page (the feed) or an export's chunk ends early: it keeps its records while their
 *   running size is within the bound, always the first, and the next page starts after the last;
 * - an offset page (a list, `Collection.products`) cannot end early without breaking page
 *   arithmetic: over the bound it is refused (AnswerTooLargeError: 400 `answer-too-large`,
 *   GraphQL `ANSWER_TOO_LARGE`), unless it holds one record, so every record can be listed by
 *   some page.
 */
let maxBytes = DEFAULT_ANSWER_MAX_BYTES;

/** Sets the bound (`ANSWER_MAX_BYTES`, once at start by src/main.ts); statements built from then on use it. */
export function setAnswerMaxBytes(bytes: number): void {
  if (!Number.isSafeInteger(bytes) || bytes < 1) throw new Error('ANSWER_MAX_BYTES must be a positive whole number');
  maxBytes = bytes;
}

/**
 * Per request (its EntityManager): the bound of each page it reads, when its operation has several
 * root fields. The bound is the answer's, not a page's: ten aliased pages of 4 MiB each were 40 MiB
 * of JSON parsed and written at once. Each root field gets an equal share (`shareAnswer`), as the
 * root fields of a query run side by side, none knowing what the others will take.
 */
const shares = new WeakMap<object, number>();

/** The bound of each page `request` (its EntityManager) reads: the answer's, or its share of it. */
export function pageBound(request: object): number {
  return Math.min(shares.get(request) ?? maxBytes, maxBytes);
}

/** Gives each of an operation's `rootFields` an equal share of the answer's bound, for `request`'s pages. */
export function shareAnswer(request: object, rootFields: number): void {
  if (rootFields > 1) shares.set(request, Math.max(1, Math.floor(maxBytes / rootFields)));
  else shares.delete(request);
}

/**
 * `rows` (a statement's text) with each row measured: `json_bytes`, the length of its JSON (`json`, an
 * expression on alias `q` giving text), `upto`, the running total of those lengths in `order` (on
 * alias `m`, the same columns), and `kept`: whether the row is within the bound, that is the total
 * up to it is, or it is the first row (whose total is its own length). The rows kept are a prefix
 * of `order`: aggregate those (`filter (where kept)`), so PostgreSQL never builds more than the
 * bound either. A ROWS frame: no peers to look for, each row's total is known as it passes.
 * `within` asks for a smaller bound than the answer's (a subscription's round); never a larger one.
 */
export function measuredRows(rows: string, json: string, order: string, within = maxBytes): string {
  const upto = `sum(m.json_bytes) over (order by ${order} rows unbounded preceding)`;
  const bound = Math.min(within, maxBytes);
  return (
    `select w.*, (w.upto <= ${bound} or w.upto = w.json_bytes) as kept from (select m.*, ${upto} as upto ` +
    `from (select q.*, octet_length(${json}) as json_bytes from (${rows}) q) m) w`
  );
}

/** An aggregate over the rows of `measuredRows` (alias `b`) that takes only those within the bound. */
export const KEPT = 'filter (where b.kept)';

/**
 * An offset page's aggregate (over `measuredRows` on alias `b`, taking `KEPT` rows), or null when a
 * row is past the bound: the page is then refused (`overBound`) without PostgreSQL sending it.
 */
export function wholePage(aggregate: string): string {
  return `case when bool_or(not b.kept) then null else ${aggregate} end`;
}

/** The refusal of an offset page over the bound of `request`'s pages. */
export function overBound(request: object): never {
  throw new AnswerTooLargeError(pageBound(request), shares.has(request));
}

/**
 * The refusal of an executed answer (`data`; of a `mutation`, whose change was made) whose JSON
 * would be over the answer's bound, or undefined. Its values are counted as they are walked, never
 * past the bound: aliases repeat a record's values without their bytes being measured anywhere
 * else (700 aliases of a product's 396 KB of textareas is 277 MB to serialise, which took the
 * process down). Asked only of an operation that repeats a field under aliases
 * (src/graphql/compiled-execution.ts): any other answer's records were measured by the statements
 * that read them. Strings count their UTF-8 bytes (their length when short), the rest as JSON
 * writes it, escapes aside.
 */
export function answerTooLarge(data: unknown, mutation = false): AnswerTooLargeError | undefined {
  let left = maxBytes;
  const stack: unknown[] = [data];
  while (stack.length) {
    const value = stack.pop();
    if (typeof value === 'string') left -= 2 + (value.length < 64 ? value.length : Buffer.byteLength(value));
    else if (value === null || typeof value !== 'object') left -= String(value).length;
    else if (Array.isArray(value)) {
      left -= 1 + value.length;
      for (const item of value) stack.push(item);
    } else {
      for (const [key, item] of Object.entries(value)) {
        left -= key.length + 4;
        stack.push(item);
      }
    }
    if (left < 0) return new AnswerTooLargeError(maxBytes, false, mutation ? 'write' : 'record');
  }
  return undefined;
}
