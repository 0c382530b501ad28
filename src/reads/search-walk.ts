import type { EntityMetadata } from '@mikro-orm/postgresql';
import { textSearchForms } from '../observability/metrics.js';

/**
 * A counted text search in key order has two good forms, and which is better depends on how many
 * rows the term matches, which a generic plan cannot see:
 *
 * - a narrow term (an e-mail, a rare name): read every match once, with the trigram bitmap scan,
 *   and take both the count and the page from them (the `matches` CTE of page-statements.ts);
 * - a broad term ("ove", one customer in sixteen): walk the key index from the page's end and stop
 *   once the page is full, a few hundred rows, and count with the bitmap scan alone. Writing every
 *   match into the CTE's store and sorting them is what this saves (bench/analysis.md, "What Q4
 *   got back").
 *
 * The statement holds both and PostgreSQL chooses when it runs it, from its own statistics of the
 * searched column (`pg_stats`: the most common values with their frequencies, and the histogram of
 * the rest, the sample the planner itself estimates a LIKE from): the walk runs when the share of
 * the column the patterns match would fill the page within WALK_ROWS rows twice over; otherwise its
 * one-time filter skips it without reading a row. A walk that comes back short (statistics older
 * than the data) gives way to the matches' CTE in the same statement. So the same request is
 * planned alike on every process and after a restart, and changes form only when ANALYZE changes
 * what the database knows; the answer never depends on the form, only its cost does.
 */

/** Rows a walk reads at most before it gives way to the matches' form (written into the text). */
export const WALK_ROWS = 4096;

/** The one-column text search a gate can be estimated for: the column and the patterns any of which match. */
interface TextSearch {
  column: string;
  operator: 'like' | 'ilike';
  patterns: string[];
}

/** Single-item `$and`/`$or` wrappers left out: what the filter says, one level down. */
function unwrap(where: unknown): unknown {
  let node = where;
  for (;;) {
    if (!node || typeof node !== 'object') return node;
    const keys = Object.keys(node);
    const list = (node as Record<string, unknown>)[keys[0]];
    if (keys.length !== 1 || (keys[0] !== '$and' && keys[0] !== '$or') || !Array.isArray(list) || list.length !== 1)
      return node;
    node = list[0];
  }
}

/** `{ property: { $like | $ilike: pattern } }` as [property, operator, pattern], else undefined. */
function textCondition(condition: unknown): [string, 'like' | 'ilike', string] | undefined {
  if (!condition || typeof condition !== 'object') return undefined;
  const entries = Object.entries(condition);
  if (entries.length !== 1) return undefined;
  const [property, test] = entries[0];
  if (!test || typeof test !== 'object' || Object.keys(test).length !== 1) return undefined;
  const [[operator, pattern]] = Object.entries(test);
  if ((operator !== '$like' && operator !== '$ilike') || typeof pattern !== 'string') return undefined;
  return [property, operator === '$like' ? 'like' : 'ilike', pattern];
}

/**
 * The filter as a search of one column of the table for any of some patterns (one condition, or an
 * `$or` of them on one property with one operator), else undefined: only such a search is walked.
 */
function textSearchOf(meta: EntityMetadata, where: unknown): TextSearch | undefined {
  const node = unwrap(where) as Record<string, unknown> | undefined;
  const conditions = node && Array.isArray(node.$or) && Object.keys(node).length === 1 ? node.$or : [node];
  const parsed = conditions.map(textCondition);
  if (!parsed.length || parsed.some((c) => c === undefined)) return undefined;
  const [[property, operator]] = parsed as [string, 'like' | 'ilike', string][];
  if (parsed.some((c) => c![0] !== property || c![1] !== operator)) return undefined;
  const column = meta.properties[property as never]?.fieldNames?.[0];
  if (!column || meta.properties[property as never].persist === false) return undefined;
  return { column, operator, patterns: parsed.map((c) => c![2]) };
}

/**
 * SQL (one boolean, `?` bound to `params`) that is true when PostgreSQL's statistics of the searched
 * column say the patterns match a share of it broad enough for the walk to fill a page of `size`
 * (twice over) within WALK_ROWS rows; undefined when the filter is not one such search (it is then
 * never walked). No statistics yet (a table never analysed) reads as narrow.
 */
export function walkGate(
  meta: EntityMetadata,
  where: unknown,
  size: number,
): { sql: string; params: unknown[] } | undefined {
  const search = textSearchOf(meta, where);
  if (!search) return undefined;
  const { column, operator } = search;
  const share = (2 * size) / WALK_ROWS;
  const sql =
    `(select coalesce(sum(e.share), 0) >= ${share} from (select ` +
    `coalesce((select sum(m.f) from unnest(s.most_common_vals::text::text[], s.most_common_freqs) m (v, f) ` +
    `where m.v ${operator} any(?::text[])), 0) + (1 - s.null_frac - coalesce((select sum(x) ` +
    `from unnest(s.most_common_freqs) x), 0)) * coalesce((select avg((h.v ${operator} any(?::text[]))::int) ` +
    `from unnest(s.histogram_bounds::text::text[]) h (v)), 0) as share from pg_stats s ` +
    `where s.schemaname = current_schema() and s.tablename = '${meta.tableName}' and s.attname = '${column}') e)`;
  return { sql, params: [search.patterns, search.patterns] };
}

/** Counts which form answered a walkable search (`db_text_search_forms_total`). */
export function countForm(walked: boolean | undefined): void {
  if (walked !== undefined && walked !== null) textSearchForms.inc({ form: walked ? 'walk' : 'matches' });
}
