import {
  astFromValue,
  type DocumentNode,
  type ExecutionResult,
  execute,
  type FieldNode,
  type FragmentDefinitionNode,
  GraphQLError,
  type GraphQLInputType,
  type GraphQLSchema,
  getNullableType,
  getOperationAST,
  getVariableValues,
  isInputObjectType,
  isListType,
  Kind,
  type OperationDefinitionNode,
  OperationTypeNode,
  type SelectionSetNode,
  typeFromAST,
  valueFromASTUntyped,
} from 'graphql';
import { type CompiledQuery, compileQuery, isCompiledQuery } from 'graphql-jit';
import { ValidationError } from '../domain/errors.js';
import { answerTooLarge, shareAnswer } from '../reads/answer-bytes.js';
import type { GraphQLContext } from '../resolvers/context.js';
import { rootFieldCount } from './operation-cost.js';

/**
 * Executes validated documents, compiling each query once: graphql-jit turns an operation into a
 * plain function over the schema's own resolvers (no per-field interpretation of the document),
 * for `/graphql` and for the operations the REST layer runs alike. Documents are cached by the
 * callers (Apollo's document store, the REST gateway's map), so the same node comes back.
 *
 * Mutations run through graphql-js: they are not a hot path. graphql-jit 0.8 refuses a missing
 * non-null input field or variable that has a default instead of applying the default: a query's
 * variables get those defaults written in first (`asGiven`), as a client could have sent them.
 */
export function compiledExecutor(schema: GraphQLSchema) {
  // Per document, then per operation: a document may hold several, and each compiles to its own.
  const compiled = new WeakMap<DocumentNode, Map<string, CompiledQuery>>();

  // An operation's root fields, counted once per parsed operation (documents come back cached).
  const rootFields = new WeakMap<OperationDefinitionNode, number>();
  function rootFieldsOf(document: DocumentNode, operation: OperationDefinitionNode): number {
    let count = rootFields.get(operation);
    if (count === undefined) rootFields.set(operation, (count = rootFieldCount(document, operation.selectionSet)));
    return count;
  }

  return function run(
    document: DocumentNode,
    operationName: string | null | undefined,
    contextValue: unknown,
    variables: Record<string, unknown> | undefined,
  ): Promise<ExecutionResult> | ExecutionResult {
    const result = executed(document, operationName, contextValue, variables);
    // Refused before anything ran (no data): variables it cannot take are answered as bad input. An
    // answer over the byte bound is refused whole, before any carrier serialises it.
    const refused = (done: ExecutionResult): ExecutionResult => {
      const error =
        done.data === undefined && done.errors?.length && variableError(schema, document, operationName, variables);
      if (error) return { errors: [error] };
      return boundedAnswer(document, operationName, done);
    };
    return 'then' in result ? result.then(refused) : refused(result);
  };

  function executed(
    document: DocumentNode,
    operationName: string | null | undefined,
    contextValue: unknown,
    variables: Record<string, unknown> | undefined,
  ): Promise<ExecutionResult> | ExecutionResult {
    const operation = getOperationAST(document, operationName);
    const em = (contextValue as Partial<GraphQLContext> | undefined)?.em;
    if (operation && em) shareAnswer(em, rootFieldsOf(document, operation));
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
    const result = query.query(undefined, contextValue, asGiven(schema, operation, variables ?? {})) as
      | Promise<ExecutionResult>
      | ExecutionResult;
    return 'then' in result ? result.then(withPlainErrors) : withPlainErrors(result);
  }
}

/** Per operation: whether it selects a field under two response keys (aliases) somewhere. */
const repeating = new WeakMap<OperationDefinitionNode, boolean>();

function repeatsAField(document: DocumentNode, operation: OperationDefinitionNode): boolean {
  let repeats = repeating.get(operation);
  if (repeats !== undefined) return repeats;
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const d of document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
  // A selection set's fields with fragments spread in, each fragment once (validation refuses cycles).
  const fieldsOf = (set: SelectionSetNode | undefined, seen: Set<string>, into: FieldNode[] = []): FieldNode[] => {
    for (const selection of set?.selections ?? []) {
      if (selection.kind === Kind.FIELD) into.push(selection);
      else if (selection.kind === Kind.INLINE_FRAGMENT) fieldsOf(selection.selectionSet, seen, into);
      else if (!seen.has(selection.name.value)) {
        seen.add(selection.name.value);
        fieldsOf(fragments.get(selection.name.value)?.selectionSet, seen, into);
      }
    }
    return into;
  };
  // Fields of one response key merge before they run (`textareas { a1: text } textareas { a2: text }`
  // is one `textareas` selecting both): their selection sets are judged together, as graphql-js
  // collects them: each fragment spread once for the whole key, each selection set once, so copies
  // of a field spreading one fragment do not multiply level by level.
  const repeatsIn = (sets: ReadonlySet<SelectionSetNode>): boolean => {
    const keyOfName = new Map<string, string>();
    const byKey = new Map<string, Set<SelectionSetNode>>();
    const seen = new Set<string>();
    for (const set of sets) {
      for (const field of fieldsOf(set, seen)) {
        const key = field.alias?.value ?? field.name.value;
        const known = keyOfName.get(field.name.value);
        if (known !== undefined && known !== key) return true;
        keyOfName.set(field.name.value, key);
        if (!byKey.has(key)) byKey.set(key, new Set());
        if (field.selectionSet) byKey.get(key)!.add(field.selectionSet);
      }
    }
    return [...byKey.values()].some((merged) => merged.size > 0 && repeatsIn(merged));
  };
  repeats = repeatsIn(new Set([operation.selectionSet]));
  repeating.set(operation, repeats);
  return repeats;
}

/**
 * The answer, or its refusal (ANSWER_TOO_LARGE) when its operation repeats a field under aliases and
 * its JSON would be over the answer's bound: aliases multiply values that no statement measured
 * (src/reads/answer-bytes.ts `answerTooLarge`). Every carrier's answer passes here before it is
 * serialised: the executor's (HTTP, REST, bulk lines) and the subscription socket's `next`.
 */
export function boundedAnswer(
  document: DocumentNode,
  operationName: string | null | undefined,
  done: ExecutionResult,
): ExecutionResult {
  const operation = done.data ? getOperationAST(document, operationName) : null;
  const tooLarge =
    operation && repeatsAField(document, operation)
      ? answerTooLarge(done.data, operation.operation === OperationTypeNode.MUTATION)
      : undefined;
  if (!tooLarge) return done;
  return { data: null, errors: [new GraphQLError(tooLarge.message, { originalError: tooLarge })] };
}

/**
 * Variables the operation cannot take, as BAD_USER_INPUT naming each (docs/decisions.md#graphql:
 * bad input carries its field errors), with graphql-js's own reasons (a scalar's, such as
 * Decimal's): graphql-jit reports only "Expected type Decimal." and no code. The field is the path
 * into the variable (`input.price`), or its name. Undefined when graphql-js finds nothing wrong
 * with them. The executor answers so for a request (nothing ran), and a bulk line is refused so
 * before it runs (bulk-mutation.ts `lineRefusal`).
 */
export function variableError(
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName: string | null | undefined,
  variables: Record<string, unknown> | undefined,
): GraphQLError | undefined {
  const operation = getOperationAST(document, operationName);
  if (!operation?.variableDefinitions?.length) return undefined;
  const coerced = getVariableValues(schema, operation.variableDefinitions, variables ?? {});
  if (!coerced.errors) return undefined;
  const fields = coerced.errors.map((error) => {
    const name = /^Variable "\$(\w+)"/.exec(error.message)?.[1] ?? 'variables';
    const at = / at "([^"]+)"/.exec(error.message)?.[1];
    return { field: at ?? name, message: error.message };
  });
  return new GraphQLError('Invalid variables', { originalError: new ValidationError(fields) });
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
 * A query's variables as graphql-js would take them, for graphql-jit: a variable left out takes
 * its definition's default, an input object field left out its field's default (each written as a
 * client would send it: an enum by its name), and a key set to `undefined` is absent (graphql-js
 * treats it so, graphql-jit as present; the REST mapping may leave such keys). Anything else is
 * left for the executor's own coercion to judge.
 */
function asGiven(
  schema: GraphQLSchema,
  operation: OperationDefinitionNode,
  variables: Record<string, unknown>,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(variables)) if (value !== undefined) out[key] = value;
  for (const definition of operation.variableDefinitions ?? []) {
    const name = definition.variable.name.value;
    if (out[name] === undefined && definition.defaultValue) out[name] = valueFromASTUntyped(definition.defaultValue);
    const type = typeFromAST(schema, definition.type) as GraphQLInputType | undefined;
    if (out[name] !== undefined && type) out[name] = withDefaults(out[name], type);
  }
  return out;
}

function withDefaults(value: unknown, type: GraphQLInputType): unknown {
  const nullable = getNullableType(type);
  if (value === null || typeof value !== 'object') return value;
  if (isListType(nullable)) {
    return Array.isArray(value)
      ? value.map((item) => withDefaults(item, nullable.ofType))
      : withDefaults(value, nullable.ofType);
  }
  if (!isInputObjectType(nullable) || Array.isArray(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) if (item !== undefined) out[key] = item;
  for (const field of Object.values(nullable.getFields())) {
    if (out[field.name] === undefined && field.defaultValue !== undefined) {
      const literal = astFromValue(field.defaultValue, field.type);
      if (literal) out[field.name] = valueFromASTUntyped(literal);
    } else if (out[field.name] !== undefined) {
      out[field.name] = withDefaults(out[field.name], field.type);
    }
  }
  return out;
}
