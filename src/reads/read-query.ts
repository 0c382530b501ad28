import { raw, type EntityManager, type EntityMetadata, type FilterQuery } from '@mikro-orm/postgresql';
import type { GraphQLResolveInfo } from 'graphql';
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { NotFoundError } from '../domain/errors.js';
import { PREPARED, runPrepared } from '../db/prepared-statements.js';
import { countQuery, isEmptyWhere, orderByOf, type Page } from '../domain/listing.js';
import type { SortTerm } from '../schema/pagination.js';
import { READ_MODEL, relationKey, type Relation } from './read-model.js';
import { entityPairs, jsonObject, type JsonPairs } from './row-json.js';
import { selectedProperties } from './selected-columns.js';
import { below, selectionOf, type SelectionTree } from './selection.js';

/** A row of the read model: the entity's properties as plain values, plus `$relation`s. */
export type Row = Record<string, unknown>;

/** What a nested row selects; `all` for a relation a resolver needs (every column, whatever is selected). */
interface Nested {
  tree: SelectionTree;
  all: boolean;
}

function relationSql(em: EntityManager, relation: Relation, parent: string, nested: Nested, depth: number): string {
  const child = `t${depth}`;
  switch (relation.kind) {
    case 'many':
      return `coalesce((select json_agg(${objectSql(em, relation.type, child, nested, depth)} order by ${relation.orderBy(child)}) from ${relation.from(child, parent)}), '[]'::json)`;
    case 'one':
      return `(select ${objectSql(em, relation.type, child, nested, depth)} from ${relation.from(child, parent)})`;
    case 'values':
      return relation.sql(parent);
  }
}

/**
 * One row of `type` (alias `alias`) as a JSON expression: the columns the selection needs (see
 * selected-columns.ts), and each relation the selection reaches, nested as a subquery. The
 * selection decides the SQL; nothing else does. A relation that a field resolver needs (e.g. a
 * shipment's carrier for its tracking URL) comes with every column.
 */
function objectSql(em: EntityManager, type: string, alias: string, { tree, all }: Nested, depth: number): string {
  const model = READ_MODEL[type] ?? {};
  const meta = em.getMetadata().getByClassName(type);
  const pairs: JsonPairs = entityPairs(meta, alias, all ? null : selectedProperties(meta, model, tree));
  const relations = new Map<string, Nested>();
  for (const field of tree.keys()) {
    if (model.relations?.[field] && !relations.has(field)) relations.set(field, { tree: below(tree, field), all: false });
    for (const need of model.needs?.[field] ?? []) relations.set(need, { tree: below(tree, need), all: true });
  }
  for (const [name, nested] of relations) pairs.push([relationKey(name), relationSql(em, model.relations![name], alias, nested, depth + 1)]);
  const keys = new Set(pairs.map(([key]) => key));
  if (keys.size !== pairs.length) throw new Error(`read model: a relation of ${type} lands on the key of one of its columns`);
  return jsonObject(pairs);
}

// Selection trees of cached documents are stable objects, so each one compiles once per type.
const compiled = new Map<string, WeakMap<SelectionTree, string>>();

/** One row of `type` (alias `r0`) as the JSON expression `… as r` the selection asks for. */
export function rowSql(em: EntityManager, type: string, tree: SelectionTree): string {
  let byTree = compiled.get(type);
  if (!byTree) compiled.set(type, (byTree = new WeakMap()));
  let sql = byTree.get(tree);
  if (!sql) byTree.set(tree, (sql = `${objectSql(em, type, 'r0', { tree, all: false }, 0)} as r`));
  return sql;
}

/** From this offset on, a page is read through its ids (a deferred join). */
const DEFERRED_JOIN_OFFSET = 1000;

/** ORDER BY in SQL for whitelisted sort terms (entity properties → their columns on `alias`). */
function orderSql(meta: EntityMetadata, orderBy: Record<string, 'asc' | 'desc'>[], alias: string): string {
  return orderBy
    .flatMap((term) => Object.entries(term))
    .map(([property, direction]) => `${alias}."${meta.properties[property as never].fieldNames[0]}" ${direction}`)
    .join(', ');
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
  args: { page: number; size: number; sort?: readonly SortTerm[] },
  columns: Record<string, string>,
): Promise<Page<Row>> {
  const meta = em.getMetadata().getByClassName(type);
  const orderBy = orderByOf(args.sort, columns);
  const offset = (args.page - 1) * args.size;
  const order = orderSql(meta, orderBy, 'r0');
  const numbered = `${rowSql(em, type, below(selection, 'items'))}, row_number() over (order by ${order}) as n`;
  const deep = offset >= DEFERRED_JOIN_OFFSET;
  const counted = selection.has('totalCount') || selection.has('pageCount');
  let page: { sql: string; params: readonly unknown[] };
  let count: { sql: string; params: readonly unknown[] } = { sql: 'select null', params: [] };
  if (isEmptyWhere(where)) {
    // An unfiltered list: the statement from the read model and the whitelisted sort alone.
    const table = `"${meta.tableName}"`;
    page = deep
      ? // Deep page: the page's ids come from the sort index (an index-only scan past the offset
        // rows), then just those rows are read, instead of reading and discarding every earlier row.
        { sql: `select ${numbered} from ${table} r0 where r0.id in (select r0.id from ${table} r0 order by ${order} limit ? offset ?)`, params: [args.size, offset] }
      : { sql: `select ${numbered} from ${table} r0 order by ${order} limit ? offset ?`, params: [args.size, offset] };
    if (counted) count = countQuery(em, meta.class, where);
  } else {
    // The filter is applied once (its raw fragments are single-use) and the builder cloned from it.
    const filtered = em.createQueryBuilder(meta.class, 'r0').where(where as never);
    const qb = filtered.clone().select(raw(numbered));
    if (deep) {
      const ids = filtered.clone().select('id').orderBy(orderBy as never).limit(args.size).offset(offset);
      qb.where({ id: { $in: ids } });
    } else {
      qb.orderBy(orderBy as never).limit(args.size).offset(offset);
    }
    page = qb.toQuery();
    if (counted) count = countQuery(em, meta.class, where, filtered);
  }
  // The page's values are written into the text (MikroORM's execute): with LIMIT and OFFSET as bind
  // parameters PostgreSQL cannot cost a generic plan, keeps re-planning the statement with each
  // execution's values, and planning is most of its cost. A page's text repeats (same size, page,
  // filter), so each distinct one is still prepared once.
  const [row] = await em
    .getConnection()
    .execute<{ items: Row[]; total: string | null }[]>(
      `${PREPARED}select coalesce((select json_agg(p.r order by p.n) from (${page.sql}) p), '[]'::json) as items, (${count.sql}) as total`,
      [...page.params, ...count.params],
      'all',
      em.getTransactionContext(),
    );
  // A long page is parsed in one go and then executed and serialised in one go: yielding here
  // lets the event loop answer waiting sockets (probes, short reads) between the two halves.
  if (row.items.length > LONG_PAGE) await yieldToEventLoop();
  const totalCount = row.total === null ? Number.NaN : Number(row.total);
  return { items: row.items, totalCount, page: args.page, size: args.size, pageCount: Math.ceil(totalCount / args.size) };
}

/** Rows past which a page's execution is worth a separate slice of the event loop (see readPage). */
const LONG_PAGE = 100;

/** Rows of `type` by id, in the order of `ids` (missing ones left out), in one statement. */
export async function readByIds(em: EntityManager, type: string, selection: SelectionTree, ids: readonly number[]): Promise<Row[]> {
  if (ids.length === 0) return [];
  const meta = em.getMetadata().getByClassName(type);
  const rows = await runPrepared<{ r: Row }>(em, `select ${rowSql(em, type, selection)} from "${meta.tableName}" r0 where r0.id in (${ids.map(() => '?').join(', ')})`, ids);
  const byId = new Map(rows.map((row) => [row.r.id as number, row.r]));
  return ids.map((id) => byId.get(id)).filter((row): row is Row => row !== undefined);
}

/**
 * The record a root field or a mutation answers, read as the selection asks (a mutation's answer
 * is read back after its transaction, through the same road as any read).
 */
export async function readRecord(em: EntityManager, info: Pick<GraphQLResolveInfo, 'fieldNodes' | 'fragments' | 'variableValues'>, type: string, id: number): Promise<Row> {
  const [row] = await readByIds(em, type, selectionOf(info), [id]);
  if (!row) throw new NotFoundError(type, id);
  return row;
}
