import type { EntityProperty } from '@mikro-orm/core';
import {
  type GraphQLField,
  type GraphQLObjectType,
  type GraphQLOutputType,
  type GraphQLSchema,
  getNamedType,
  getNullableType,
  isEnumType,
  isListType,
  isObjectType,
  isScalarType,
} from 'graphql';
import { type JsonPairs, joinedRows, jsonTextObject, type RowWriter, relationJson } from '../reads/json-writer.js';
import { isChoice, type Projection, pathsOf } from '../reads/projection.js';
import { columnSql, embeddedColumns, type Plan, projectionOf, type RelationPlan } from '../reads/read-plan.js';
import { fieldScopes } from '../schema/field-scopes.js';
import { renamedProperty } from './build-schema.js';
import { entityNameOf } from './entity-name.js';
import { constantSql, jsonValue, leafSql, pathSql, shownNull, shownSql, textPartSql, zeroless } from './leaf-sql.js';
import { refuse } from './not-plain.js';
import type { RenderedKey, Rendering, Shown } from './rendering.js';

/**
 * The objects of a record PostgreSQL writes as JSON (answer-passthrough.ts): an entity's row as the
 * object a rendering shows of its GraphQL type, with its embeddables, list relations and declared
 * values (src/reads/projection.ts) nested, each object written as text joined by `||`.
 */

/**
 * A computed JSON relation's value as GraphQL shows it: a list of Int or String
 * (`Product.collectionIds`), or a JSON object (`Order.metafieldValues`), which its scalar serialises as it is.
 */
function isJsonAsShown(type: GraphQLField<unknown, unknown>['type']): boolean {
  const nullable = getNullableType(type);
  const named = getNamedType(type);
  if (!isListType(nullable)) return named.name === 'JSONObject';
  return !isListType(getNullableType(nullable.ofType)) && ['Int', 'String'].includes(named.name);
}

/** A key a rendering asks of a field (a grouping's keys are its own object's, see renderedPairs). */
type FieldKey = RenderedKey & { field: string };

/**
 * The pairs of `rendering`'s keys on one row, each field's JSON text as `value` writes it; a
 * grouping (a key without a field) is an object of its own keys on the same row.
 */
const renderedPairs = (rendering: Rendering, value: (asked: FieldKey) => string): JsonPairs =>
  rendering.map((asked) => [
    asked.key,
    asked.field === undefined ? jsonTextObject(renderedPairs(asked.sub ?? [], value)) : value(asked as FieldKey),
  ]);

/** An item of `plan`'s entity (alias `alias`) as the JSON object `rendering` shows of `type`. */
export function renderedObjectSql(
  schema: GraphQLSchema,
  type: GraphQLObjectType,
  plan: Plan,
  rendering: Rendering,
  alias: string,
  depth: number,
  either?: RenderedKey['either'],
): string {
  const pairs = renderedPairs(rendering, ({ field: name, shown, sub, either: subEither }): string => {
    const def = type.getFields()[name];
    if (!def || def.args.length || fieldScopes(schema, type, name)?.length) return refuse('not a plain field');
    if (subEither && (def.resolve || plan.relations.get(name)?.kind !== 'many')) return refuse('either of a non-list');
    const renamed = renamedProperty(def);
    if (renamed !== undefined) {
      // A column served under another name (`ProductVariant.variant`): a leaf of its property.
      const named = getNamedType(def.type);
      if (sub || subEither || !(isScalarType(named) || isEnumType(named))) return refuse('renamed object');
      const list = isListType(getNullableType(def.type));
      return jsonValue(pathSql(plan, renamed, named, list, alias, depth, shown), def.type, shown);
    }
    if (def.resolve) {
      // A field resolver is answered here only when its value is declared (@Projects).
      const projection = projectionOf(plan.meta, name) ?? refuse('field resolver');
      return jsonValue(projectedSql(schema, def.type, projection, { shown, sub }, plan, alias, depth), def.type, shown);
    }
    const nullable = getNullableType(def.type);
    const named = getNamedType(def.type);
    const relation = plan.relations.get(name);
    if (relation?.kind === 'json' && !sub && !shown && isJsonAsShown(def.type)) {
      // Hand-written SQL, written as the row's own JSON of it is (json-writer.ts relationJson).
      return relationJson(relation, alias, depth, () => refuse('rows of a JSON value'));
    }
    if (isScalarType(named) || isEnumType(named)) {
      if (sub) refuse('selection on a leaf');
      // pathSql refuses what is not a plain column or reference, however it is shown.
      return jsonValue(pathSql(plan, name, named, isListType(nullable), alias, depth, shown), def.type, shown);
    }
    if (isObjectType(named) && !isListType(nullable) && !relation) {
      return embeddedSql(plan, name, named, sub ?? [], alias);
    }
    if (!isObjectType(named) || !isListType(nullable) || relation?.kind !== 'many') {
      return refuse('not a list relation');
    }
    if (relation.plan.meta.className !== entityNameOf(named) || isListType(getNullableType(nullable.ofType))) {
      refuse('relation type');
    }
    const item: RowWriter = (row, on, below) => renderedObjectSql(schema, named, row, sub ?? [], on, below, subEither);
    return relationJson(relation, alias, depth, item);
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
 * An embeddable of the row on `alias` (stored as columns of the row, see json-writer.ts) as the JSON
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
  const pairs = renderedPairs(rendering, ({ field: name, shown, sub }) => {
    const def = type.getFields()[name];
    const inner = embeddedColumns(plan.meta, property).find((p) => p.embedded![1] === name);
    if (!def || def.resolve || def.args.length || sub || !inner) return refuse('embeddable field');
    const named = getNamedType(def.type);
    const column = inner.fieldNames?.length === 1 ? columnSql(alias, inner) : '';
    const list = isListType(getNullableType(def.type));
    return jsonValue(shownSql(shown, named, leafSql(inner, named, list, column, true), column), def.type, shown);
  });
  return jsonTextObject(pairs);
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
    // The related row as an object of the selection's keys; no row is null.
    const relation = plan.relations.get(projection.one);
    if (list || relation?.kind !== 'one' || relation.plan.meta.className !== entityNameOf(named)) return refuse('one');
    return relationJson(relation, alias, depth, (row, on, below) =>
      renderedObjectSql(schema, named, row, sub ?? [], on, below),
    );
  }
  if (!('fields' in projection)) return refuse('projected object');
  const { fields } = projection;
  const objectOf = (keys: Rendering, rowPlan: Plan, rowAlias: string, rowDepth: number): string =>
    jsonTextObject(
      renderedPairs(keys, ({ field: name, ...inner }) => {
        const def = named.getFields()[name];
        const value = fields[name];
        if (!def || def.resolve || def.args.length || !value || fieldScopes(schema, named, name)?.length) {
          return refuse('projected field');
        }
        const sql = projectedSql(schema, def.type, value, inner, rowPlan, rowAlias, rowDepth);
        return jsonValue(sql, def.type, inner.shown);
      }),
    );
  if (!('each' in projection)) {
    if (list) return refuse('list');
    const object = joinedObject(plan, fields, sub ?? [], alias, depth, objectOf);
    return projection.when === undefined
      ? object
      : `(case when ${columnOf(plan, projection.when, alias)} is not null then ${object} end)`;
  }
  const relation = plan.relations.get(projection.each);
  if (!list || isListType(getNullableType(nullable.ofType)) || relation?.kind !== 'many') return refuse('each');
  return relationJson(relation, alias, depth, (row, on, below) => objectOf(sub ?? [], row, on, below));
}

/** A column of the row `alias` as SQL (a projection's `when`); anything else is refused. */
function columnOf(plan: Plan, property: string, alias: string): string {
  const prop = plan.meta.properties[property as never] as EntityProperty | undefined;
  return prop?.kind === 'scalar' && prop.fieldNames?.length === 1 ? columnSql(alias, prop) : refuse('when');
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
