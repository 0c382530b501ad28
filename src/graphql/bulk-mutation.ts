import {
  type DocumentNode,
  type GraphQLError,
  type GraphQLSchema,
  getNamedType,
  getOperationAST,
  isObjectType,
  Kind,
  OperationTypeNode,
} from 'graphql';
import type { FieldError } from '../domain/errors.js';
import { variableError } from './compiled-execution.js';
import { parseOperation, sourceRefusal } from './document-guard.js';
import { operationCost } from './operation-cost.js';
import { QueryLimitError } from './query-limits.js';

/**
 * The GraphQL form of a bulk operation (docs/decisions.md#bulk-writes): one mutation document,
 * run once per uploaded line with that line's variables. The document passes the guards a
 * `/graphql` document passes (docs/operations.md#which-guard-applies-where), once when the
 * operation is started; the variables, and the cost limits that depend on them, for each line.
 */

/** Mutations a line may not run: a bulk operation does not start or cancel bulk operations. */
const BULK_FIELDS = new Set(['bulkOperationRunMutation', 'cancelBulkOperation']);

/**
 * Whether a mutation answers a secret shown once (its type has a `secret`: `createApiToken`,
 * `createWebhookSubscription`): a line's answer is kept as its result for BULK_RETENTION_DAYS and
 * read again, which would show the secret again (docs/decisions.md: tokens are stored hashed).
 */
function handsOutSecret(schema: GraphQLSchema, name: string): boolean {
  const type = getNamedType(schema.getMutationType()?.getFields()[name]?.type);
  return isObjectType(type) && 'secret' in type.getFields();
}

/** Why `source` cannot be a bulk operation's mutation, as field errors on `mutation`; none when it can. */
export function bulkMutationProblems(schema: GraphQLSchema, source: string): FieldError[] {
  const refusal = sourceRefusal(source, undefined);
  if (refusal) return [{ field: 'mutation', message: refusal.message }];
  const document = parseOperation(schema, source);
  if (!('kind' in document)) return document.map((error) => ({ field: 'mutation', message: error.message }));
  const operations = document.definitions.filter((d) => d.kind === Kind.OPERATION_DEFINITION);
  const operation = getOperationAST(document);
  if (operations.length !== 1 || !operation) return [{ field: 'mutation', message: 'must hold exactly one operation' }];
  if (operation.operation !== OperationTypeNode.MUTATION)
    return [{ field: 'mutation', message: `must be a mutation, not a ${operation.operation}` }];
  const fields = operation.selectionSet.selections;
  const field = fields[0];
  if (fields.length !== 1 || field.kind !== Kind.FIELD)
    return [{ field: 'mutation', message: 'must hold exactly one mutation field (no fragments at its root)' }];
  if (BULK_FIELDS.has(field.name.value))
    return [{ field: 'mutation', message: `a bulk operation cannot run ${field.name.value}` }];
  if (handsOutSecret(schema, field.name.value))
    return [
      { field: 'mutation', message: `a bulk operation cannot run ${field.name.value}: its answer holds a secret` },
    ];
  // Depth and complexity with no variables yet; each line is measured again with its own.
  const limit = lineRefusal(schema, document);
  return limit ? [{ field: 'mutation', message: limit.message }] : [];
}

/**
 * What refuses one line before it runs, as `/graphql` would refuse the same document with these
 * variables: their structural input limits (`sourceRefusal`), values its variables cannot take
 * (BAD_USER_INPUT naming each, compiled-execution.ts `variableError`), then depth and complexity.
 * Undefined when the line may run. `lineRefusal(schema, document)` with no variables measures the
 * document alone.
 */
export function lineRefusal(
  schema: GraphQLSchema,
  document: DocumentNode,
  variables?: Record<string, unknown>,
): GraphQLError | undefined {
  const refusal = sourceRefusal(undefined, variables);
  if (refusal) return refusal;
  const refused = variables && variableError(schema, document, undefined, variables);
  if (refused) return refused;
  try {
    operationCost(schema, document, undefined, variables);
  } catch (error) {
    if (error instanceof QueryLimitError) return error;
    throw error;
  }
  return undefined;
}
