import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import type { EntityManager, FilterQuery } from '@mikro-orm/postgresql';
import type { GraphQLResolveInfo } from 'graphql';
import { type Companion, runPrepared } from '../db/prepared-statements.js';
import { NotFoundError } from '../domain/errors.js';
import { isEmptyWhere, orderByOf, type Page } from '../domain/listing.js';
import type { SortTerm } from '../schema/pagination.js';
import { KEPT, measuredRows, overBound, pageBound, wholePage } from './answer-bytes.js';
import { rowObject } from './json-writer.js';
import { orderSql, pageStatements } from './page-statements.js';
import { planFor, primaryKey, tableOf } from './read-plan.js';
import { countForm } from './search-walk.js';
import { below, type SelectionTree, selectionOf } from './selection.js';

/** A row as it arrives: its JSON object (see read-row.ts for the types resolvers give it). */
export type Row = Record<string, unknown>;

/** A row of a type read by id: every such type's key is a whole number named `id`. */
export type RowById = Row & { readonly id: number };

// Selection trees of cached documents are stable objects, so each one compiles once per type.
const compiled = new Map<string, WeakMap<SelectionTree, string>>();

/** One row of `type` (alias `r0`) as the JSON text `… as r` the selection asks for (parsed by its reader). */
export function rowSql(em: EntityManager, type: string, tree: SelectionTree): string {
  let byTree = compiled.get(type);
  if (!byTree) compiled.set(type, (byTree = new WeakMap()));
  let sql = byTree.get(tree);
  if (!sql) byTree.set(tree, (sql = `${rowObject(planFor(em.getMetadata(), type, tree), 'r0', 1)} as r`));
  return sql;
}

/**
 * One page of `type` as plain rows with the relations `items` selects, and its total when the
 * selection asks for it, in one statement: the page's rows are numbered in the sort order and
 * aggregated in that order, the count rides along as a scalar subquery.
 */
export async function readPage(
  em: EntityManager,
  type: string,
  selection: SelectionTree,
  where: FilterQuery<object>,
  args: { page: number; size: number; sort?: readonly SortTerm[]; afterId?: number | null },
  columns: Record<string, string>,
): Promise<Page<Row>> {
  const meta = em.getMetadata().getByClassName(type);
  if (args.afterId != null) where = afterKey(where, primaryKey(meta, 'r0').property, args.afterId);
  const orderBy = orderByOf(args.sort, columns);
  const offset = (args.page - 1) * args.size;
  const order = orderSql(meta, orderBy, 'r0');
  const answer = answerPages.get(em);
  const shaped = answer?.type === type && answer.asked === selection ? answer : undefined;
  if (shaped) selection = shaped.selection;
  const itemSql = itemOf(em, type, below(selection, 'items'), shaped);
  const table = tableOf(meta);
  const key = primaryKey(meta, 'r0').column;
  const keyed = shaped?.lines ? `, ${key} as k` : '';
  const numbered = `${itemSql}${keyed}, row_number() over (order by ${order}) as n`;
  const { prelude, page, count, walkedColumn } = pageStatements(em, {
    type,
    meta,
    table,
    key,
    where,
    orderBy,
    order,
    size: args.size,
    offset,
    numbered,
    counted: selection.has('totalCount') || selection.has('pageCount'),
    lines: Boolean(shaped?.lines),
  });
  if (shaped?.lines) {
    // One line a record, never parsed here: `itemSql` writes each record's JSON on one line. The
    // lines come in parts of about PART_BYTES, cut by the running total of their lengths, up to
    // the answer's bound (answer-bytes.ts): the rows past it come as one empty part, and the
    // chunk ends early there (`more`), the next one starting after its last record.
    const lines = measuredRows(
      `select p.n, p.k, p.r || chr(10) as json_line from (${page.sql}) p`,
      'q.json_line',
      'm.n',
      pageBound(em),
    );
    const parts = await runPrepared<{ json_lines: string | null; count: number; last: number | null }>(
      em,
      `select string_agg(b.json_line, '' order by b.n) ${KEPT} as json_lines, count(*) ${KEPT}::int as count, ` +
        `(array_agg(b.k order by b.n desc) ${KEPT})[1] as last from (${lines}) b ` +
        `group by case when b.kept then (b.upto - 1) / ${PART_BYTES} end order by min(b.n)`,
      page.params,
    );
    answerPages.delete(em);
    const kept = parts.filter(
      (part): part is { json_lines: string; count: number; last: number } => part.json_lines !== null,
    );
    shaped.answerLines = {
      parts: kept.map((part) => part.json_lines),
      count: kept.reduce((sum, part) => sum + part.count, 0),
      lastKey: kept.at(-1)?.last ?? null,
      more: kept.length < parts.length,
    };
    return { items: [], totalCount: Number.NaN, page: args.page, size: args.size, pageCount: Number.NaN };
  }
  // The items' JSON text as PostgreSQL wrote it, null past the answer's bound (answer-bytes.ts).
  const array = `coalesce('[' || string_agg(b.r, ',' order by b.n) ${KEPT} || ']', '[]')`;
  const items = `(select ${wholePage(array)} from (${measuredRows(page.sql, 'q.r', 'm.n', pageBound(em))}) b)`;
  const [text] = await runPrepared<{ items: string | null; matching: string | null; walked?: boolean }>(
    em,
    `${prelude.sql}select ${items} as items, (${count.sql}) as matching${walkedColumn}`,
    [...prelude.params, ...page.params, ...count.params],
    shaped?.check,
  );
  if (shaped) answerPages.delete(em);
  if (text.items === null) overBound(em);
  const totalCount = text.matching === null ? Number.NaN : Number(text.matching);
  countForm(text.walked);
  const pageCount = Math.ceil(totalCount / args.size);
  if (shaped) {
    // The answer's items stay text, never parsed here (see AnswerPage).
    shaped.answer = { items: text.items, totalCount, page: args.page, size: args.size, pageCount };
    return { items: [], totalCount, page: args.page, size: args.size, pageCount };
  }
  const rows = JSON.parse(text.items) as Row[];
  // A long page is parsed in one go and then executed and serialised in one go: yielding here
  // lets the event loop answer waiting sockets (probes, short reads) between the two halves.
  if (rows.length > LONG_PAGE) await yieldToEventLoop();
  return { items: rows, totalCount, page: args.page, size: args.size, pageCount };
}

/** `where` narrowed to the rows whose key is greater than `afterId` (keyset paging; bound, as any filter value). */
function afterKey(where: FilterQuery<object>, key: string, afterId: number): FilterQuery<object> {
  const after = { [key]: { $gt: afterId } } as FilterQuery<object>;
  return isEmptyWhere(where) ? after : ({ $and: [where, after] } as FilterQuery<object>);
}

/**
 * A read whose answer PostgreSQL writes itself (src/graphql/answer-passthrough.ts), for the root
 * field whose selection is `selection`: the same statement as the rows', its item written in the
 * response's keys and scalar formats instead (`itemSql`: JSON text of an object on alias `r0`),
 * and left as text, never parsed.
 */
interface AnswerRequest {
  type: string;
  /** The selection the root field's resolver reads with: the read it passes this is the one answered. */
  asked: SelectionTree;
  /** The selection the answer writes (the operation's own, below the root field). */
  selection: SelectionTree;
  itemSql: string;
  /** The request's token check, carried by this read's statement (src/auth/carried-token-check.ts). */
  check?: Companion;
}

/** The item of `type` for `selection` as `… as r`: the answer's, when `answer` asks for this read, else the row's. */
const itemOf = (em: EntityManager, type: string, selection: SelectionTree, answer: AnswerRequest | undefined) =>
  answer ? `${answer.itemSql} as r` : rowSql(em, type, selection);

/** A page answered by PostgreSQL (AnswerRequest): readPage leaves its items as text in `answer`. */
export interface AnswerPage extends AnswerRequest {
  answer?: Omit<Page<never>, 'items'> & { items: string };
  /**
   * The items as lines of text instead (an export's chunk): readPage leaves them in `answerLines`.
   * `itemSql` must then write each item's JSON without a raw newline.
   */
  lines?: boolean;
  answerLines?: AnswerLines;
}

/**
 * Bytes of lines per part of an export's chunk: a part stays below V8's largest regular object
 * (128 kB), so it is allocated young and dies young. A chunk as one string went to the old
 * generation's large objects and set off frequent full collections, while the socket buffers it
 * left behind piled up in malloc until then (docs/performance.md#memory).
 */
const PART_BYTES = 60_000;

/** A page's items as lines of JSON text, one a record, as PostgreSQL wrote them. */
export interface AnswerLines {
  /** The records' JSON, each ending with a newline, in parts (none for no record). */
  parts: string[];
  count: number;
  /** The key of the page's last record (a keyset cursor's next start), null for none. */
  lastKey: number | null;
  /** The page ended early, at the answer's bound (answer-bytes.ts): more records follow its last. */
  more: boolean;
}

/** Per request (its EntityManager): the page a root field's readPage is to answer as text. */
export const answerPages = new WeakMap<EntityManager, AnswerPage>();

/** Rows past which a page's execution is worth a separate slice of the event loop (see readPage). */
const LONG_PAGE = 100;

/**
 * Rows of `type` by id, in the order of `ids` (missing ones left out), in one statement. `page`:
 * the ids are an offset page's, held to the answer's bound.
 */
export async function readByIds(
  em: EntityManager,
  type: string,
  selection: SelectionTree,
  ids: readonly number[],
  { page = false }: { page?: boolean } = {},
): Promise<RowById[]> {
  if (ids.length === 0) return [];
  const meta = em.getMetadata().getByClassName(type);
  // One id or an array of them, bound: two statement texts per selection, whatever the number of ids.
  const [match, params] = ids.length === 1 ? ['= ?', ids] : ['= any(?::int[])', [ids]];
  const key = primaryKey(meta, 'r0');
  const from = `from ${tableOf(meta)} r0 where ${key.column} ${match}`;
  if (!page) {
    const read = await runPrepared<{ r: string }>(em, `select ${rowSql(em, type, selection)} ${from}`, params);
    return inIdOrder(read.map(parsed), key.property, ids);
  }
  // The rows of an offset page (`Collection.products`): measured in id order, those past the
  // answer's bound come without their JSON, and the page is refused (answer-bytes.ts).
  const rows = `select ${rowSql(em, type, selection)}, ${key.column} as k ${from}`;
  const measured = measuredRows(rows, 'q.r', 'm.k', pageBound(em));
  const read = await runPrepared<{ r: string | null; kept: boolean }>(
    em,
    `select case when b.kept then b.r end as r, b.kept from (${measured}) b`,
    params,
  );
  if (read.some((row) => !row.kept)) overBound(em);
  return inIdOrder((read as { r: string }[]).map(parsed), key.property, ids);
}

/** A row as it arrives, its JSON text parsed. */
const parsed = ({ r }: { r: string }): { r: RowById } => ({ r: JSON.parse(r) as RowById });

/** Rows in the order of `ids`, those missing left out. */
function inIdOrder(rows: { r: RowById }[], key: string, ids: readonly number[]): RowById[] {
  const byId = new Map(rows.map((row) => [row.r[key], row.r]));
  return ids.map((id) => byId.get(id)).filter((row): row is RowById => row !== undefined);
}

/**
 * A record answered by PostgreSQL (AnswerRequest): readRecord leaves it as text in `record`, and
 * returns an empty stand-in, of which nothing is executed (the answer's operation selects nothing
 * below its root field, src/graphql/passthrough-shapes.ts).
 */
export interface AnswerRecord extends AnswerRequest {
  record?: string;
}

/** Per request (its EntityManager): the record a root field's readRecord is to answer as text. */
export const answerRecords = new WeakMap<EntityManager, AnswerRecord>();

/**
 * The record a root field or a mutation answers, read as the selection asks (a mutation's answer
 * is read back after its transaction, through the same road as any read).
 */
export async function readRecord(
  em: EntityManager,
  info: Pick<GraphQLResolveInfo, 'fieldNodes' | 'fragments' | 'variableValues'>,
  type: string,
  id: number,
): Promise<Row> {
  const selection = selectionOf(info);
  const asked = answerRecords.get(em);
  const answer = asked?.type === type && asked.asked === selection ? asked : undefined;
  if (answer) answerRecords.delete(em);
  const meta = em.getMetadata().getByClassName(type);
  const [row] = await runPrepared<{ r: string }>(
    em,
    `select ${itemOf(em, type, selection, answer)} from ${tableOf(meta)} r0 where ${primaryKey(meta, 'r0').column} = ?`,
    [id],
    answer?.check,
  );
  if (!row) throw new NotFoundError(type, id);
  if (!answer) return parsed(row).r;
  answer.record = row.r;
  return {};
}
