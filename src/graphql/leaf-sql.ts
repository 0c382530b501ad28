import type { EntityProperty } from '@mikro-orm/core';
import {
  type GraphQLNamedType,
  type GraphQLOutputType,
  getNamedType,
  getNullableType,
  isEnumType,
  isListType,
  isObjectType,
} from 'graphql';
import { literal, onRelatedRow } from '../reads/json-writer.js';
import { isChoice, type Projection } from '../reads/projection.js';
import { columnSql, type Plan, referenceKey } from '../reads/read-plan.js';
import { INT_COLUMN, quotedJson, SCALAR_CODECS, TEXT_COLUMN } from '../schema/scalars/scalar-codecs.js';
import { refuse } from './not-plain.js';
import type { Shown } from './rendering.js';
import { SHOWN_VIEWS } from './shown-views.js';

/**
 * The leaves of a record PostgreSQL writes as JSON (answer-passthrough.ts): a column as GraphQL's
 * serialiser writes it or as an edge shows it, a path through single relations, the parts of a
 * declared value (src/reads/projection.ts), and each as its JSON text. Anything SQL cannot write
 * exactly as the executor would is refused (not-plain.ts).
 */

/** A scalar or enum column as its GraphQL serialiser writes it, or a refusal. */
export function leafSql(
  prop: EntityProperty | undefined,
  type: GraphQLNamedType,
  list: boolean,
  column: string,
  inEmbeddable = false,
): string {
  if (prop?.kind !== 'scalar' || Boolean(prop.embedded) !== inEmbeddable || prop.fieldNames?.length !== 1) {
    return refuse('not a column');
  }
  const columnType = typeOf(prop);
  if (list) {
    // A text array column (ProductOption.values) is a JSON array of strings in both roads.
    const textArray = columnType.endsWith('[]') && TEXT_COLUMN.test(columnType.slice(0, -2));
    return type.name === 'String' && textArray ? column : refuse('list');
  }
  if (isEnumType(type)) {
    const cases = type.getValues().map(({ name, value }) => {
      const stored = Number.isInteger(value)
        ? String(value)
        : typeof value === 'string'
          ? literal(value)
          : refuse('enum value');
      return `when ${stored} then '${name}'`;
    });
    return `(case ${column} ${cases.join(' ')} end)`;
  }
  // Each scalar's column types and SQL are its codec's (src/schema/scalars/scalar-codecs.ts).
  const codec = SCALAR_CODECS[type.name];
  if (!codec) return refuse(`scalar ${type.name}`);
  return codec.columns.test(columnType) ? codec.value(column) : refuse(`${type.name} column`);
}

/** A leaf as `shown` asks, from its SQL as GraphQL's serialiser writes it (`sql`) or its column. */
export function shownSql(shown: Shown | undefined, type: GraphQLNamedType, sql: string, column: string): string {
  return shown === undefined ? sql : SHOWN_VIEWS[shown].sql(type, sql, column);
}

/**
 * The property a ReadPath (field-reads.ts) names on the row `alias`, as `leaf` writes it from its
 * column ('' unless it is one column): a property of the row, or of a single relation the plan
 * loads (json-writer.ts onRelatedRow: null without a row).
 */
function atPath(
  plan: Plan,
  path: string,
  alias: string,
  depth: number,
  leaf: (prop: EntityProperty | undefined, column: string) => string,
): string {
  const [head, property, ...deeper] = path.split('.');
  if (property === undefined) {
    const prop = plan.meta.properties[head as never] as EntityProperty | undefined;
    return leaf(prop, prop?.fieldNames?.length === 1 ? columnSql(alias, prop) : '');
  }
  const relation = plan.relations.get(head);
  if (deeper.length || relation?.kind !== 'one') return refuse('path');
  return onRelatedRow(relation, alias, depth, (row, on, below) => atPath(row, property, on, below, leaf));
}

const typeOf = (prop: EntityProperty | undefined) => String(prop?.columnTypes?.[0] ?? '').toLowerCase();
const TEXT_PART = /^(int|integer|int4|smallint|int2|bigint|int8|serial|text|varchar|character varying)(\(\d+\))?$/;

/**
 * A part of a `{ concat }` projection as text, as projectRow turns its value into text (a number
 * as its digits, a text as is; null is nothing, as `concat` ignores it).
 */
export function textPartSql(plan: Plan, part: Projection, alias: string, depth: number): string {
  if (typeof part === 'string') {
    return atPath(plan, part, alias, depth, (prop, column) => {
      const key = referenceKey(prop);
      if ((prop?.kind !== 'scalar' && !key) || prop?.embedded || !column) return refuse('concat part');
      return TEXT_PART.test(typeOf(key ?? prop)) ? `${column}::text` : refuse('concat part type');
    });
  }
  if (isChoice(part)) return `coalesce(${part.map((choice) => textPartSql(plan, choice, alias, depth)).join(', ')})`;
  if ('constant' in part) return literal(String(part.constant));
  if ('concat' in part)
    return `concat(${part.concat.map((inner) => textPartSql(plan, inner, alias, depth)).join(', ')})`;
  return refuse('concat part');
}

/**
 * A ReadPath of the row on `alias` as `type`'s serialiser writes it, or as `shown` asks: a column,
 * a reference's id, or a column of a single relation the plan loads (null without a row: a zero
 * for null goes around the whole value).
 */
export function pathSql(
  plan: Plan,
  path: string,
  type: GraphQLNamedType,
  list: boolean,
  alias: string,
  depth: number,
  shown?: Shown,
): string {
  const value = atPath(plan, path, alias, depth, (prop, column) => {
    const key = referenceKey(prop);
    if (!key) return shownSql(zeroless(shown), type, leafSql(prop, type, list, column), column);
    // A reference is its id, as the row's JSON gives it: only whole-number keys.
    if (type.name !== 'Int' || list || !column || !INT_COLUMN.test(typeOf(key))) return refuse('reference');
    return zeroless(shown) ? refuse('reference shown') : column;
  });
  return shownNull(shown, value);
}

/** `shown` without its zero for null (applied around a whole value, see shownNull). */
export const zeroless = (shown: Shown | undefined) => (shown === 'zeroForNull' ? undefined : shown);
/** `sql`, with 0 for null when `shown` asks. */
export const shownNull = (shown: Shown | undefined, sql: string) =>
  shown === 'zeroForNull' ? `coalesce(${sql}, 0)` : sql;

/** A constant of a projection as SQL of the GraphQL type it is served as. */
export function constantSql(value: string | number | boolean, type: GraphQLNamedType): string {
  if (type.name === 'String' && typeof value === 'string') return literal(value);
  if (type.name === 'Int' && Number.isSafeInteger(value)) return String(value);
  if (type.name === 'Boolean' && typeof value === 'boolean') return String(value);
  return refuse('constant');
}

/**
 * A value of GraphQL type `type` (`sql`: a leaf as leafSql and shownSql give it, or an object or
 * list already JSON text) as its JSON text, null as `null`.
 */
export function jsonValue(sql: string, type: GraphQLOutputType, shown: Shown | undefined): string {
  const named = getNamedType(type);
  if (isObjectType(named)) return `coalesce(${sql}, 'null')`;
  // A list of scalars (a text array column): PostgreSQL's own JSON of the array.
  if (isListType(getNullableType(type))) return `coalesce(to_json(${sql})::text, 'null')`;
  if (shown) return SHOWN_VIEWS[shown].json(sql);
  // An enum's name: a GraphQL name, nothing to escape.
  if (isEnumType(named)) return quotedJson(sql);
  const codec = SCALAR_CODECS[named.name];
  return codec ? codec.json(sql) : refuse(`scalar ${named.name}`);
}
