import type { EntityProperty } from '@mikro-orm/core';
import { rowJson } from '../schema/scalars/scalar-codecs.js';
import { columnSql, embeddedColumns, landingKey, type Plan, type RelationPlan, referenceKey } from './read-plan.js';

/**
 * The one SQL→JSON writer: every JSON PostgreSQL writes for a read is JSON text built here, an
 * object of `'key', value` pairs, an array of a relation's rows, each value JSON text given by a
 * codec (src/schema/scalars/scalar-codecs.ts). It writes in two modes, which share its relations
 * (relationJson, onRelatedRow) and objects: an entity's row with its property names and the
 * column's own value (`rowObject`, for execution: src/reads/read-row.ts types it), and an answer's
 * object with the response's keys and formats (src/graphql/object-sql.ts, never parsed).
 *
 * Text joined by `||` takes less of PostgreSQL's time than `to_json` of a one-row subselect or
 * `json_build_object`, which both look up each value's type on every row (bench/analysis.md,
 * "JSON written as text"): the codecs know each value's type here.
 */

/** `'key', expression` pairs of a JSON object, each expression JSON text. */
export type JsonPairs = [key: string, sql: string][];

/** A text as an SQL literal. */
export const literal = (text: string) => `'${text.replace(/'/g, "''")}'`;

/**
 * A JSON object of `pairs` (each value JSON text), its keys in their order; keys are property or
 * response names (fixed by the metadata and the schema, never input).
 */
export function jsonTextObject(pairs: JsonPairs): string {
  if (!pairs.length) return `'{}'`;
  const parts = pairs.map(([key, sql], i) => `${literal(`${i ? ',' : '{'}${JSON.stringify(key)}:`)} || ${sql}`);
  return `(${parts.join(' || ')} || '}')`;
}

/** What a related row is written as, in either mode: JSON text of an object on the row `alias` of `plan`. */
export type RowWriter = (plan: Plan, alias: string, depth: number) => string;

type OneRelation = Extract<RelationPlan, { kind: 'one' }>;

/** `value` on the single related row (`t<depth>`), as a scalar subquery: null without a row. */
const subquery = (relation: OneRelation, alias: string, depth: number, value: RowWriter) =>
  `(select ${value(relation.plan, `t${depth}`, depth + 1)} from ${relation.from(`t${depth}`, alias)})`;

/**
 * A relation of the row on `alias` as JSON text, in both modes (only the related rows' objects
 * differ: `row` writes each, on the alias `t<depth>`): a list's rows in its order (`[]` for none),
 * a single row (`null` for none), or a computed JSON value. That value is kept on one line for an
 * export's lines: json_agg puts newlines between composite elements, and a JSON string escapes its
 * own, so taking them out changes no value.
 */
export function relationJson(relation: RelationPlan, alias: string, depth: number, row: RowWriter): string {
  const child = `t${depth}`;
  switch (relation.kind) {
    case 'many': {
      const element = row(relation.plan, child, depth + 1);
      const rows = `string_agg(${element}, ',' order by ${relation.orderBy(child)})`;
      return `coalesce((select '[' || ${rows} || ']' from ${relation.from(child, alias)}), '[]')`;
    }
    case 'one':
      return `coalesce(${subquery(relation, alias, depth, row)}, 'null')`;
    case 'json':
      return `coalesce(replace((${relation.sql(alias)})::text, chr(10), ''), 'null')`;
  }
}

/**
 * Single relations joined once for an answer's object (src/graphql/object-sql.ts joinedObject), by
 * the joined row's alias: values read its columns in place.
 */
export const joinedRows = new WeakMap<RelationPlan, string>();

/**
 * A value (a leaf: null without a row) on the single related row of `relation`: in place where
 * that row is joined for its parent's object (joinedRows), else a subquery.
 */
export function onRelatedRow(relation: OneRelation, alias: string, depth: number, value: RowWriter): string {
  const joined = joinedRows.get(relation);
  return joined === undefined ? subquery(relation, alias, depth, value) : value(relation.plan, joined, depth + 1);
}

/** A column as the entity holds it, as JSON text (its codec's `rowJson`: money as its exact decimal text). */
const columnValue = (prop: EntityProperty, alias: string, type = prop) =>
  rowJson(type.columnTypes?.[0], columnSql(alias, prop));

/**
 * An entity's row (alias `alias`) in its property names, for execution, as JSON gives its values
 * (typed by read-row.ts): the columns its plan needs (every one for `columns: null`), embeddables
 * nested, a reference as its id (or null), decimals as strings, timestamps as ISO strings; and
 * each relation the plan loads, a single row under `$name` (landingKey). The selection decides
 * the plan (read-plan.ts); nothing else does.
 */
export function rowObject({ meta, columns, relations }: Plan, alias: string, depth: number): string {
  const pairs = meta.props
    .filter((p) => p.persist !== false && !p.embedded && (!columns || columns.has(p.name)))
    .flatMap((prop): JsonPairs => {
      if (prop.kind === 'scalar') return [[prop.name, columnValue(prop, alias)]];
      if (prop.kind === 'embedded') {
        const inner = embeddedColumns(meta, prop.name);
        return [[prop.name, jsonTextObject(inner.map((p) => [p.embedded![1], columnValue(p, alias)]))]];
      }
      // A reference is its id; a collection, or the inverse side of a 1:1, is no column of the row.
      const key = referenceKey(prop);
      return key && prop.fieldNames?.length ? [[prop.name, columnValue(prop, alias, key)]] : [];
    });
  for (const [name, relation] of relations) {
    pairs.push([landingKey(name, relation), relationJson(relation, alias, depth, rowObject)]);
  }
  if (new Set(pairs.map(([key]) => key)).size !== pairs.length)
    throw new Error(`read plan: a relation of ${meta.className} lands where one of its columns does`);
  return jsonTextObject(pairs);
}
