import type { MetadataStorage } from '@mikro-orm/core';
import {
  type DocumentNode,
  type FieldNode,
  type GraphQLSchema,
  getNamedType,
  getNullableType,
  getOperationAST,
  isObjectType,
  Kind,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from 'graphql';
import { planFor } from '../reads/read-plan.js';
import { type SelectionTree, selectionOf } from '../reads/selection.js';
import { fieldScopes } from '../schema/field-scopes.js';
import { entityNameOf } from './entity-name.js';
import { NotPlain, refuse } from './not-plain.js';
import { renderedObjectSql } from './object-sql.js';
import type { Rendering } from './rendering.js';

/**
 * Which operations PostgreSQL answers (answer-passthrough.ts): one root page field or one record by
 * id with a plain selection, and the SQL of its item; learnt once per document and operation name
 * (or rendering), refusals included.
 */

/** Fields of a page type the answer can hold: each a plain property of the page. */
const PAGE_FIELDS = new Set(['items', 'totalCount', 'page', 'size', 'pageCount']);

/** What is known of a document's operation: how to answer it from PostgreSQL, or that it cannot be. */
export interface PassthroughShape {
  /**
   * What execution runs (answer-passthrough.ts): the operation with its root field selecting only
   * `__typename`, so the executor runs the root field's resolver (scope, guard, arguments, filters,
   * page bounds) and nothing below it; its read writes the rest.
   */
  document: DocumentNode;
  /** The selection the root field's resolver sees in `document` (how its read knows it is the one answered). */
  asked: SelectionTree;
  /** The root field's response key. */
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

/**
 * The fields of a selection set, refusing fragments, directives, arguments and repeated keys or
 * fields. A field repeated under aliases is executed: PostgreSQL would write its value once per
 * alias before the answer's size could be measured (700 aliases of a product's 396 KB of
 * textareas took it past the statement timeout), where execution measures it as it goes
 * (compiled-execution.ts `boundedAnswer`).
 */
function plainFields(set: SelectionSetNode | undefined): FieldNode[] {
  const fields: FieldNode[] = [];
  const keys = new Set<string>();
  const names = new Set<string>();
  for (const selection of set?.selections ?? []) {
    if (selection.kind !== Kind.FIELD) refuse('fragment');
    const field = selection as FieldNode;
    if (field.directives?.length || field.arguments?.length) refuse('directive or argument');
    const key = field.alias?.value ?? field.name.value;
    if (keys.has(key) || names.has(field.name.value) || field.name.value.startsWith('__'))
      refuse('repeated or meta field');
    keys.add(key);
    names.add(field.name.value);
    fields.push(field);
  }
  return fields;
}

/** A selection set's fields as a rendering with the response's keys (aliases included). */
function selectionRendering(set: SelectionSetNode | undefined): Rendering {
  return plainFields(set).map((node) => ({
    key: node.alias?.value ?? node.name.value,
    field: node.name.value,
    ...(node.selectionSet ? { sub: selectionRendering(node.selectionSet) } : {}),
  }));
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
  const executed = { key, ...rootFieldOnly(operation, node) };
  const recordType = entityNameOf(rootType);
  if (metadata.getByClassName(recordType, false)) {
    // A single record (`order(id:)`): its own object, as a page's item is (for /graphql only).
    if (rendering) refuse('a record for an edge');
    const plan = planFor(metadata, recordType, selection);
    const itemSql = renderedObjectSql(schema, rootType, plan, selectionRendering(node.selectionSet), 'r0', 1);
    return { ...executed, pageKeys: null, type: recordType, selection, itemSql };
  }
  const pageType = rootType;
  // Only an offset page (a `…Page`: its items and their facts) is read by readPage; another object
  // of items (the event feed's, with its cursor) is read its own way, and executed whole at once
  // rather than run first for an answer it never gives.
  if (Object.keys(pageType.getFields()).some((name) => !PAGE_FIELDS.has(name))) refuse('not an offset page');
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
  if (!items || !isObjectType(itemType)) return refuse('no items');
  const type = entityNameOf(itemType);
  if (!metadata.getByClassName(type, false)) return refuse('no items');
  const plan = planFor(metadata, type, selection.get('items')!);
  const keys = rendering ?? selectionRendering(items.selectionSet);
  const itemSql = renderedObjectSql(schema, itemType, plan, keys, 'r0', 1);
  return { ...executed, pageKeys, type, selection, itemSql };
}

const TYPENAME: SelectionSetNode = {
  kind: Kind.SELECTION_SET,
  selections: [{ kind: Kind.FIELD, name: { kind: Kind.NAME, value: '__typename' } }],
};

/** The operation as execution runs it when PostgreSQL writes its root field's value (PassthroughShape.document). */
function rootFieldOnly(operation: OperationDefinitionNode, node: FieldNode) {
  const root: FieldNode = { ...node, selectionSet: TYPENAME };
  const document: DocumentNode = {
    kind: Kind.DOCUMENT,
    definitions: [{ ...operation, selectionSet: { ...operation.selectionSet, selections: [root] } }],
  };
  return { document, asked: selectionOf({ fieldNodes: [root], fragments: {}, variableValues: {} }) };
}

/**
 * The operation's shape, learnt on its first request (null: refused); `forget` turns it to null
 * when its root field turned out not to read through readPage or readRecord, so the document then
 * always takes the executed road.
 */
export function cachedShape(operation: Operation, rendering?: Rendering) {
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
