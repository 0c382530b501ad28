import { raw, type EntityManager, type EntityMetadata, type FilterQuery } from '@mikro-orm/postgresql';
import type { GraphQLResolveInfo } from 'graphql';
import { NotFoundError } from '../domain/errors.js';
import { countQuery, orderByOf, type Page } from '../domain/listing.js';
import type { SortTerm } from '../schema/pagination.js';
import { READ_MODEL, type Relation } from './read-model.js';
import { entityPairs, jsonObject, type JsonPairs } from './row-json.js';
import { below, selectionOf, type SelectionTree } from './selection.js';

/** A row of the read model: the entity's properties as plain values, plus `$relation`s. */
export type Row = Record<string, unknown>;

function relationSql(em: EntityManager, relation: Relation, parent: string, tree: SelectionTree, depth: number): string {
  const child = `t${depth}`;
  switch (relation.kind) {
    case 'many':
      return `coalesce((select json_agg(${objectSql(em, relation.type, child, tree, depth)} order by ${relation.orderBy(child)}) from ${relation.from(child, parent)}), '[]'::json)`;
    case 'one':
      return `(select ${objectSql(em, relation.type, child, tree, depth)} from ${relation.from(child, parent)})`;
    case 'values':
      return relation.sql(parent);
  }
}

/**
 * One row of `type` (alias `alias`) as a JSON expression: every column, and each relation the
 * selection reaches, nested as a subquery. The selection decides the SQL; nothing else does.
 */
function objectSql(em: EntityManager, type: string, alias: string, tree: SelectionTree, depth: number): string {
  const model = READ_MODEL[type] ?? {};
  const pairs: JsonPairs = entityPairs(em.getMetadata().getByClassName(type), alias);
  const relations = new Map<string, SelectionTree>();
  for (const field of tree.keys()) {
    if (model.relations?.[field]) relations.set(field, below(tree, field));
    for (const need of model.needs?.[field] ?? []) if (!relations.has(need)) relations.set(need, below(tree, need));
  }
  for (const [name, selection] of relations) pairs.push([`$${name}`, relationSql(em, model.relations![name], alias, selection, depth + 1)]);
  return jsonObject(pairs);
}

// Selection trees of cached documents are stable objects, so each one compiles once per type.
const compiled = new Map<string, WeakMap<SelectionTree, string>>();

function rowSql(em: EntityManager, type: string, tree: SelectionTree): string {
  let byTree = compiled.get(type);
  if (!byTree) compiled.set(type, (byTree = new WeakMap()));
  let sql = byTree.get(tree);
  if (!sql) byTree.set(tree, (sql = `${objectSql(em, type, 'r0', tree, 0)} as r`));
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
  // The filter is applied once (its raw fragments are single-use) and the builder cloned from it.
  const filtered = em.createQueryBuilder(meta.class, 'r0').where(where as never);
  const qb = filtered.clone().select(raw(`${rowSql(em, type, below(selection, 'items'))}, row_number() over (order by ${orderSql(meta, orderBy, 'r0')}) as n`));
  if (offset < DEFERRED_JOIN_OFFSET) {
    qb.orderBy(orderBy as never).limit(args.size).offset(offset);
  } else {
    // Deep page: the page's ids come from the sort index (an index-only scan past the offset
    // rows), then just those rows are read, instead of reading and discarding every earlier row.
    const ids = filtered.clone().select('id').orderBy(orderBy as never).limit(args.size).offset(offset);
    qb.where({ id: { $in: ids } }).orderBy(orderBy as never);
  }
  const page = qb.toQuery();
  const count = selection.has('totalCount') || selection.has('pageCount') ? countQuery(em, filtered, where) : { sql: 'select null', params: [] };
  const [row] = await em
    .getConnection()
    .execute<{ items: Row[]; total: string | null }[]>(
      `select coalesce((select json_agg(p.r order by p.n) from (${page.sql}) p), '[]'::json) as items, (${count.sql}) as total`,
      [...page.params, ...count.params],
    );
  const totalCount = row.total === null ? Number.NaN : Number(row.total);
  return { items: row.items, totalCount, page: args.page, size: args.size, pageCount: Math.ceil(totalCount / args.size) };
}

/** Rows of `type` by id, in the order of `ids` (missing ones left out), in one statement. */
export async function readByIds(em: EntityManager, type: string, selection: SelectionTree, ids: readonly number[]): Promise<Row[]> {
  if (ids.length === 0) return [];
  const entity = em.getMetadata().getByClassName(type).class;
  const rows = await em
    .createQueryBuilder(entity, 'r0')
    .select(raw(rowSql(em, type, selection)))
    .where({ id: { $in: [...ids] } })
    .execute<{ r: Row }[]>('all', false);
  const byId = new Map(rows.map((row) => [row.r.id as number, row.r]));
  return ids.map((id) => byId.get(id)).filter((row): row is Row => row !== undefined);
}

/** One row of `type`, or null. */
export async function readOne(em: EntityManager, type: string, selection: SelectionTree, id: number): Promise<Row | null> {
  const [row] = await readByIds(em, type, selection, [id]);
  return row ?? null;
}

/**
 * The record a root field or a mutation answers, read as the selection asks (a mutation's answer
 * is read back after its transaction, through the same road as any read).
 */
export async function readRecord(em: EntityManager, info: Pick<GraphQLResolveInfo, 'fieldNodes' | 'fragments' | 'variableValues'>, type: string, id: number): Promise<Row> {
  const row = await readOne(em, type, selectionOf(info), id);
  if (!row) throw new NotFoundError(type, id);
  return row;
}
