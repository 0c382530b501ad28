import { raw, type EntityManager, type FilterQuery } from '@mikro-orm/postgresql';
import type { GraphQLResolveInfo } from 'graphql';
import { NotFoundError } from '../domain/errors.js';
import { countRows, orderByOf, type Page } from '../domain/listing.js';
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

/**
 * One page of `type` as plain rows with the relations `items` selects, in one statement, and its
 * total in a second one sent alongside, only when the selection asks for it.
 */
export async function readPage(
  em: EntityManager,
  type: string,
  selection: SelectionTree,
  where: FilterQuery<object>,
  args: { page: number; size: number; sort?: readonly SortTerm[] },
  columns: Record<string, string>,
): Promise<Page<Row>> {
  const entity = em.getMetadata().getByClassName(type).class;
  const orderBy = orderByOf(args.sort, columns);
  const offset = (args.page - 1) * args.size;
  const qb = em.createQueryBuilder(entity, 'r0').select(raw(rowSql(em, type, below(selection, 'items'))));
  if (offset < DEFERRED_JOIN_OFFSET) {
    qb.where(where as never).orderBy(orderBy as never).limit(args.size).offset(offset);
  } else {
    // Deep page: the page's ids come from the sort index (an index-only scan past the offset
    // rows), then just those rows are read, instead of reading and discarding every earlier row.
    const ids = em.createQueryBuilder(entity, 'k').select('id').where(where as never).orderBy(orderBy as never).limit(args.size).offset(offset);
    qb.where({ id: { $in: ids } }).orderBy(orderBy as never);
  }
  const counted = selection.has('totalCount') || selection.has('pageCount');
  const [rows, totalCount] = await Promise.all([
    qb.execute<{ r: Row }[]>('all', false),
    counted ? countRows(em, entity, where) : Promise.resolve(Number.NaN),
  ]);
  return { items: rows.map((row) => row.r), totalCount, page: args.page, size: args.size, pageCount: Math.ceil(totalCount / args.size) };
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
