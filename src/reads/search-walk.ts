import { setBounded } from '../bounded-map.js';

/**
 * A counted text search in key order has two good forms, and which is better depends on how many
 * rows the term matches, which a generic plan cannot see:
 *
 * - a narrow term (an e-mail, a rare name): read every match once, with the trigram bitmap scan,
 *   and take both the count and the page from them (the `matches` CTE of read-query.ts);
 * - a broad term ("ove", one customer in sixteen): walk the key index from the page's end and stop
 *   once the page is full, a few hundred rows, and count with the bitmap scan alone. Writing every
 *   match into the CTE's store and sorting them is what this saves (measured on the bench's 100k
 *   store, `pgbench -M prepared`: 15–25% more searches a second than the CTE for "ove").
 *
 * A walk that misses is costly (it reads rows the bitmap scan would have skipped), so a search
 * walks only once the same search (type, sort, page and values) has answered with at least
 * BROAD_MATCHES, and stops walking for good when a walk came back short. The walk is also capped
 * at WALK_ROWS rows, so a stale hint costs a bounded walk before the matches' form answers; the
 * answer never depends on the hint, only its cost does.
 */

/** Rows a walk reads at most before it gives way to the matches' form (written into the text). */
export const WALK_ROWS = 4096;

/** Matches from which a search is worth walking next time (a quarter of WALK_ROWS: the page fills early). */
const BROAD_MATCHES = WALK_ROWS / 4;

/** Per search: whether to walk. Searches repeat (a list reloaded, a page shared); nothing else bounds their number. */
const hints = new Map<string, boolean>();
const HINTS_MAX = 10_000;

export function shouldWalk(search: string): boolean {
  return hints.get(search) === true;
}

/**
 * Learns from an answer: walk a search that matched broadly without walking; never again walk one
 * whose walk came back short (its count alone would have it walk, and miss, every other time).
 */
export function learn(search: string, answer: { walked: boolean | null; count: number }): void {
  if (answer.walked === false) setBounded(hints, search, false, HINTS_MAX);
  else if (answer.walked === null && !hints.has(search) && answer.count >= BROAD_MATCHES)
    setBounded(hints, search, true, HINTS_MAX);
}
