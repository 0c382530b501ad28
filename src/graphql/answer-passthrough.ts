import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import type { EntityProperty, MetadataStorage } from '@mikro-orm/core';
import {
  type DocumentNode,
  type ExecutionResult,
  type FieldNode,
  GraphQLError,
  type GraphQLField,
  type GraphQLNamedType,
  type GraphQLObjectType,
  type GraphQLOutputType,
  type GraphQLResolveInfo,
  type GraphQLSchema,
  getArgumentValues,
  getNamedType,
  getNullableType,
  getOperationAST,
  getVariableValues,
  isEnumType,
  isListType,
  isNonNullType,
  isObjectType,
  isScalarType,
  Kind,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from 'graphql';
import type { Middleware } from 'koa';
import type { Companion } from '../db/prepared-statements.js';
import { type Projection, pathsOf } from '../reads/projection.js';
import { type Plan, planFor, projectionOf, type RelationPlan } from '../reads/read-plan.js';
import {
  type AnswerLines,
  type AnswerPage,
  type AnswerRecord,
  answerPages,
  answerRecords,
} from '../reads/read-query.js';
import type { JsonPairs } from '../reads/row-json.js';
import { type SelectionTree, selectionOf } from '../reads/selection.js';
import type { GraphQLContext } from '../resolvers/context.js';
import { fieldScopes } from '../schema/field-scopes.js';
import { renamedProperty } from './build-schema.js';

/**
 * A `/graphql` page or record read answered with PostgreSQL's JSON, never parsed and re-serialised
 * here; REST lists and exports use the same SQL with their own keys (a Rendering).
 *
 * Where an operation is one root page field (`orders`, `products`, …) or one record by id whose
 * selection holds only plain fields (no arguments, no directive, no fragment, no field scope; a
 * field resolver only where its value is declared, `@Projects`, src/reads/projection.ts) of
 * scalar types PostgreSQL can write exactly as their serialisers do, embeddables of such, and list
 * relations of such, the items' (or the record's) JSON is built in SQL with the response's keys
 * (aliases included) in the selection's order, and the answer is `{"data":{"<key>":<page or
 * record>}}` around PostgreSQL's text. The root field's own resolver still runs
 * (its `@Authorized` scope, input guard, argument validation, filters, page bounds, a missing
 * record's NOT_FOUND), so only the read's statement differs; its errors are reported as the
 * executor reports a root field's. Anything else takes graphql-jit's road (compiled-execution.ts).
 */

/** Fields of a page type the answer can hold: each a plain property of the page. */
const PAGE_FIELDS = new Set(['items', 'totalCount', 'page', 'size', 'pageCount']);

/** What is known of a document's operation: how to answer it from PostgreSQL, or that it cannot be. */
interface PassthroughShape {
  operation: OperationDefinitionNode;
  node: FieldNode;
  field: GraphQLField<unknown, unknown>;
  key: string;
  /** The page fields selected: response key → page field; null for a single record's root field. */
  pageKeys: [string, string][] | null;
  type: string;
  selection: SelectionTree;
  /** A page's item, or the record, as the text of the response's JSON object on alias `r0`. */
  itemSql: string;
}

// Per document: per operation name (the response's own keys) or per rendering (an edge's keys).
const shapes = new WeakMap<DocumentNode, Map<string | Rendering, PassthroughShape | null>>();

class NotPlain extends Error {}
const refuse = (why: string): never => {
  throw new NotPlain(why);
};

/** The fields of a selection set, refusing fragments, directives, arguments and repeated keys. */
function plainFields(set: SelectionSetNode | undefined): FieldNode[] {
  const fields: FieldNode[] = [];
  const keys = new Set<string>();
  for (const selection of set?.selections ?? []) {
    if (selection.kind !== Kind.FIELD) refuse('fragment');
    const field = selection as FieldNode;
    if (field.directives?.length || field.arguments?.length) refuse('directive or argument');
    const key = field.alias?.value ?? field.name.value;
    if (keys.has(key) || field.name.value.startsWith('__')) refuse('repeated or meta field');
    keys.add(key);
    fields.push(field);
  }
  return fields;
}

const INT_COLUMN = /^(int|integer|int4|smallint|int2|serial)$/;
const FLOAT_COLUMN = /^(double precision|double|float8|real|float4)$/;
const TEXT_COLUMN = /^(text|varchar|character varying)(\(\d+\))?$/;

/** A scalar or enum column as its GraphQL serialiser writes it, or a refusal. */
function leafSql(
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
  switch (type.name) {
    case 'Int':
      return INT_COLUMN.test(columnType) ? column : refuse('Int column');
    case 'String':
      return TEXT_COLUMN.test(columnType) ? column : refuse('String column');
    case 'Float':
      // Both roads print a double as the shortest text that reads back as it (float8out, JSON.stringify).
      return FLOAT_COLUMN.test(columnType) ? column : refuse('Float column');
    case 'Boolean':
      return columnType === 'boolean' || columnType === 'bool' ? column : refuse('Boolean column');
    case 'Decimal':
      // Money travels as its exact text ("12.50"), as the row's JSON gives it to the serialiser.
      return columnType.startsWith('numeric') ? `${column}::text` : refuse('Decimal column');
    case 'Timestamp':
      // Unix seconds, floored as the serialiser floors milliseconds; only zoned columns (a zoneless
      // one would be read in the process's time zone).
      return /timestamptz|with time zone/.test(columnType)
        ? `floor(extract(epoch from ${column}))::bigint`
        : refuse('Timestamp column');
    case 'JSON':
      // jsonb's text: the same value as JSON.stringify of the parsed column (key order included, as
      // the driver parses that text), spaced and with numbers as written (1.50), and on one line.
      return columnType === 'jsonb' ? column : refuse('JSON column');
    default:
      return refuse(`scalar ${type.name}`);
  }
}

/**
 * A key of a rendered object: the response key, the field of the node it comes from (none: an
 * object of the node's own fields, `sub`), how a leaf is shown, and the keys of a nested object.
 */
export interface RenderedKey {
  key: string;
  field?: string;
  /**
   * A leaf shown otherwise than GraphQL's serialiser shows it: an enum as its integer value
   * (`code`), a Decimal as a JSON number (`number`) or as whole units rounded half away from zero
   * (`wholeUnits`), a null Timestamp as 0 (`zeroForNull`).
   */
  shown?: 'code' | 'number' | 'wholeUnits' | 'zeroForNull';
  sub?: Rendering;
  /**
   * Two keys of `sub` of which each object shows one: the first when its value is not null, else
   * the second (a thumbnail's colour or image).
   */
  either?: readonly [string, string];
}

/**
 * The keys of a record as an edge shows them (the REST layer's, derived from its field maps):
 * PostgreSQL writes the record's JSON with them where every key is a plain field or a grouping.
 */
export type Rendering = readonly RenderedKey[];

type Shown = NonNullable<RenderedKey['shown']>;

/** A selection set's fields as a rendering with the response's keys (aliases included). */
function selectionRendering(set: SelectionSetNode | undefined): Rendering {
  return plainFields(set).map((node) => ({
    key: node.alias?.value ?? node.name.value,
    field: node.name.value,
    ...(node.selectionSet ? { sub: selectionRendering(node.selectionSet) } : {}),
  }));
}

/** A leaf as `shown` asks, from its SQL as GraphQL's serialiser writes it (`sql`) or its column. */
function shownSql(shown: Shown | undefined, type: GraphQLNamedType, sql: string, column: string): string {
  switch (shown) {
    case undefined:
      return sql;
    case 'code':
      // The enum's values are its codes, and the column holds the values.
      return isEnumType(type) && type.getValues().every(({ value }) => Number.isInteger(value))
        ? column
        : refuse('code of a non-integer enum');
    case 'number':
      // float8 prints the shortest text that reads back as the same double, as JSON.stringify does.
      return type.name === 'Decimal' ? `${column}::float8` : refuse('number of a non-Decimal');
    case 'wholeUnits':
      // numeric's round() rounds half away from zero, as src/rest's roundedUnits does.
      return type.name === 'Decimal' ? `round(${column})::bigint` : refuse('units of a non-Decimal');
    case 'zeroForNull':
      return `coalesce(${sql}, 0)`;
  }
}

/** A list of Int or String a computed JSON relation gives as GraphQL shows it (`Product.collectionIds`). */
function isScalarList(type: GraphQLField<unknown, unknown>['type']): boolean {
  const nullable = getNullableType(type);
  const named = getNamedType(type);
  return (
    isListType(nullable) && !isListType(getNullableType(nullable.ofType)) && ['Int', 'String'].includes(named.name)
  );
}

/** An item of `plan`'s entity (alias `alias`) as the JSON object `rendering` shows of `type`. */
function renderedObjectSql(
  schema: GraphQLSchema,
  type: GraphQLObjectType,
  plan: Plan,
  rendering: Rendering,
  alias: string,
  depth: number,
  either?: RenderedKey['either'],
): string {
  const pairs: JsonPairs = rendering.map(({ key, field: name, shown, sub, either: subEither }): [string, string] => {
    if (name === undefined) return [key, renderedObjectSql(schema, type, plan, sub ?? [], alias, depth)];
    const def = type.getFields()[name];
    if (!def || def.args.length || fieldScopes(schema, type, name)?.length) return refuse('not a plain field');
    if (subEither && (def.resolve || plan.relations.get(name)?.kind !== 'many')) return refuse('either of a non-list');
    const renamed = renamedProperty(def);
    if (renamed !== undefined) {
      // A column served under another name (`ProductVariant.variant`): a leaf of its property.
      const named = getNamedType(def.type);
      if (sub || subEither || !(isScalarType(named) || isEnumType(named))) return refuse('renamed object');
      const list = isListType(getNullableType(def.type));
      return [key, jsonValue(pathSql(plan, renamed, named, list, alias, depth, shown), def.type, shown)];
    }
    if (def.resolve) {
      // A field resolver is answered here only when its value is declared (@Projects).
      const projection = projectionOf(plan.meta, name) ?? refuse('field resolver');
      const value = projectedSql(schema, def.type, projection, { shown, sub }, plan, alias, depth);
      return [key, jsonValue(value, def.type, shown)];
    }
    const nullable = getNullableType(def.type);
    const named = getNamedType(def.type);
    const relation = plan.relations.get(name);
    if (relation?.kind === 'json' && !sub && !shown && isScalarList(def.type)) {
      // Hand-written SQL: whatever aggregate it uses, its JSON stays on one line (json_agg puts a
      // newline between composite elements; a JSON string escapes its own), for an export's lines.
      return [key, `coalesce(replace((${relation.sql(alias)})::text, chr(10), ''), 'null')`];
    }
    if (isScalarType(named) || isEnumType(named)) {
      if (sub) refuse('selection on a leaf');
      // pathSql refuses what is not a plain column or reference, however it is shown.
      return [key, jsonValue(pathSql(plan, name, named, isListType(nullable), alias, depth, shown), def.type, shown)];
    }
    if (isObjectType(named) && !isListType(nullable) && !relation) {
      return [key, embeddedSql(plan, name, named, sub ?? [], alias)];
    }
    if (!isObjectType(named) || !isListType(nullable) || relation?.kind !== 'many') {
      return refuse('not a list relation');
    }
    if (relation.plan.meta.className !== named.name || isListType(getNullableType(nullable.ofType))) {
      refuse('relation type');
    }
    const child = `t${depth}`;
    const inner = renderedObjectSql(schema, named, relation.plan, sub ?? [], child, depth + 1, subEither);
    return [key, jsonArray(inner, relation.orderBy(child), relation.from(child, alias))];
  });
  return either ? eitherObject(pairs, either) : jsonTextObject(pairs);
}

/** `pairs` as an object holding only `first` when its value is not null, else only `second`. */
function eitherObject(pairs: JsonPairs, [first, second]: readonly [string, string]): string {
  const value = pairs.find(([key]) => key === first)?.[1] ?? refuse('either key');
  if (!pairs.some(([key]) => key === second)) refuse('either key');
  const without = (key: string) => jsonTextObject(pairs.filter(([other]) => other !== key));
  // The value is JSON text: null is the text `null` (a string "null" would be quoted).
  return `(case when ${value} <> 'null' then ${without(second)} else ${without(first)} end)`;
}

/**
 * An embeddable of the row on `alias` (stored as columns of the row, see row-json.ts) as the JSON
 * object `rendering` shows of its GraphQL type: each key a column of the embeddable.
 */
function embeddedSql(
  plan: Plan,
  property: string,
  type: GraphQLObjectType,
  rendering: Rendering,
  alias: string,
): string {
  const prop = plan.meta.properties[property as never] as EntityProperty | undefined;
  // A list of embeddables or one stored as a JSON column (object mode) is not a set of columns.
  if (prop?.kind !== 'embedded' || prop.array || prop.object) return refuse('not an embeddable');
  const pairs: JsonPairs = rendering.map(({ key, field: name, shown, sub }): [string, string] => {
    if (name === undefined) return [key, embeddedSql(plan, property, type, sub ?? [], alias)];
    const def = type.getFields()[name];
    const inner = plan.meta.props.find((p) => p.embedded?.[0] === property && p.embedded[1] === name);
    if (!def || def.resolve || def.args.length || sub || !inner) return refuse('embeddable field');
    const named = getNamedType(def.type);
    const column = inner.fieldNames?.length === 1 ? `${alias}.${quote(inner.fieldNames[0])}` : '';
    const list = isListType(getNullableType(def.type));
    return [key, jsonValue(shownSql(shown, named, leafSql(inner, named, list, column, true), column), def.type, shown)];
  });
  return jsonTextObject(pairs);
}

const TEXT_PART = /^(int|integer|int4|smallint|int2|bigint|int8|serial|text|varchar|character varying)(\(\d+\))?$/;

/**
 * A part of a `{ concat }` projection as text, as projectRow turns its value into text (a number
 * as its digits, a text as is; null is nothing, as `concat` ignores it).
 */
function textPartSql(plan: Plan, part: Projection, alias: string, depth: number): string {
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
function pathSql(
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
const zeroless = (shown: Shown | undefined) => (shown === 'zeroForNull' ? undefined : shown);
/** `sql`, with 0 for null when `shown` asks. */
const shownNull = (shown: Shown | undefined, sql: string) => (shown === 'zeroForNull' ? `coalesce(${sql}, 0)` : sql);

/** A constant of a projection as SQL of the GraphQL type it is served as. */
function constantSql(value: string | number | boolean, type: GraphQLNamedType): string {
  if (type.name === 'String' && typeof value === 'string') return literal(value);
  if (type.name === 'Int' && Number.isSafeInteger(value)) return String(value);
  if (type.name === 'Boolean' && typeof value === 'boolean') return String(value);
  return refuse('constant');
}

/** What is asked of a field resolver's value: how a leaf is shown, or an object's keys. */
interface Wanted {
  shown?: Shown;
  sub?: Rendering;
}

/** A field resolver's declared value (projection.ts) as `wanted` shows it, as SQL on the row `alias`. */
function projectedSql(
  schema: GraphQLSchema,
  fieldType: GraphQLOutputType,
  projection: Projection,
  wanted: Wanted,
  plan: Plan,
  alias: string,
  depth: number,
): string {
  const { shown, sub } = wanted;
  const nullable = getNullableType(fieldType);
  const named = getNamedType(fieldType);
  const list = isListType(nullable);
  if (isScalarType(named) || isEnumType(named)) {
    if (sub) refuse('selection on a leaf');
    if (typeof projection === 'string') return pathSql(plan, projection, named, list, alias, depth, shown);
    if (list) return refuse('list of values');
    if (isChoice(projection)) {
      const choices = projection.map((choice) =>
        projectedSql(schema, fieldType, choice, { shown: zeroless(shown) }, plan, alias, depth),
      );
      return shownNull(shown, `coalesce(${choices.join(', ')})`);
    }
    if ('constant' in projection)
      return zeroless(shown) ? refuse('constant shown') : constantSql(projection.constant, named);
    if ('concat' in projection) {
      const parts = projection.concat.map((part) => textPartSql(plan, part, alias, depth));
      return named.name === 'String' && !shown ? `concat(${parts.join(', ')})` : refuse('concat shown');
    }
    return refuse('fields on a leaf');
  }
  if (isObjectType(named) && !list && typeof projection === 'string' && !shown) {
    return embeddedSql(plan, projection, named, sub ?? [], alias);
  }
  if (shown || !isObjectType(named) || typeof projection === 'string' || isChoice(projection)) {
    return refuse('projected object');
  }
  if ('one' in projection) {
    // The related row as an object of the selection's keys; no row is null, as the subquery gives.
    const relation = plan.relations.get(projection.one);
    if (list || relation?.kind !== 'one' || relation.plan.meta.className !== named.name) return refuse('one');
    const child = `t${depth}`;
    const object = renderedObjectSql(schema, named, relation.plan, sub ?? [], child, depth + 1);
    return `(select ${object} from ${relation.from(child, alias)})`;
  }
  if (!('fields' in projection)) return refuse('projected object');
  const { fields } = projection;
  const objectOf = (keys: Rendering, rowPlan: Plan, rowAlias: string, rowDepth: number): string => {
    const pairs: JsonPairs = keys.map(({ key, field: name, ...inner }): [string, string] => {
      if (name === undefined) return [key, objectOf(inner.sub ?? [], rowPlan, rowAlias, rowDepth)];
      const def = named.getFields()[name];
      const value = fields[name];
      if (!def || def.resolve || def.args.length || !value || fieldScopes(schema, named, name)?.length) {
        return refuse('projected field');
      }
      const sql = projectedSql(schema, def.type, value, inner, rowPlan, rowAlias, rowDepth);
      return [key, jsonValue(sql, def.type, inner.shown)];
    });
    return jsonTextObject(pairs);
  };
  if (!('each' in projection))
    return list ? refuse('list') : joinedObject(plan, fields, sub ?? [], alias, depth, objectOf);
  const relation = plan.relations.get(projection.each);
  if (!list || isListType(getNullableType(nullable.ofType)) || relation?.kind !== 'many') return refuse('each');
  const child = `t${depth}`;
  const object = objectOf(sub ?? [], relation.plan, child, depth + 1);
  return jsonArray(object, relation.orderBy(child), relation.from(child, alias));
}

/** The GraphQL fields a rendering asks for, its groupings' included. */
const fieldsAsked = (keys: Rendering): string[] =>
  keys.flatMap(({ field, sub }) => (field === undefined ? fieldsAsked(sub ?? []) : [field]));

/**
 * A projected object on the row `alias`, where several of its values read the same single
 * relation (`Order.customer`: the customer's e-mail and names): that row is joined once for the
 * object (a lateral left join; no row gives nulls, as the subqueries do) instead of a subquery per
 * value, and `build` reads its columns in place (joinedRows).
 */
function joinedObject(
  plan: Plan,
  fields: Readonly<Record<string, Projection>>,
  keys: Rendering,
  alias: string,
  depth: number,
  build: (keys: Rendering, rowPlan: Plan, rowAlias: string, rowDepth: number) => string,
): string {
  const uses = new Map<string, number>();
  for (const name of fieldsAsked(keys)) {
    for (const path of fields[name] === undefined ? [] : pathsOf(fields[name])) {
      const [head, property] = path.split('.');
      if (property !== undefined && plan.relations.get(head)?.kind === 'one') uses.set(head, (uses.get(head) ?? 0) + 1);
    }
  }
  const shared = [...uses].filter(([, count]) => count > 1).map(([head]) => head);
  if (!shared.length) return build(keys, plan, alias, depth);
  const relations = new Map(plan.relations);
  const joins = shared.map((head, i) => {
    const relation = plan.relations.get(head) as Extract<RelationPlan, { kind: 'one' }>;
    const joined = `j${depth}_${i}`;
    const onJoined: RelationPlan = { ...relation, from: (child) => `(select ${joined}.*) ${child}` };
    joinedRows.set(onJoined, joined);
    relations.set(head, onJoined);
    return `left join lateral (select * from ${relation.from(joined, alias)}) ${joined} on true`;
  });
  return `(select ${build(keys, { ...plan, relations }, alias, depth)} from (select) j ${joins.join(' ')})`;
}

/** Relations joined once for an object (joinedObject), by the joined row's alias: values read its columns. */
const joinedRows = new WeakMap<RelationPlan, string>();

// Array.isArray does not narrow a readonly array type.
const isChoice = (projection: Projection): projection is readonly Projection[] => Array.isArray(projection);

const quote = (identifier: string) => `"${identifier.replace(/"/g, '""')}"`;

/**
 * A JSON object of `pairs` (each value JSON text), its keys in their order, as text joined by
 * `||`. This takes less of PostgreSQL's time than `to_json` of a one-row subselect or
 * `json_build_object`, which both look up each value's type on every row (bench/analysis.md, "JSON
 * written as text"): each value is turned into JSON text by its GraphQL type, known here (jsonValue).
 */
function jsonTextObject(pairs: JsonPairs): string {
  if (!pairs.length) return `'{}'`;
  const parts = pairs.map(([key, sql], i) => `${literal(`${i ? ',' : '{'}${JSON.stringify(key)}:`)} || ${sql}`);
  return `(${parts.join(' || ')} || '}')`;
}

/** A JSON array of `element` (JSON text) over the rows of `from`, in `orderBy`; no row is `[]`. */
const jsonArray = (element: string, orderBy: string, from: string) =>
  `coalesce((select '[' || string_agg(${element}, ',' order by ${orderBy}) || ']' from ${from}), '[]')`;

/** A text as an SQL literal. */
const literal = (text: string) => `'${text.replace(/'/g, "''")}'`;

/**
 * A value of GraphQL type `type` (`sql`: a leaf as leafSql and shownSql give it, or an object or
 * list already JSON text) as its JSON text, null as `null`.
 */
function jsonValue(sql: string, type: GraphQLOutputType, shown: Shown | undefined): string {
  const named = getNamedType(type);
  if (isObjectType(named)) return `coalesce(${sql}, 'null')`;
  // A list of scalars (a text array column): PostgreSQL's own JSON of the array.
  if (isListType(getNullableType(type))) return `coalesce(to_json(${sql})::text, 'null')`;
  // Shown as a number (an enum's code, a Decimal as number or whole units, a Timestamp's 0).
  if (shown) return `coalesce((${sql})::text, 'null')`;
  // An enum's names are GraphQL names and a Decimal's text is digits: nothing to escape.
  if (isEnumType(named) || named.name === 'Decimal') return `coalesce('"' || ${sql} || '"', 'null')`;
  switch (named.name) {
    case 'Int':
    case 'Boolean':
    case 'Timestamp':
    case 'JSON':
      // Whole numbers, true/false and jsonb print as their JSON.
      return `coalesce((${sql})::text, 'null')`;
    default:
      // Strings (escaped) and doubles (non-finite ones quoted) as PostgreSQL writes their JSON.
      return `coalesce(to_json(${sql})::text, 'null')`;
  }
}

/** An operation of a document: the schema, the entities' metadata, the document, the operation's name. */
type Operation = [GraphQLSchema, MetadataStorage, DocumentNode, string | null | undefined];

/** How PostgreSQL answers the operation (with `rendering`'s keys for an edge), or a NotPlain refusal. */
function passthroughShapeOf(
  [schema, metadata, document, operationName]: Operation,
  rendering?: Rendering,
): PassthroughShape {
  const operation = getOperationAST(document, operationName);
  if (operation?.operation !== 'query' || operation.directives?.length) return refuse('not a query');
  if (document.definitions.some((d) => d.kind === Kind.FRAGMENT_DEFINITION)) refuse('fragments');
  const [node, ...more] = operation.selectionSet.selections;
  if (more.length || node.kind !== Kind.FIELD || node.directives?.length) return refuse('not one root field');
  const query = schema.getQueryType()!;
  const field = query.getFields()[node.name.value];
  const rootType = field && getNullableType(field.type);
  if (!field?.resolve || !isObjectType(rootType)) return refuse('not an object');
  const key = node.alias?.value ?? node.name.value;
  const selection = selectionOf({ fieldNodes: [node], fragments: {}, variableValues: {} });
  if (metadata.getByClassName(rootType.name, false)) {
    // A single record (`order(id:)`): its own object, as a page's item is (for /graphql only).
    if (rendering) refuse('a record for an edge');
    const plan = planFor(metadata, rootType.name, selection);
    const itemSql = renderedObjectSql(schema, rootType, plan, selectionRendering(node.selectionSet), 'r0', 1);
    return { operation, node, field, key, pageKeys: null, type: rootType.name, selection, itemSql };
  }
  const pageType = rootType;
  const pageKeys: [string, string][] = [];
  let items: FieldNode | undefined;
  for (const child of plainFields(node.selectionSet)) {
    const name = child.name.value;
    const def = pageType.getFields()[name];
    if (!PAGE_FIELDS.has(name) || !def || def.resolve || fieldScopes(schema, pageType, name)?.length) {
      refuse('page field');
    }
    if (name === 'items') items = child;
    pageKeys.push([child.alias?.value ?? name, name]);
  }
  const itemType = items && getNamedType(pageType.getFields().items.type);
  if (!items || !isObjectType(itemType) || !metadata.getByClassName(itemType.name, false)) return refuse('no items');
  const type = itemType.name;
  const plan = planFor(metadata, type, selection.get('items')!);
  const keys = rendering ?? selectionRendering(items.selectionSet);
  const itemSql = renderedObjectSql(schema, itemType, plan, keys, 'r0', 1);
  return { operation, node, field, key, pageKeys, type, selection, itemSql };
}

function cachedShape(operation: Operation, rendering?: Rendering) {
  const document = operation[2];
  let byName = shapes.get(document);
  if (!byName) shapes.set(document, (byName = new Map()));
  const name = rendering ?? operation[3] ?? '';
  if (!byName.has(name)) {
    let shape: PassthroughShape | null = null;
    try {
      shape = passthroughShapeOf(operation, rendering);
    } catch (error) {
      if (!(error instanceof NotPlain)) throw error;
    }
    byName.set(name, shape);
  }
  return { shape: byName.get(name)!, forget: () => byName.set(name, null) };
}

/** The answer of one `/graphql` request written by PostgreSQL, spliced into Apollo's body (see answerBodies). */
interface Holder {
  text?: string;
}

const scope = new AsyncLocalStorage<Holder>();
// What stands in the data for the page until the body is written; no client value reaches the body
// before the splice (the data holds nothing else), so it cannot be forged.
const PLACEHOLDER = `__answer_${randomUUID().replace(/-/g, '')}__`;
const placeholder = { toJSON: () => PLACEHOLDER };

/**
 * Runs Apollo's Koa middleware with a place for a PostgreSQL answer, and puts that answer into the
 * body Apollo wrote (which holds the placeholder where the root field's value goes).
 */
export function answerBodies(graphql: Middleware): Middleware {
  return async (ctx, next) => {
    const { write } = await withAnswerText(() => graphql(ctx, next));
    if (typeof ctx.body === 'string') ctx.body = write(ctx.body);
  };
}

/**
 * Runs `run` with a place for a PostgreSQL answer; `write` puts that answer into a body written with
 * the placeholder where the root field's value goes (src/graphql/direct-queries.ts writes its own).
 */
export async function withAnswerText<T>(run: () => Promise<T>): Promise<{ result: T; write(json: string): string }> {
  const holder: Holder = {};
  const result = await scope.run(holder, run);
  const text = holder.text;
  return { result, write: (json) => (text === undefined ? json : json.replace(`"${PLACEHOLDER}"`, () => text)) };
}

/** The root field's value when it ran without an error (see runRootField). */
interface Ran {
  value: unknown;
}

/**
 * Runs the shape's root field (its resolver: scope, guard, arguments, filters, page bounds) with
 * `request` for its readPage or readRecord: undefined when the variables or arguments do not
 * coerce (nothing ran: the normal way answers), else the field's error as compiled execution
 * reports it, or the value the resolver returned.
 */
async function runRootField(
  schema: GraphQLSchema,
  shape: PassthroughShape,
  context: GraphQLContext,
  given: Record<string, unknown> | undefined,
  request: AnswerPage & AnswerRecord,
): Promise<ExecutionResult | Ran | undefined> {
  const variables = getVariableValues(schema, shape.operation.variableDefinitions ?? [], given ?? {});
  if (variables.errors) return undefined;
  const query = schema.getQueryType()!;
  const info: GraphQLResolveInfo = {
    fieldName: shape.field.name,
    fieldNodes: [shape.node],
    returnType: shape.field.type,
    parentType: query,
    path: { prev: undefined, key: shape.key, typename: query.name },
    schema,
    fragments: {},
    rootValue: undefined,
    operation: shape.operation,
    variableValues: variables.coerced,
  };
  let args: Record<string, unknown>;
  try {
    args = getArgumentValues(shape.field, shape.node, variables.coerced);
  } catch {
    return undefined; // nothing ran yet: the normal way answers it
  }
  const requests = shape.pageKeys ? answerPages : answerRecords;
  requests.set(context.em, request);
  try {
    return { value: await shape.field.resolve!(undefined, args, context, info) };
  } catch (error) {
    // The root field's error as compiled execution reports it (compiled-execution.ts: its path, the
    // resolver's error, no locations; the field null, or no data when it is non-null), without
    // running the field again (a statement that timed out, a refused scope, a missing record).
    const thrown = error instanceof Error ? error : new Error(String(error));
    const reported = new GraphQLError(thrown.message, { path: [shape.key], originalError: thrown, extensions: {} });
    return { data: isNonNullType(shape.field.type) ? null : { [shape.key]: null }, errors: [reported] };
  } finally {
    requests.delete(context.em);
  }
}

const requestOf = (shape: PassthroughShape, lines = false, check?: Companion): AnswerPage & AnswerRecord => ({
  type: shape.type,
  selection: shape.selection,
  itemSql: shape.itemSql,
  ...(lines ? { lines } : {}),
  ...(check ? { check } : {}),
});

/**
 * The result of a plain page or record operation with the page or record as PostgreSQL's text
 * (left for answerBodies), or undefined: the caller then executes the operation as always. `check`
 * rides on the read's statement (the request's token check, src/auth/carried-token-check.ts).
 */
export async function answerFromPostgres(
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName: string | null | undefined,
  context: GraphQLContext,
  given: Record<string, unknown> | undefined,
  check?: Companion,
): Promise<ExecutionResult | undefined> {
  const holder = scope.getStore();
  if (!holder) return undefined;
  const { shape, forget } = cachedShape([schema, context.em.getMetadata(), document, operationName]);
  if (!shape) return undefined;
  const request = requestOf(shape, false, check);
  const ran = await runRootField(schema, shape, context, given, request);
  if (!ran || !('value' in ran)) return ran;
  if (!shape.pageKeys) {
    // The resolver must hand back the very row readRecord answered (nothing made of it), else
    // this document always runs the normal way.
    if (request.record === undefined || ran.value !== request.record.row) {
      forget();
      return undefined;
    }
    holder.text = request.record.text;
    return { data: { [shape.key]: placeholder } };
  }
  const page = request.answer;
  if (!page) {
    // The root field did not read its page through readPage: this document always runs the normal way.
    forget();
    return undefined;
  }
  const values: Record<string, string> = {
    items: page.items,
    totalCount: String(page.totalCount),
    page: String(page.page),
    size: String(page.size),
    pageCount: String(page.pageCount),
  };
  holder.text = `{${shape.pageKeys.map(([key, name]) => `"${key}":${values[name]}`).join(',')}}`;
  return { data: { [shape.key]: placeholder } };
}

/** A page's items as the JSON array PostgreSQL wrote (see pageFromPostgres), and its total. */
export interface RenderedPage {
  items: string;
  totalCount: number;
}

/**
 * The page of a page operation with its items written by PostgreSQL with `rendering`'s keys (an
 * edge's shape of the records), or the root field's errors; undefined when the rendering asks for
 * something only execution gives: the caller then runs the operation as always.
 */
export async function pageFromPostgres(
  schema: GraphQLSchema,
  document: DocumentNode,
  context: GraphQLContext,
  given: Record<string, unknown> | undefined,
  rendering: Rendering,
): Promise<RenderedPage | ExecutionResult | undefined> {
  const { shape, forget } = cachedShape([schema, context.em.getMetadata(), document, undefined], rendering);
  if (!shape?.pageKeys) return undefined;
  const request = requestOf(shape);
  const ran = await runRootField(schema, shape, context, given, request);
  if (!ran || !('value' in ran)) return ran;
  if (!request.answer) {
    forget();
    return undefined;
  }
  return { items: request.answer.items, totalCount: request.answer.totalCount };
}

/**
 * The items of a page operation as lines PostgreSQL writes with `rendering`'s keys (an edge's
 * shape of the records), or the root field's errors; undefined when the rendering asks for
 * something only execution gives (a computed field, a conversion SQL does not know): the caller
 * then runs the operation as always. The operation's page must be sorted by id.
 */
export async function linesFromPostgres(
  schema: GraphQLSchema,
  document: DocumentNode,
  context: GraphQLContext,
  given: Record<string, unknown> | undefined,
  rendering: Rendering,
): Promise<AnswerLines | ExecutionResult | undefined> {
  const { shape, forget } = cachedShape([schema, context.em.getMetadata(), document, undefined], rendering);
  if (!shape?.pageKeys) return undefined;
  const request = requestOf(shape, true);
  const ran = await runRootField(schema, shape, context, given, request);
  if (!ran || !('value' in ran)) return ran;
  if (!request.answerLines) {
    forget();
    return undefined;
  }
  return request.answerLines;
}
