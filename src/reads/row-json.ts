import type { EntityMetadata, EntityProperty } from '@mikro-orm/core';
import { rowSql } from '../schema/scalars/scalar-codecs.js';
import { quote } from './read-plan.js';

/** `'key', expression` pairs of a JSON object built in SQL. */
export type JsonPairs = [key: string, sql: string][];

// json_build_object takes at most 100 arguments: wider objects are built in parts and merged.
const PAIRS_PER_CALL = 50;

/** A JSON object from pairs; keys are property names (fixed by the entity metadata, never input). */
export function jsonObject(pairs: JsonPairs): string {
  const call = (part: JsonPairs) => `json_build_object(${part.map(([key, sql]) => `'${key}', ${sql}`).join(', ')})`;
  if (pairs.length <= PAIRS_PER_CALL) return call(pairs);
  const parts: string[] = [];
  for (let i = 0; i < pairs.length; i += PAIRS_PER_CALL)
    parts.push(`${call(pairs.slice(i, i + PAIRS_PER_CALL))}::jsonb`);
  return `(${parts.join(' || ')})::json`;
}

/** A column as the entity holds it (its codec's `rowSql`: money as its exact decimal text). */
function columnValue(prop: EntityProperty, alias: string): string {
  return rowSql(prop.columnTypes?.[0], `${alias}.${quote(prop.fieldNames[0])}`);
}

/**
 * The row of an entity as a plain object with the entity's own property names and value types,
 * as JSON gives them (typed by read-row.ts): embeddables nest, a reference is its id (or null),
 * decimals are strings, timestamps ISO strings. Collections are left out; the read plan adds the
 * relations a selection asks for. `only` keeps just those
 * properties (the columns a selection needs); the compiled statement is cached by the caller.
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
          return [[prop.name, jsonObject(inner)]];
        }
        case 'm:1':
        case '1:1': {
          if (!prop.fieldNames?.length || (prop.kind === '1:1' && !prop.owner)) return [];
          return [[prop.name, `${alias}.${quote(prop.fieldNames[0])}`]];
        }
        default:
          return [];
      }
    });
}
