import {
  type FieldNode,
  type FragmentDefinitionNode,
  GraphQLIncludeDirective,
  type GraphQLResolveInfo,
  GraphQLSkipDirective,
  getDirectiveValues,
  Kind,
  type SelectionSetNode,
} from 'graphql';

/**
 * What a field's selection asks for below it: selected field name → its own selection (aliases of
 * one field merged). Arguments are not kept: the read plan only needs to know which relations to
 * aggregate; a field with arguments (e.g. `Collection.products(page:)`) reads them itself.
 */
export type SelectionTree = ReadonlyMap<string, SelectionTree>;

const EMPTY: SelectionTree = new Map();

type Fragments = Record<string, FragmentDefinitionNode>;

interface Walk {
  fragments: Fragments;
  variables: Record<string, unknown>;
  /** Set when @skip/@include made the tree depend on the variables. */
  variable: boolean;
}

function included(node: { directives?: readonly unknown[] }, walk: Walk): boolean {
  if (!node.directives?.length) return true;
  walk.variable = true;
  const variables = walk.variables;
  const skip = getDirectiveValues(GraphQLSkipDirective, node as FieldNode, variables);
  if (skip?.if === true) return false;
  const include = getDirectiveValues(GraphQLIncludeDirective, node as FieldNode, variables);
  return include?.if !== false;
}

function collect(set: SelectionSetNode | undefined, walk: Walk, into: Map<string, Map<string, unknown>>) {
  for (const selection of set?.selections ?? []) {
    if (!included(selection, walk)) continue;
    if (selection.kind === Kind.FIELD) {
      const name = selection.name.value;
      let child = into.get(name);
      if (!child) into.set(name, (child = new Map()));
      collect(selection.selectionSet, walk, child as Map<string, Map<string, unknown>>);
    } else if (selection.kind === Kind.INLINE_FRAGMENT) {
      collect(selection.selectionSet, walk, into);
    } else {
      collect(walk.fragments[selection.name.value]?.selectionSet, walk, into);
    }
  }
}

// A cached document's field nodes are the same objects on every request, so their tree is built
// once (unless @skip/@include make it depend on the variables).
const trees = new WeakMap<FieldNode, SelectionTree>();

/** The selection below the field being resolved. */
export function selectionOf(
  info: Pick<GraphQLResolveInfo, 'fieldNodes' | 'fragments' | 'variableValues'>,
): SelectionTree {
  const key = info.fieldNodes.length === 1 ? info.fieldNodes[0] : undefined;
  const cached = key && trees.get(key);
  if (cached) return cached;
  const tree = new Map<string, Map<string, unknown>>();
  const walk: Walk = { fragments: info.fragments, variables: info.variableValues, variable: false };
  for (const node of info.fieldNodes) collect(node.selectionSet, walk, tree);
  if (key && !walk.variable) trees.set(key, tree as SelectionTree);
  return tree as SelectionTree;
}

/** The selection below one selected field (empty when it is not selected). */
export function below(tree: SelectionTree, field: string): SelectionTree {
  return tree.get(field) ?? EMPTY;
}
