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
import { literal } from '../reads/json-writer.js';
import { isChoice, type Projection } from '../reads/projection.js';
import { type Plan, quote, type RelationPlan } from '../reads/read-plan.js';
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
  const columnType = String(prop.columnTypes?.[0] ?? '').toLowerCase();
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

const TEXT_PART = /^(int|integer|int4|smallint|int2|bigint|int8|serial|text|varchar|character varying)(\(\d+\))?$/;

/**
 * A part of a `{ concat }` projection as text, as projectRow turns its value into text (a number
 * as its digits, a text as is; null is nothing, as `concat` ignores it).
 */
export function textPartSql(plan: Plan, part: Projection, alias: string, depth: number): string {
  if (typeof part === 'string') {
    const [head, property, ...deeper] = part.split('.');
    if (property !== undefined) {
      const relation = plan.relations.get(head);
      if (deeper.length || relation?.kind !== 'one') return refuse('path');
      const joined = joinedRows.get(relation);
      if (joined !== undefined) return textPartSql(relation.plan, property, joined, depth + 1);
      const child = `t${depth}`;
      return `(select ${textPartSql(relation.plan, property, child, depth + 1)} from ${relation.from(child, alias)})`;
    }
    const prop = plan.meta.properties[head as never] as EntityProperty | undefined;
    const reference = prop?.kind === 'm:1' || (prop?.kind === '1:1' && prop.owner);
    const typed = reference ? prop.targetMeta?.getPrimaryProps()[0] : prop;
    const columnType = String(typed?.columnTypes?.[0] ?? '').toLowerCase();
    if ((prop?.kind !== 'scalar' && !reference) || prop.embedded || prop.fieldNames?.length !== 1) {
      return refuse('concat part');
    }
    return TEXT_PART.test(columnType) ? `${alias}.${quote(prop.fieldNames[0])}::text` : refuse('concat part type');
  }
  if (isChoice(part)) return `coalesce(${part.map((choice) => textPartSql(plan, choice, alias, depth)).join(', ')})`;
  if ('constant' in part) return literal(String(part.constant));
  if ('concat' in part)
    return `concat(${part.concat.map((inner) => textPartSql(plan, inner, alias, depth)).join(', ')})`;
  return refuse('concat part');
}

/**
 * A ReadPath of the row on `alias` (see field-reads.ts) as `type`'s serialiser writes it, or as
 * `shown` asks: a column, a reference's id, or a column of a single relation the plan loads (a
 * subquery; null without a row).
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
  const [head, property, ...deeper] = path.split('.');
  const prop = plan.meta.properties[head as never] as EntityProperty | undefined;
  if (property !== undefined) {
    const relation = plan.relations.get(head);
    if (deeper.length || relation?.kind !== 'one') return refuse('path');
    // A row joined once for its object (joinedObject): its column, null without a row.
    const joined = joinedRows.get(relation);
    const child = joined ?? `t${depth}`;
    // Without a related row the subquery is null: a zero for null goes around it.
    const inner = pathSql(relation.plan, property, type, list, child, depth + 1, zeroless(shown));
    return shownNull(shown, joined === undefined ? `(select ${inner} from ${relation.from(child, alias)})` : inner);
  }
  const column = prop?.fieldNames?.length === 1 ? `${alias}.${quote(prop.fieldNames[0])}` : '';
  const reference = prop?.kind === 'm:1' || (prop?.kind === '1:1' && prop.owner);
  if (reference) {
    // A reference is its id, as the row's JSON gives it: only whole-number keys.
    const key = prop.targetMeta?.getPrimaryProps()[0];
    const keyType = String(key?.columnTypes?.[0] ?? '').toLowerCase();
    const id = type.name === 'Int' && !list && column && INT_COLUMN.test(keyType) ? column : refuse('reference');
    return zeroless(shown) ? refuse('reference shown') : shownNull(shown, id);
  }
  return shownSql(shown, type, leafSql(prop, type, list, column), column);
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
 * Relations joined once for an object (object-sql.ts joinedObject), by the joined row's alias:
 * values read its columns.
 */
export const joinedRows = new WeakMap<RelationPlan, string>();

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
