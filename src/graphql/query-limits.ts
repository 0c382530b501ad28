import {
  type DocumentNode,
  type FragmentDefinitionNode,
  GraphQLError,
  getOperationAST,
  Kind,
  type SelectionSetNode,
} from 'graphql';

/**
 * Depth and complexity limits of `/graphql` operations (docs/decisions.md#graphql-limits-and-cost),
 * checked after validation and before execution, so a refused operation runs no resolver and no
 * SQL.
 *
 * - depth: nesting of fields below the operation (a root field is 1); introspection fields
 *   (`__schema`, `__type`, …) do not count, so GraphiQL's schema query always passes.
 * - complexity: every field costs 1 (introspection fields too); a field with a `size` argument (every
 *   paginated list, nested ones such as `Collection.products` included) multiplies the complexity
 *   of its selection by `size` (its default 20 when omitted; clamped to 1..250, the range the argument accepts).
 *   Lists without paging (`variants`, `lineItems`, …) count their selection once: they are
 *   bounded per record and loaded in one batched statement per request.
 * - cost, what the operation spends from the token's rate-limit bucket:
 *   max(root fields, ceil(complexity / 1000)). 1000 is about a REST page of 20 records with every field and
 *   relation (a REST request costs 1 whatever it expands), so both edges charge alike for alike.
 *
 * The limits admit every REST list at its widest (all fields, every expand, 250 records) and
 * GraphiQL's introspection query, which counts its lists by the schema's own sizes and so grows with
 * the schema: it outgrew the first limit of 50 000 with the metafields and bulk operations
 * (test/graphql-limits.test.ts sends it as GraphiQL does). The cost itself, with the per-root-field
 * minimum, is computed in src/graphql/operation-cost.ts.
 */
export const MAX_DEPTH = 10;
export const MAX_COMPLEXITY = 100_000;
export const COMPLEXITY_PER_REQUEST = 1000;

export const QUERY_TOO_DEEP = 'QUERY_TOO_DEEP';
export const QUERY_TOO_COMPLEX = 'QUERY_TOO_COMPLEX';

/** Refused before execution: HTTP 400 with the limit's code. */
export class QueryLimitError extends GraphQLError {
  constructor(code: string, message: string) {
    super(message, { extensions: { code, http: { status: 400 } } });
  }
}

/** How deep the operation's fields nest (fragments expanded, each measured once). */
export function depthOf(document: DocumentNode, operationName?: string | null): number {
  const operation = getOperationAST(document, operationName);
  if (!operation) return 0;
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const d of document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
  const fragmentDepth = new Map<string, number>();
  const depth = (set: SelectionSetNode | undefined, open: Set<string>): number => {
    let max = 0;
    for (const selection of set?.selections ?? []) {
      if (selection.kind === Kind.FIELD) {
        if (!selection.name.value.startsWith('__')) max = Math.max(max, 1 + depth(selection.selectionSet, open));
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        max = Math.max(max, depth(selection.selectionSet, open));
      } else {
        const name = selection.name.value;
        const fragment = fragments.get(name);
        if (!fragment || open.has(name)) continue; // unknown or cyclic: validation refuses both
        if (!fragmentDepth.has(name)) fragmentDepth.set(name, depth(fragment.selectionSet, new Set(open).add(name)));
        max = Math.max(max, fragmentDepth.get(name)!);
      }
    }
    return max;
  };
  return depth(operation.selectionSet, new Set());
}
