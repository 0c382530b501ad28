import {
  type ASTNode,
  type DocumentNode,
  type FragmentDefinitionNode,
  GraphQLError,
  type GraphQLSchema,
  getOperationAST,
  getVariableValues,
  isEnumType,
  isInputObjectType,
  isInterfaceType,
  isObjectType,
  Kind,
  OperationTypeNode,
  type SelectionSetNode,
  visit,
} from 'graphql';
import { type ComplexityEstimator, getComplexity } from 'graphql-query-complexity';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '../schema/pagination.js';
import {
  COMPLEXITY_PER_REQUEST,
  depthOf,
  MAX_COMPLEXITY,
  MAX_DEPTH,
  QUERY_TOO_COMPLEX,
  QUERY_TOO_DEEP,
  QueryLimitError,
} from './query-limits.js';

/**
 * The cost of a `/graphql` operation (docs/operations.md#graphql-depth-complexity-and-cost): a function of the
 * schema, the document and the variables only, so it can be computed wherever the operation is
 * admitted and charged. There is no way around it:
 *
 * - every field counts 1, introspection fields (`__schema`, `__type`, …) too; a list multiplies
 *   the complexity of its selection by how many items it can return: `size` for paged lists, and
 *   for introspection lists the schema's own average (types, fields per type, args per field…),
 *   so a thousand aliased `__schema` selections cost what they make the server do;
 * - each root field (aliases included, fragments expanded) costs at least one REST request, and so
 *   each mutation field: the charge is max(root fields, ceil(complexity / 1000));
 * - an operation has at most MAX_ROOT_FIELDS root fields (QUERY_TOO_COMPLEX);
 * - a document may hold at most MAX_MUTATION_FIELDS mutation fields (each is a write with its
 *   own transaction; batching thousands of them in one request is refused, TOO_MANY_MUTATIONS);
 * - depth and complexity limits as before (QUERY_TOO_DEEP, QUERY_TOO_COMPLEX).
 *
 * The charge is taken from the token's one bucket, the one REST requests spend.
 */
export const MAX_MUTATION_FIELDS = 10;
/**
 * Root fields one operation may have: what the complexity limit lets an operation cost at most
 * (100 requests). Each root field costs a request, and a charge is at most the token's bucket: 3,000
 * aliased `order(id:)` reads charged a bucket of 100 made 30 reads a request.
 */
export const MAX_ROOT_FIELDS = MAX_COMPLEXITY / COMPLEXITY_PER_REQUEST;
/** Field nodes visited, fragments expanded: stops fragment fan-out before it costs CPU. */
const MAX_QUERY_NODES = 10_000;
export const TOO_MANY_MUTATIONS = 'TOO_MANY_MUTATIONS';

export interface OperationCost {
  depth: number;
  complexity: number;
  /** Root fields of the operation (aliases counted, fragments expanded). */
  rootFields: number;
  /** What the operation spends from the token's bucket. */
  cost: number;
}

/** How many items each introspection list returns on average, from the schema itself. */
function introspectionSizes(schema: GraphQLSchema): Record<string, number> {
  const types = Object.values(schema.getTypeMap());
  let fields = 0;
  let args = 0;
  let inputFields = 0;
  let enumValues = 0;
  let interfaces = 0;
  for (const type of types) {
    if (isObjectType(type) || isInterfaceType(type)) {
      const own = Object.values(type.getFields());
      fields += own.length;
      args += own.reduce((n, f) => n + f.args.length, 0);
      interfaces += type.getInterfaces().length;
    } else if (isInputObjectType(type)) {
      inputFields += Object.keys(type.getFields()).length;
    } else if (isEnumType(type)) {
      enumValues += type.getValues().length;
    }
  }
  const perType = (n: number) => Math.max(1, Math.ceil(n / types.length));
  const directives = schema.getDirectives();
  return {
    '__Schema.types': types.length,
    '__Schema.directives': directives.length,
    '__Type.fields': perType(fields),
    '__Type.inputFields': perType(inputFields),
    '__Type.enumValues': perType(enumValues),
    '__Type.interfaces': perType(interfaces),
    '__Type.possibleTypes': perType(interfaces),
    '__Field.args': Math.max(1, Math.ceil(args / Math.max(1, fields))),
    '__Directive.args': Math.max(
      1,
      Math.ceil(directives.reduce((n, d) => n + d.args.length, 0) / Math.max(1, directives.length)),
    ),
  };
}

const sizesBySchema = new WeakMap<GraphQLSchema, Record<string, number>>();

function estimators(schema: GraphQLSchema): ComplexityEstimator[] {
  let sizes = sizesBySchema.get(schema);
  if (!sizes) sizesBySchema.set(schema, (sizes = introspectionSizes(schema)));
  const introspection: ComplexityEstimator = ({ type, field, childComplexity }) => {
    const items = sizes[`${type.name}.${field.name}`];
    return items === undefined ? undefined : 1 + items * childComplexity;
  };
  // Reads only COST_ARGUMENTS (costVariables keys the measured costs by them).
  const paged: ComplexityEstimator = ({ field, args, childComplexity }) => {
    // A page's size left out or null is its default page (`events(size: null)` reads 20).
    const paging = field.args.some((arg) => arg.name === 'size');
    const size =
      typeof args.size === 'number'
        ? Math.min(Math.max(Math.trunc(args.size), 1), MAX_PAGE_SIZE)
        : paging
          ? DEFAULT_PAGE_SIZE
          : 1;
    return 1 + size * childComplexity;
  };
  return [introspection as ComplexityEstimator, paged];
}

/** The arguments an estimator reads: with @skip/@include, the only values a cost depends on. */
const COST_ARGUMENTS = new Set(['size']);

const costVariablesByDocument = new WeakMap<DocumentNode, string[]>();

/**
 * The variables a document's cost can depend on: those given to a COST_ARGUMENTS argument or to a
 * directive. Another variable (an id, a filter) changes what the operation reads, never its cost.
 */
function costVariables(document: DocumentNode): string[] {
  let names = costVariablesByDocument.get(document);
  if (names) return names;
  const found = new Set<string>();
  const collect = (node: ASTNode) =>
    visit(node, {
      enter(inner) {
        if (inner.kind === Kind.VARIABLE) found.add(inner.name.value);
      },
    });
  visit(document, {
    enter(node) {
      if (node.kind === Kind.DIRECTIVE) collect(node);
      else if (node.kind === Kind.ARGUMENT && COST_ARGUMENTS.has(node.name.value)) collect(node.value);
    },
  });
  costVariablesByDocument.set(document, (names = [...found].sort()));
  return names;
}

/**
 * Root fields of the operation, fragments on the root type expanded (`__typename` is free): what
 * it costs at least, and how many share its answer's byte bound (src/reads/answer-bytes.ts).
 */
export function rootFieldCount(document: DocumentNode, set: SelectionSetNode, seen = new Set<string>()): number {
  let count = 0;
  for (const selection of set.selections) {
    if (selection.kind === Kind.FIELD) {
      if (selection.name.value !== '__typename') count++;
    } else if (selection.kind === Kind.INLINE_FRAGMENT) {
      count += rootFieldCount(document, selection.selectionSet, seen);
    } else if (!seen.has(selection.name.value)) {
      seen.add(selection.name.value);
      const fragment = document.definitions.find(
        (d): d is FragmentDefinitionNode =>
          d.kind === Kind.FRAGMENT_DEFINITION && d.name.value === selection.name.value,
      );
      if (fragment) count += rootFieldCount(document, fragment.selectionSet, seen);
    }
  }
  return count;
}

/**
 * Costs already measured, per parsed document (Apollo and the REST gateway reuse one DocumentNode
 * per query text), then per operation name and the values of the variables a cost depends on
 * (costVariables; an order's id is not one of them): clients repeat a handful of operations,
 * and walking the document with the complexity estimators was a measurable part of a small read.
 * Refusals are not kept; a document's entries are dropped together once there are many of them.
 */
const measured = new WeakMap<GraphQLSchema, WeakMap<DocumentNode, Map<string, OperationCost>>>();
const MEASURED_PER_DOCUMENT = 64;
const MEASURED_KEY_LENGTH = 512;

/**
 * Measures a validated operation and refuses one over a limit (`QueryLimitError`). Variables
 * that do not coerce are left to execution to report: such an operation cannot run a resolver,
 * so it costs its root fields.
 */
export function operationCost(
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName: string | null | undefined,
  variables: Record<string, unknown> | undefined,
): OperationCost {
  const given = variables ?? {};
  // Given (even as null) or left out: a left-out variable takes its default.
  const costValues = costVariables(document)
    .filter((name) => Object.hasOwn(given, name))
    .map((name) => [name, given[name]]);
  const key = `${operationName ?? ''}\u0000${JSON.stringify(costValues)}`;
  // Large variables (a write's input, a hostile value) are measured, never kept as a key.
  if (key.length > MEASURED_KEY_LENGTH) return measure(schema, document, operationName, variables);
  let bySchema = measured.get(schema);
  if (!bySchema) measured.set(schema, (bySchema = new WeakMap()));
  let byArguments = bySchema.get(document);
  if (!byArguments) bySchema.set(document, (byArguments = new Map()));
  let cost = byArguments.get(key);
  // The key leaves out variables a cost cannot depend on, but one of them may not coerce: such an
  // operation costs its root fields (see measure), never kept.
  const definitions = getOperationAST(document, operationName)?.variableDefinitions;
  if (definitions?.length && getVariableValues(schema, definitions, given).errors) {
    return measure(schema, document, operationName, variables);
  }
  if (!cost) {
    cost = measure(schema, document, operationName, variables);
    if (byArguments.size >= MEASURED_PER_DOCUMENT) byArguments.clear();
    byArguments.set(key, cost);
  }
  return cost;
}

function measure(
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName: string | null | undefined,
  variables: Record<string, unknown> | undefined,
): OperationCost {
  const operation = getOperationAST(document, operationName);
  const rootFields = operation ? rootFieldCount(document, operation.selectionSet) : 0;
  if (operation?.operation === OperationTypeNode.MUTATION && rootFields > MAX_MUTATION_FIELDS) {
    throw new QueryLimitError(
      TOO_MANY_MUTATIONS,
      `The document holds ${rootFields} mutation fields; at most ${MAX_MUTATION_FIELDS} are allowed in one request`,
    );
  }
  if (rootFields > MAX_ROOT_FIELDS) {
    throw new QueryLimitError(
      QUERY_TOO_COMPLEX,
      `The operation has ${rootFields} root fields (aliases counted); at most ${MAX_ROOT_FIELDS} are allowed`,
    );
  }
  const depth = depthOf(document, operationName);
  if (depth > MAX_DEPTH) {
    throw new QueryLimitError(
      QUERY_TOO_DEEP,
      `The operation nests fields ${depth} levels deep; at most ${MAX_DEPTH} are allowed`,
    );
  }
  let complexity: number;
  try {
    complexity = getComplexity({
      schema,
      query: document,
      operationName: operationName ?? undefined,
      variables: variables ?? {},
      estimators: estimators(schema),
      maxQueryNodes: MAX_QUERY_NODES,
    });
  } catch (error) {
    if (error instanceof GraphQLError && /^Variable "\$/.test(error.message))
      return { depth, complexity: 0, rootFields, cost: Math.max(1, rootFields) };
    if (error instanceof GraphQLError && /maximum allowed number of nodes/.test(error.message)) {
      throw new QueryLimitError(
        QUERY_TOO_COMPLEX,
        `The operation selects more than ${MAX_QUERY_NODES} fields (fragments expanded)`,
      );
    }
    throw error;
  }
  if (complexity > MAX_COMPLEXITY) {
    throw new QueryLimitError(
      QUERY_TOO_COMPLEX,
      `The operation's complexity is ${complexity}; at most ${MAX_COMPLEXITY} is allowed ` +
        `(every field counts 1, introspection included; a list's selection counts once per item ` +
        `it can return): ask for smaller pages or fewer fields`,
    );
  }
  return {
    depth,
    complexity,
    rootFields,
    cost: Math.max(1, rootFields, Math.ceil(complexity / COMPLEXITY_PER_REQUEST)),
  };
}
