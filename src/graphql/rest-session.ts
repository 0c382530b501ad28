import { GraphQLError, type GraphQLFormattedError, type GraphQLSchema } from 'graphql';
import { RATE_LIMITED, rateLimitedMessage, rateLimitHeaders } from '../auth/rate-limit.js';
import { graphqlOperations } from '../observability/metrics.js';
import type { GraphQLContext } from '../resolvers/context.js';
import { pageFromPostgres, type RenderedPage } from './answer-passthrough.js';
import type { compiledExecutor } from './compiled-execution.js';
import { formatError } from './format-error.js';
import { formatted, type OperationRequest, type OperationResult, type OperationRun } from './operation-run.js';
import type { PreparedDocuments } from './prepared-documents.js';
import type { Rendering } from './rendering.js';
import type { ReplicaRouter } from './replica-routing.js';
import type { createRequestContexts } from './request-context.js';
import type { Snapshot } from './snapshots.js';

/** Operations run as one authenticated caller. */
export interface Session {
  /** The caller's token (idempotency keys are scoped to it). */
  tokenId: number;
  /** The caller's scopes (REST checks a route's scope before reading its body). */
  scopes: ReadonlySet<string>;
  run(request: OperationRequest): Promise<OperationResult>;
  /**
   * A page operation with its items written by PostgreSQL with `rendering`'s keys
   * (answer-passthrough.ts), on a read replica where the request's reads may go, or its errors;
   * undefined when the rendering asks for what only execution gives: `run` answers.
   */
  page(
    request: Omit<OperationRequest, 'beforeCommit' | 'inputChecked'>,
    rendering: Rendering,
  ): Promise<RenderedPage | OperationResult | undefined>;
  /**
   * Opens one snapshot of the store: a REPEATABLE READ READ ONLY transaction on the primary,
   * held (with its pooled connection) until `close`. Every operation run through it reads the
   * same committed state, whatever commits meanwhile: the REST exports page through one.
   * Undefined when the process already holds its limit of snapshots (half its pool, so exports
   * cannot take every connection from the other requests): the caller answers "busy".
   */
  snapshot(): Promise<Snapshot | undefined>;
}

/** What opening a session answers besides the session: the caller's rate-limit headers, if counted. */
export interface SessionHeaders {
  /** `RateLimit-*` (and `Retry-After` when refused) for the response; absent when not counted. */
  headers?: Record<string, string>;
}

/** What a REST session is made of: the gateway's parts it calls. */
interface SessionParts {
  schema: GraphQLSchema;
  /** The executor every operation runs through. */
  compiled: ReturnType<typeof compiledExecutor>;
  contextFor: ReturnType<typeof createRequestContexts>['contextFor'];
  prepared: PreparedDocuments;
  run: OperationRun;
  snapshot(context: GraphQLContext): Promise<Snapshot | undefined>;
  /** Where the request's reads go (a page on a read replica, as an execution). */
  router: ReplicaRouter;
}

export function createRestSessions({ schema, compiled, contextFor, prepared, run, snapshot, router }: SessionParts) {
  /** A REST request: authenticated and charged one request at once (its operations are the service's own). */
  return async function session(
    authorization: string | undefined,
    writes = true,
  ): Promise<(Session | { errors: readonly GraphQLFormattedError[] }) & SessionHeaders> {
    let context: GraphQLContext;
    try {
      context = await contextFor(authorization, writes);
    } catch (error) {
      const wrapped = new GraphQLError((error as Error).message, { originalError: error as Error });
      return { errors: [formatError(wrapped.toJSON(), wrapped)] };
    }
    const limit = context.limit;
    const headers = limit ? rateLimitHeaders(limit) : undefined;
    if (limit && !limit.allowed)
      return { errors: [{ message: rateLimitedMessage(limit), extensions: { code: RATE_LIMITED } }], headers };
    return {
      tokenId: context.principal.tokenId,
      scopes: context.principal.scopes,
      run: (request) => run(context, request),
      page: async (request, rendering) => {
        const entry = prepared(request.document);
        if (!('document' in entry)) return run(context, request); // its validation errors
        graphqlOperations.inc({ type: entry.operation, via: 'rest' });
        const answer = await router.routed(
          context,
          router.isQuery(entry.document, undefined),
          (on) => pageFromPostgres([compiled, schema, entry.document, on, request.variables], rendering),
          (result) => (result && !('items' in result) ? result.errors : undefined),
        );
        return answer && !('items' in answer) ? formatted(answer) : answer;
      },
      snapshot: () => snapshot(context),
      headers,
    };
  };
}
