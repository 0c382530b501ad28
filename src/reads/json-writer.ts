import type { EntityMetadata, EntityProperty } from '@mikro-orm/core';
import { rowJson } from '../schema/scalars/scalar-codecs.js';
import { quote } from './read-plan.js';

/**
 * The one SQL→JSON writer: every JSON PostgreSQL writes for a read is JSON text built here, an
 * object of `'key', value` pairs, an array of a relation's rows, each value JSON text given by a
 * codec (src/schema/scalars/scalar-codecs.ts). Two kinds of object use it: an entity's row with
 * its property names and the column's own value (`entityPairs`, for execution: src/reads/read-row.ts
 * types it) and an answer's object with the response's keys and formats (src/graphql/object-sql.ts).
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

/** A JSON array of `element` (JSON text) over the rows of `from`, in `orderBy`; no row is `[]`. */
export const jsonTextArray = (element: string, orderBy: string, from: string) =>
  `coalesce((select '[' || string_agg(${element}, ',' order by ${orderBy}) || ']' from ${from}), '[]')`;

/** A column as the entity holds it, as JSON text (its codec's `rowJson`: money as its exact decimal text). */
function columnValue(prop: EntityProperty, alias: string): string {
  return rowJson(prop.columnTypes?.[0], `${alias}.${quote(prop.fieldNames[0])}`);
}

/**
 * The row of an entity as a plain object with the entity's own property names and value types,
 * as JSON gives them (typed by read-row.ts): embeddables nest, a reference is its id (or null),
 * decimals are strings, timestamps ISO strings. Collections are left out; the read plan adds the
 * relations a selection asks for. `only` keeps just those properties (the columns a selection
 * needs); the compiled statement is cached by the caller.
 */
export function entityPairs(meta: EntityMetadata, alias: string, only: ReadonlySet<string> | null = null): JsonPairs {
  return meta.props
    .filter((p) => p.persist !== false && !p.embedded && (!only || only.has(p.name)))
    .flatMap((prop): JsonPairs => {
      switch (prop.kind) {
        case 'scalar':
          return [[prop.name, columnValue(prop, alias)]];
        case 'embedded': {
          const inner = meta.props
            .filter((p) => p.embedded?.[0] === prop.name)
            .map((p): [string, string] => [p.embedded![1], columnValue(p, alias)]);
          return [[prop.name, jsonTextObject(inner)]];
        }
        case 'm:1':
        case '1:1': {
          if (!prop.fieldNames?.length || (prop.kind === '1:1' && !prop.owner)) return [];
          const key = prop.targetMeta?.getPrimaryProps()[0];
          return [[prop.name, rowJson(key?.columnTypes?.[0], `${alias}.${quote(prop.fieldNames[0])}`)]];
        }
        default:
          return [];
      }
    });
}
