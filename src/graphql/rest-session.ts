import { GraphQLError, type GraphQLFormattedError, type GraphQLSchema } from 'graphql';
import { type CarriedTokenCheck, TokenCheckFailed } from '../auth/carried-token-check.js';
import { RATE_LIMITED, type RateLimitState, rateLimitedMessage, rateLimitHeaders } from '../auth/rate-limit.js';
import { UnauthenticatedError } from '../domain/errors.js';
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
  /**
   * A read session whose token check rides on its page's statement (opened with `carry`): how the
   * check came out, to ask once the request is done, on every path (an answer, a 400, a 403).
   * Absent when the token was checked before the session opened.
   */
  settle?(): Promise<Settlement>;
}

/**
 * A carried check's outcome (src/auth/carried-token-check.ts): the caller's rate-limit headers,
 * and either the refusal that replaces whatever the request answered, or, for a caller whose
 * scopes changed since this process last saw them, the session as they are now (already charged),
 * to run the request again with; neither when the check passed.
 */
export interface Settlement extends SessionHeaders {
  errors?: readonly GraphQLFormattedError[];
  changed?: Session;
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
  /** The operations of a request as the caller of `context`. */
  function sessionOn(context: GraphQLContext): Session {
    const { check } = context;
    /** A read that cannot carry the check settles it first (a refused or changed caller runs nothing). */
    const settledFirst = async () => {
      if (check && (await check.settle(context.em)) !== 'passed') throw new TokenCheckFailed(check.outcome);
    };
    return {
      tokenId: context.principal.tokenId,
      scopes: context.principal.scopes,
      run: async (request) => {
        await settledFirst();
        return run(context, request);
      },
      page: async (request, rendering) => {
        const entry = prepared(request.document);
        if (!('document' in entry)) return run(context, request); // its validation errors
        graphqlOperations.inc({ type: entry.operation, via: 'rest' });
        const companion = check?.companion();
        const answer = await router.routed(
          context,
          router.isQuery(entry.document, undefined),
          (on) => pageFromPostgres([compiled, schema, entry.document, on, request.variables], rendering, companion),
          (result) => (result && !('items' in result) ? result.errors : undefined),
        );
        // A carried check that came back unsettled: its statement did not complete.
        if (companion && check?.outcome === 'pending') check.forget();
        // A carried check that did not pass withheld the read: its refusal is the settlement's.
        if (companion && check?.outcome !== 'passed' && check?.outcome !== 'pending') {
          throw new TokenCheckFailed(check!.outcome);
        }
        return answer && !('items' in answer) ? formatted(answer) : answer;
      },
      snapshot: async () => {
        await settledFirst();
        return snapshot(context);
      },
      ...(check && {
        settle: async (): Promise<Settlement> => {
          let outcome: CarriedTokenCheck['outcome'];
          try {
            outcome = await check.settle(context.em);
          } catch (error) {
            return { errors: [formattedError(error as Error)] }; // the database out of reach: 503
          }
          const headers = check.limit && rateLimitHeaders(check.limit);
          if (outcome === 'passed') return { headers };
          if (outcome === 'changed') {
            return { headers, changed: sessionOn({ ...context, principal: check.principal, check: undefined }) };
          }
          return { headers, errors: [refusalOf(outcome === 'refused' ? check.limit : undefined)] };
        },
      }),
    };
  }

  /**
   * A REST request: authenticated and charged one request at once (its operations are the
   * service's own); `carry`: a read by a caller seen before has its check carried by its page's
   * statement instead, and its session says how it came out (`settle`).
   */
  return async function session(
    authorization: string | undefined,
    writes = true,
    carry = false,
  ): Promise<(Session | { errors: readonly GraphQLFormattedError[] }) & SessionHeaders> {
    let context: GraphQLContext;
    try {
      context = await contextFor(authorization, writes, carry);
    } catch (error) {
      // An unknown token (401), or the database out of reach (503): as execution reports them.
      return { errors: [formattedError(error as Error)] };
    }
    const limit = context.limit;
    const headers = limit ? rateLimitHeaders(limit) : undefined;
    if (limit && !limit.allowed) return { errors: [refusalOf(limit)], headers };
    return { ...sessionOn(context), headers };
  };
}

/** A token refused: unknown or revoked (401), or its bucket empty (`limit`, 429). */
function refusalOf(limit?: RateLimitState): GraphQLFormattedError {
  if (limit) return { message: rateLimitedMessage(limit), extensions: { code: RATE_LIMITED } };
  return formattedError(new UnauthenticatedError());
}

function formattedError(error: Error): GraphQLFormattedError {
  const wrapped = new GraphQLError(error.message, { originalError: error });
  return formatError(wrapped.toJSON(), wrapped);
}
