import { type ExecutionResult, GraphQLError, type GraphQLFormattedError } from 'graphql';
import { logger } from '../logger.js';
import { graphqlOperations } from '../observability/metrics.js';
import type { GraphQLContext } from '../resolvers/context.js';
import { Loaders } from '../resolvers/loaders.js';
import { formatError } from './format-error.js';
import type { PreparedDocuments } from './prepared-documents.js';
import type { ReplicaRouter } from './replica-routing.js';

export interface OperationRequest {
  document: string;
  variables?: Record<string, unknown>;
  /**
   * Runs the operation inside one transaction and calls this with its result before COMMIT
   * (the mutation's own transaction becomes a savepoint of it): the REST edge stores its
   * Idempotency-Key answer there, so the answer exists exactly when the write committed.
   */
  beforeCommit?: (
    result: OperationResult,
    sql: (text: string, params: unknown[]) => Promise<unknown[]>,
  ) => Promise<void>;
  /**
   * The edge has already held the variables to the input limits and refused null where a field may
   * only be left out (a REST write): the input guard skips them (src/resolvers/input-guard.middleware.ts).
   */
  inputChecked?: boolean;
}

export interface OperationResult {
  data?: Record<string, unknown> | null;
  errors?: readonly GraphQLFormattedError[];
}

/** An execution result as an operation's result (errors formatted as every edge shows them). */
export const formatted = (result: ExecutionResult): OperationResult => ({
  data: (result.data as Record<string, unknown> | null | undefined) ?? null,
  errors: result.errors?.map((e) => formatError(e.toJSON(), e)),
});

/**
 * How the REST edge (and a snapshot of it) runs an operation as the caller of `contextValue`: the
 * document prepared once, executed (`execute`: on a replica where the request's reads may go), in
 * one transaction with `beforeCommit` when asked.
 */
export function createOperationRunner(prepared: PreparedDocuments, execute: ReplicaRouter['execute']) {
  return async function run(contextValue: GraphQLContext, request: OperationRequest): Promise<OperationResult> {
    const entry = prepared(request.document);
    if (!('document' in entry)) {
      return {
        errors: entry.map((e) => ({
          ...formatError(e.toJSON(), e),
          extensions: { code: 'GRAPHQL_VALIDATION_FAILED' },
        })),
      };
    }
    graphqlOperations.inc({ type: entry.operation, via: 'rest' });
    const executeAs = async (context: GraphQLContext): Promise<OperationResult> => {
      const result = await execute(entry.document, undefined, context, request.variables);
      if (request.inputChecked && result.errors?.length && result.data === undefined) {
        // Refused before execution: variable coercion. The edge's body schema is derived from the same
        // input types, so this is a disagreement between the two (a bug), never the client's answer.
        logger.error({ errors: result.errors }, 'GraphQL refused variables the REST edge had accepted');
        const masked = { message: 'Internal server error', extensions: { code: 'INTERNAL_SERVER_ERROR' } };
        return { data: null, errors: [masked] };
      }
      return {
        data: result.data as Record<string, unknown> | null,
        errors: result.errors?.map((e) => formatError(e.toJSON(), e)),
      };
    };
    const { beforeCommit } = request;
    // The copy keeps the request's EntityManager, and with it the request's replica routing.
    if (request.inputChecked) contextValue = { ...contextValue, inputChecked: true };
    if (!beforeCommit) return executeAs(contextValue);
    try {
      return await contextValue.em.transactional(async (tx) => {
        const result = await executeAs({ ...contextValue, em: tx, loaders: new Loaders(tx) });
        await beforeCommit(result, (text, params) => tx.execute(text, params));
        return result;
      });
    } catch (error) {
      if ((error as { status?: unknown }).status !== undefined) throw error; // the caller's own refusal
      const wrapped = new GraphQLError('transaction failed', { originalError: error as Error });
      return { data: null, errors: [formatError(wrapped.toJSON(), wrapped)] };
    }
  };
}

export type OperationRun = ReturnType<typeof createOperationRunner>;
