import {
  getOperationAST,
  GraphQLError,
  Kind,
  type DocumentNode,
  type FragmentDefinitionNode,
  type GraphQLSchema,
  type SelectionSetNode,
} from 'graphql';
import { getComplexity, type ComplexityEstimator } from 'graphql-query-complexity';
import { MAX_PAGE_SIZE } from '../schema/pagination.js';

/**
 * Depth and complexity limits of `/graphql` operations (decisions §4), checked after validation
 * and before execution, so a refused operation runs no resolver and no SQL.
 *
 * - depth: nesting of fields below the operation (a root field is 1); introspection fields
 *   (`__schema`, `__type`, …) do not count, so GraphiQL's schema query always passes.
 * - complexity: every field costs 1; a field with a `size` argument (every paginated list, nested
 *   ones such as `Collection.products` included) multiplies the complexity of its selection by
 *   `size` (its default 20 when omitted; clamped to 1..250, the range the argument accepts).
 *   Lists without paging (`variants`, `lineItems`, …) count their selection once: they are
 *   bounded per record and loaded in one batched statement per request.
 * - cost, what the operation spends from the token's rate-limit bucket:
 *   max(1, ceil(complexity / 1000)). 1000 is about a REST page of 20 records with every field and
 *   relation (a REST request costs 1 whatever it expands), so both edges charge alike for alike.
 *
 * The limits admit every REST list at its widest (all fields, every expand, 250 records; a page
 * of 250 fully expanded orders is about 27 000), which then costs at most 30 of the bucket.
 */
export const MAX_DEPTH = 10;
export const MAX_COMPLEXITY = 30_000;
export const COMPLEXITY_PER_REQUEST = 1000;
/** Field nodes visited, fragments expanded: stops fragment fan-out before it costs CPU. */
const MAX_QUERY_NODES = 10_000;

export const QUERY_TOO_DEEP = 'QUERY_TOO_DEEP';
export const QUERY_TOO_COMPLEX = 'QUERY_TOO_COMPLEX';

export interface OperationMeasure {
  depth: number;
  complexity: number;
  cost: number;
}

/** Refused before execution: HTTP 400 with the limit's code. */
export class QueryLimitError extends GraphQLError {
  constructor(code: typeof QUERY_TOO_DEEP | typeof QUERY_TOO_COMPLEX, message: string) {
    super(message, { extensions: { code, http: { status: 400 } } });
  }
}

const pagedEstimator: ComplexityEstimator = ({ args, childComplexity }) => {
  const size = typeof args.size === 'number' ? Math.min(Math.max(Math.trunc(args.size), 1), MAX_PAGE_SIZE) : 1;
  return 1 + size * childComplexity;
};

/** What an operation of this complexity spends from the token's bucket. */
export function costOf(complexity: number): number {
  return Math.max(1, Math.ceil(complexity / COMPLEXITY_PER_REQUEST));
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

/**
 * Measures a validated operation and refuses one over a limit (`QueryLimitError`). Variables
 * that do not coerce are left to execution to report (as it always has): such an operation
 * cannot run a resolver, so it is measured as cost 1.
 */
export function measureOperation(
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName: string | null | undefined,
  variables: Record<string, unknown> | undefined,
): OperationMeasure {
  const depth = depthOf(document, operationName);
  if (depth > MAX_DEPTH) {
    throw new QueryLimitError(QUERY_TOO_DEEP, `The operation nests fields ${depth} levels deep; at most ${MAX_DEPTH} are allowed`);
  }
  let complexity: number;
  try {
    complexity = getComplexity({
      schema,
      query: document,
      operationName: operationName ?? undefined,
      variables: variables ?? {},
      estimators: [pagedEstimator],
      maxQueryNodes: MAX_QUERY_NODES,
    });
  } catch (error) {
    if (error instanceof GraphQLError && /^Variable "\$/.test(error.message)) return { depth, complexity: 0, cost: 1 };
    if (error instanceof GraphQLError && /maximum allowed number of nodes/.test(error.message)) {
      throw new QueryLimitError(QUERY_TOO_COMPLEX, `The operation selects more than ${MAX_QUERY_NODES} fields (fragments expanded)`);
    }
    throw error;
  }
  if (complexity > MAX_COMPLEXITY) {
    throw new QueryLimitError(
      QUERY_TOO_COMPLEX,
      `The operation's complexity is ${complexity}; at most ${MAX_COMPLEXITY} is allowed (every field counts 1, a list's selection counts once per item of its size): ask for smaller pages or fewer fields`,
    );
  }
  return { depth, complexity, cost: costOf(complexity) };
}
