import {
  type DocumentNode,
  type ExecutionResult,
  execute,
  GraphQLError,
  type GraphQLSchema,
  getOperationAST,
} from 'graphql';
import { type CompiledQuery, compileQuery, isCompiledQuery } from 'graphql-jit';

/**
 * Executes validated documents, compiling each query once: graphql-jit turns an operation into a
 * plain function over the schema's own resolvers (no per-field interpretation of the document),
 * for `/graphql` and for the operations the REST layer runs alike. Documents are cached by the
 * callers (Apollo's document store, the REST gateway's map), so the same node comes back.
 *
 * Mutations run through graphql-js: they are not a hot path, and graphql-jit 0.8 refuses a missing
 * non-null input field that has a default instead of applying the default.
 */
export function compiledExecutor(schema: GraphQLSchema) {
  // Per document, then per operation: a document may hold several, and each compiles to its own.
  const compiled = new WeakMap<DocumentNode, Map<string, CompiledQuery>>();

  return function run(
    document: DocumentNode,
    operationName: string | null | undefined,
    contextValue: unknown,
    variables: Record<string, unknown> | undefined,
  ) {
    const operation = getOperationAST(document, operationName);
    if (operation?.operation !== 'query') {
      return execute({ schema, document, operationName, variableValues: variables, contextValue }) as
        | Promise<ExecutionResult>
        | ExecutionResult;
    }
    let byOperation = compiled.get(document);
    if (!byOperation) compiled.set(document, (byOperation = new Map()));
    const name = operation.name?.value ?? '';
    let query = byOperation.get(name);
    if (!query) {
      const result = compileQuery(schema, document, operationName ?? undefined);
      if (!isCompiledQuery(result)) return result as ExecutionResult;
      byOperation.set(name, (query = result));
    }
    const result = query.query(undefined, contextValue, withoutUndefined(variables ?? {}) as Record<string, unknown>) as
      | Promise<ExecutionResult>
      | ExecutionResult;
    return 'then' in result ? result.then(withPlainErrors) : withPlainErrors(result);
  };
}

/**
 * graphql-jit's errors leave `extensions` unset, which Apollo's error formatting reads; rebuilt
 * as graphql-js would have made them (message, path, locations, the resolver's own error).
 */
function withPlainErrors(result: ExecutionResult): ExecutionResult {
  if (!result.errors?.length) return result;
  const errors = result.errors.map(
    (e) =>
      new GraphQLError(e.message, {
        nodes: e.nodes,
        source: e.source,
        positions: e.positions,
        path: e.path,
        originalError: e.originalError,
        extensions: e.extensions ?? {},
      }),
  );
  return { ...result, errors };
}

/**
 * Variables as JSON would carry them: graphql-js treats a key set to `undefined` as absent (so an
 * input field's default applies), graphql-jit as present; the REST mapping may leave such keys.
 */
function withoutUndefined(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutUndefined);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) if (item !== undefined) out[key] = withoutUndefined(item);
  return out;
}
