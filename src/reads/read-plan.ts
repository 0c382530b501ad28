import type { EntityMetadata, EntityProperty, MetadataStorage } from '@mikro-orm/core';
import { getMetadataStorage } from 'type-graphql';
import { type ComputedRelation, declaredOn, type ReadPath } from './field-reads.js';
import type { Projection } from './projection.js';
import type { SelectionTree } from './selection.js';

/**
 * What one row of an entity carries for a selection: its columns, and its relations, each with the
 * plan of its own rows. Built from MikroORM's metadata (relations, `mappedBy`, join columns, pivot
 * tables, `orderBy`) and type-graphql's (which GraphQL field is which property, what each field
 * resolver `@Reads`, which relations are `@Computed`): nothing is listed twice.
 */
export interface Plan {
  meta: EntityMetadata;
  /** Properties on the row; null for every column. */
  columns: Set<string> | null;
  relations: Map<string, RelationPlan>;
}

/**
 * A relation as SQL: the rows of `plan` (aliased `child`) that `from` finds for the parent row
 * (aliased `parent`), aggregated in `orderBy`'s order (a list) or one row; or a JSON value.
 */
export type RelationPlan =
  | { kind: 'many'; plan: Plan; from: (child: string, parent: string) => string; orderBy: (child: string) => string }
  | { kind: 'one'; plan: Plan; from: (child: string, parent: string) => string }
  | { kind: 'json'; sql: (parent: string) => string };

/** The key a relation lands under on its parent's row: its name, or `$name` for a single row. */
export const landingKey = (name: string, relation: RelationPlan) => (relation.kind === 'one' ? `$${name}` : name);

/** An SQL identifier, double-quoted. */
export const quote = (identifier: string) => `"${identifier.replace(/"/g, '""')}"`;
/** The column of a property (of one column) on `alias`. */
export const columnSql = (alias: string, prop: EntityProperty) => `${alias}.${quote(prop.fieldNames[0])}`;
const primaryOf = (meta: EntityMetadata) => meta.getPrimaryProps()[0];
/** The primary key of `meta`: its property name, and its column on `alias`. */
export const primaryKey = (meta: EntityMetadata, alias: string) => ({
  property: primaryOf(meta).name,
  column: columnSql(alias, primaryOf(meta)),
});
/** The key of the entity a reference held on the row points to (the row's column is its id). */
export const referenceKey = (prop: EntityProperty | undefined) =>
  prop?.kind === 'm:1' || (prop?.kind === '1:1' && prop.owner) ? prop.targetMeta?.getPrimaryProps()[0] : undefined;
/** The columns of an embeddable property, stored in its entity's row (`embedded`: [property, field]). */
export const embeddedColumns = (meta: EntityMetadata, property: string) =>
  meta.props.filter((p) => p.embedded?.[0] === property);
export const tableOf = (meta: EntityMetadata) => quote(meta.tableName);
/** The column of an entity property on `alias`. */
export const columnOf = (meta: EntityMetadata, property: string, alias: string) =>
  columnSql(alias, meta.properties[property as never]);

interface TypeFields {
  /** GraphQL field → the entity property a `@Field` of the entity reads, and the field's type. */
  properties: Map<string, { property: string; type: unknown }>;
  /** GraphQL field → its resolver's `@Reads` (null when it declares none) and the type it returns. */
  resolvers: Map<string, { reads: ReadPath[] | null; type: unknown; projection?: Projection }>;
  computed: Map<string, ComputedRelation>;
}

const fieldsByClass = new WeakMap<Function, TypeFields>();

function fieldsOf(meta: EntityMetadata): TypeFields {
  let fields = fieldsByClass.get(meta.class);
  if (fields) return fields;
  const storage = getMetadataStorage();
  fields = { properties: new Map(), resolvers: new Map(), computed: new Map() };
  for (const resolver of storage.fieldResolvers) {
    if (resolver.getObjectType?.() !== meta.class) continue;
    const declared = declaredOn(resolver.target, resolver.methodName);
    fields.resolvers.set(resolver.schemaName, {
      reads: declared.reads ?? null,
      type: resolver.getType?.(),
      projection: declared.projection,
    });
    for (const { name, relation } of declared.computed ?? []) {
      fields.computed.set(name ?? resolver.schemaName, relation);
    }
  }
  for (const field of storage.fields) {
    if (field.target !== meta.class || fields.resolvers.has(field.schemaName)) continue;
    if (!meta.properties[field.name as never]) continue;
    fields.properties.set(field.schemaName, { property: field.name, type: field.getType() });
  }
  fieldsByClass.set(meta.class, fields);
  return fields;
}

/** What a field resolver of `meta`'s type `@Projects` (see projection.ts), if it declares it. */
export const projectionOf = (meta: EntityMetadata, field: string): Projection | undefined =>
  fieldsOf(meta).resolvers.get(field)?.projection;

/** Whether a resolver's field is a list or value computed under its own name (read as a property). */
export function isComputedRowProperty(resolverClass: Function, method: string, field: string): boolean {
  const computed = declaredOn(resolverClass, method).computed ?? [];
  return computed.some((c) => (c.name ?? field) === field && c.relation.kind !== 'one');
}

const emptyPlan = (meta: EntityMetadata): Plan => ({
  meta,
  columns: new Set([primaryOf(meta).name]),
  relations: new Map(),
});

function merge(into: Plan, from: Plan) {
  if (into.columns && from.columns) for (const property of from.columns) into.columns.add(property);
  else into.columns = null;
  for (const [name, relation] of from.relations) addRelationPlan(into, name, relation);
}

function addRelationPlan(plan: Plan, name: string, relation: RelationPlan) {
  const known = plan.relations.get(name);
  if (!known) plan.relations.set(name, relation);
  else if (known.kind !== 'json' && relation.kind !== 'json') merge(known.plan, relation.plan);
}

const isRelation = (prop: EntityProperty | undefined) =>
  prop !== undefined && prop.kind !== 'scalar' && prop.kind !== 'embedded';

/** `orderBy` of a relation's metadata as SQL on `alias` (the relation's own order, then the key). */
function orderSql(meta: EntityMetadata, orderBy: EntityProperty['orderBy'], alias: string): string {
  const terms = (Array.isArray(orderBy) ? orderBy : orderBy ? [orderBy] : []).flatMap((term) => Object.entries(term));
  const primary = primaryOf(meta);
  if (!terms.some(([property]) => property === primary.name)) terms.push([primary.name, 'asc']);
  return terms
    .map(([property, order]) => [columnSql(alias, meta.properties[property as never]), String(order).toLowerCase()])
    .map(([sql, direction]) => `${sql} ${direction}`)
    .join(', ');
}

/**
 * The SQL of an entity relation, found in its metadata. A list whose GraphQL field shows another
 * entity than the relation's (`Product.images`: links to `Image`, `[Image]`) goes through the
 * link's reference to that entity, in the links' order.
 */
function entityRelation(
  meta: EntityMetadata,
  prop: EntityProperty,
  tree: SelectionTree | null,
  shown: unknown,
): RelationPlan {
  const target = prop.targetMeta!;
  const parentKey = (parent: string) => columnSql(parent, primaryOf(meta));
  const targetKey = (child: string) => columnSql(child, primaryOf(target));
  switch (prop.kind) {
    case 'm:1':
    case '1:1': {
      // The owner holds the reference; the inverse side of a 1:1 is found by the owner's column.
      const back = prop.kind === '1:1' && !prop.owner ? target.properties[prop.mappedBy as never] : undefined;
      const where = (c: string, p: string) =>
        back ? `${columnSql(c, back)} = ${parentKey(p)}` : `${targetKey(c)} = ${columnSql(p, prop)}`;
      return {
        kind: 'one',
        plan: rowsPlan(target, tree),
        from: (c, p) => `${tableOf(target)} ${c} where ${where(c, p)}`,
      };
    }
    case '1:m': {
      const back = target.properties[prop.mappedBy as never];
      const through =
        shown && shown !== target.class
          ? target.props.find((p) => p.kind === 'm:1' && p.targetMeta?.class === shown)
          : undefined;
      if (!through) {
        return {
          kind: 'many',
          plan: rowsPlan(target, tree),
          from: (c, p) => `${tableOf(target)} ${c} where ${columnSql(c, back)} = ${parentKey(p)}`,
          orderBy: (c) => orderSql(target, prop.orderBy, c),
        };
      }
      const shownMeta = through.targetMeta!;
      const shownKey = (child: string) => columnSql(child, primaryOf(shownMeta));
      const link = (c: string) => `${tableOf(target)} ${c}_l join ${tableOf(shownMeta)} ${c}`;
      return {
        kind: 'many',
        plan: rowsPlan(shownMeta, tree),
        from: (c, p) =>
          `${link(c)} on ${shownKey(c)} = ${columnSql(`${c}_l`, through)}` +
          ` where ${columnSql(`${c}_l`, back)} = ${parentKey(p)}`,
        orderBy: (c) => orderSql(target, prop.orderBy, `${c}_l`),
      };
    }
    case 'm:n': {
      // The pivot table's columns, seen from this side (the owner's, swapped on the inverse side).
      const owner = prop.owner ? prop : target.properties[prop.mappedBy as never];
      const [mine, theirs] = prop.owner
        ? [owner.joinColumns, owner.inverseJoinColumns]
        : [owner.inverseJoinColumns, owner.joinColumns];
      const pivot = quote(owner.pivotTable);
      return {
        kind: 'many',
        plan: rowsPlan(target, tree),
        from: (c, p) =>
          `${pivot} ${c}_l join ${tableOf(target)} ${c} on ${targetKey(c)} = ${c}_l.${quote(theirs[0])}` +
          ` where ${c}_l.${quote(mine[0])} = ${parentKey(p)}`,
        orderBy: (c) => orderSql(target, prop.orderBy, c),
      };
    }
    default:
      throw new Error(`read plan: ${meta.className}.${prop.name} is not a relation`);
  }
}

/** The plan of a relation's rows: as `tree` selects, or every column (a relation a resolver reads whole). */
function rowsPlan(meta: EntityMetadata, tree: SelectionTree | null): Plan {
  if (tree) return planOf(meta, tree);
  const plan = emptyPlan(meta);
  plan.columns = null;
  return plan;
}

function computedRelation(relation: ComputedRelation, tree: SelectionTree | null): RelationPlan {
  if (relation.kind === 'json') return relation;
  const meta = metaOf(relation.entity());
  const from = (c: string, p: string) => `${tableOf(meta)} ${c} where ${relation.where(c, p)}`;
  return relation.kind === 'many'
    ? { kind: 'many', plan: rowsPlan(meta, tree), from, orderBy: relation.orderBy }
    : { kind: 'one', plan: rowsPlan(meta, tree), from };
}

// The entity registry of the plan being built (planning is synchronous: one at a time).
let registry: MetadataStorage | undefined;
const metaOf = (entity: Function) => registry!.get(entity);

/** Adds a relation to the plan, its rows as `tree` selects (null: every column). */
function addRelation(plan: Plan, name: string, tree: SelectionTree | null, shown: unknown) {
  const computed = fieldsOf(plan.meta).computed.get(name);
  const prop = plan.meta.properties[name as never] as EntityProperty | undefined;
  if (computed) addRelationPlan(plan, name, computedRelation(computed, tree));
  else if (isRelation(prop)) addRelationPlan(plan, name, entityRelation(plan.meta, prop!, tree, shown));
  else throw new Error(`read plan: ${plan.meta.className} has no relation ${name}`);
}

/** Adds what a `@Reads` path names (see ReadPath). */
function addPath(plan: Plan, path: ReadPath) {
  const [head, ...rest] = path.split('.');
  const prop = plan.meta.properties[head as never] as EntityProperty | undefined;
  const single = prop?.kind === 'm:1' || prop?.kind === '1:1';
  if (!fieldsOf(plan.meta).computed.has(head) && !prop) {
    throw new Error(`@Reads('${path}'): ${plan.meta.className} has no ${head}`);
  }
  if (prop && (!isRelation(prop) || (single && !rest.length))) {
    plan.columns?.add(head);
    return;
  }
  const whole = !rest.length || (rest.length === 1 && rest[0] === '*');
  addRelation(plan, head, whole ? null : new Map(), undefined);
  const relation = plan.relations.get(head)!;
  if (!whole && relation.kind !== 'json') addPath(relation.plan, rest.join('.'));
}

/**
 * The plan of a row of `meta` for a selection: for each selected field, the property an entity
 * `@Field` reads (a relation with the field's own selection), or what its resolver `@Reads`; a
 * resolver returning the rows of a relation named like its field (or a `@Computed` one) gets them
 * with the field's selection. A field nothing is known of reads every column.
 */
function planOf(meta: EntityMetadata, tree: SelectionTree): Plan {
  const plan = emptyPlan(meta);
  const fields = fieldsOf(meta);
  for (const [field, below] of tree) {
    if (field === '__typename') continue;
    const resolver = fields.resolvers.get(field);
    if (resolver) {
      if (resolver.reads) for (const path of resolver.reads) addPath(plan, path);
      else plan.columns = null;
      const prop = meta.properties[field as never] as EntityProperty | undefined;
      if (fields.computed.has(field)) addRelation(plan, field, below, resolver.type);
      else if (isRelation(prop) && prop!.targetMeta?.class === resolver.type) {
        addRelation(plan, field, below, resolver.type);
      }
      continue;
    }
    const declared = fields.properties.get(field);
    if (!declared) {
      plan.columns = null;
      continue;
    }
    const prop = meta.properties[declared.property as never] as EntityProperty | undefined;
    if (isRelation(prop)) addRelation(plan, declared.property, below, declared.type);
    else plan.columns?.add(declared.property);
  }
  return plan;
}

/** The plan of a row of the entity class named `type` for a selection (see planOf). */
export function planFor(metadata: MetadataStorage, type: string, tree: SelectionTree): Plan {
  registry = metadata;
  try {
    return planOf(metadata.getByClassName(type), tree);
  } finally {
    registry = undefined;
  }
}

/**
 * Plans every field resolver's field once, at start: a `@Reads` path naming a property its entity
 * does not have (a rename, a typo) stops the service there instead of failing the first request
 * that selects the field.
 */
export function checkDeclaredReads(metadata: MetadataStorage): void {
  registry = metadata;
  try {
    const storage = getMetadataStorage();
    for (const resolver of storage.fieldResolvers) {
      // The schema build links a field resolver to its type; before it, its class's @Resolver says.
      const type =
        resolver.getObjectType?.() ??
        storage.resolverClasses.find((c) => c.target === resolver.target)?.getObjectType?.();
      const meta = typeof type === 'function' ? metadata.find(type) : undefined;
      if (!meta || meta.embeddable) continue;
      const plan = emptyPlan(meta);
      for (const path of declaredOn(resolver.target, resolver.methodName).reads ?? []) addPath(plan, path);
    }
  } finally {
    registry = undefined;
  }
}
