import type { MikroORM } from '@mikro-orm/postgresql';
import {
  getOperationAST,
  GraphQLError,
  parse,
  specifiedRules,
  validate,
  type DocumentNode,
  type ExecutionResult,
  type GraphQLFormattedError,
  type GraphQLSchema,
} from 'graphql';
import { authenticate } from '../auth/api-tokens.js';
import { isDatabaseUnavailable } from '../db/database-errors.js';
import type { ReadReplicas } from '../db/read-replicas.js';
import { RATE_LIMITED, rateLimitedMessage, rateLimitHeaders, type RateLimiter } from '../auth/rate-limit.js';
import type { Scope } from '../auth/scopes.js';
import { graphqlOperations, readFallbacks, readsByTarget } from '../observability/metrics.js';
import { UnauthenticatedError } from '../domain/errors.js';
import { Loaders } from '../resolvers/loaders.js';
import type { GraphQLContext } from '../resolvers/context.js';
import { compiledExecutor } from './compiled-execution.js';
import { formatError } from './format-error.js';

export interface OperationRequest {
  document: string;
  variables?: Record<string, unknown>;
  /**
   * Runs the operation inside one transaction and calls this with its result before COMMIT
   * (the mutation's own transaction becomes a savepoint of it): the REST edge stores its
   * Idempotency-Key answer there, so the answer exists exactly when the write committed.
   */
  beforeCommit?: (result: OperationResult, sql: (text: string, params: unknown[]) => Promise<unknown>) => Promise<void>;
}

export interface OperationResult {
  data?: Record<string, unknown> | null;
  errors?: readonly GraphQLFormattedError[];
}

/** Operations run as one authenticated caller. */
export interface Session {
  /** The caller's token (idempotency keys are scoped to it). */
  tokenId: number;
  /** The caller's scopes (REST checks a route's scope before reading its body). */
  scopes: ReadonlySet<string>;
  run(request: OperationRequest): Promise<OperationResult>;
}

/** What opening a session answers besides the session: the caller's rate-limit headers, if counted. */
export interface SessionHeaders {
  /** `RateLimit-*` (and `Retry-After` when refused) for the response; absent when not counted. */
  headers?: Record<string, string>;
}

/**
 * What the REST layer sees of GraphQL: authenticate the caller and spend one request from their
 * rate-limit bucket (a refusal comes back as errors, so the caller learns nothing else first),
 * then run operations as them. Nothing of the ORM.
 */
export interface GraphQLGateway {
  schema: GraphQLSchema;
  session(authorization: string | undefined, writes?: boolean): Promise<(Session | { errors: readonly GraphQLFormattedError[] }) & SessionHeaders>;
}

/** Read replicas, and how long after a token's write its reads must see that write (seconds). */
export interface ReplicaRouting {
  set: ReadReplicas;
  windowSeconds: number;
}

const CACHE_LIMIT = 1000;

interface Prepared {
  operation: string;
  document: DocumentNode;
}

function bearerOf(header: string | undefined): string | null {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
  return match ? match[1] : null;
}

/**
 * The execution side of the schema. `contextFor` authenticates the bearer token once per request
 * and gives resolvers a fresh EntityManager; `run` executes a document in-process, parsing and
 * validating each distinct document only once.
 */
export function createGateway(schema: GraphQLSchema, orm: MikroORM, limiter?: RateLimiter, replicas?: ReplicaRouting) {
  const documents = new Map<string, Prepared>();
  const compiled = compiledExecutor(schema);
  // Per request: whether it writes, and the WAL position its reads must see (read replicas only).
  const routing = new WeakMap<GraphQLContext, { writes: boolean; waitLsn?: string }>();

  /**
   * Runs a document as the caller. A query of a request that writes nothing goes to a read
   * replica when one qualifies (src/db/read-replicas.ts); one that fails there because the replica
   * went away runs again on the primary, so the client never sees a replica's outage.
   */
  async function execute(
    document: DocumentNode,
    operationName: string | null | undefined,
    context: GraphQLContext,
    given?: Record<string, unknown> | null,
  ): Promise<ExecutionResult> {
    const variables = given ?? undefined;
    const route = routing.get(context);
    if (!replicas || !route || route.writes || getOperationAST(document, operationName)?.operation !== 'query') {
      return compiled(document, operationName, context, variables);
    }
    const target = replicas.set.forRead(route.waitLsn);
    if (typeof target === 'string') {
      readsByTarget.inc({ target: 'primary' });
      readFallbacks.inc({ reason: target });
      return compiled(document, operationName, context, variables);
    }
    const result = await compiled(document, operationName, { ...context, em: target.em, loaders: new Loaders(target.em) }, variables);
    if (!result.errors?.some((error) => isDatabaseUnavailable(error.originalError))) {
      readsByTarget.inc({ target: target.name });
      return result;
    }
    replicas.set.failed(target.name);
    readsByTarget.inc({ target: 'primary' });
    readFallbacks.inc({ reason: 'read_failed' });
    return compiled(document, operationName, context, variables);
  }

  /**
   * The caller's context, one statement: the token is checked and its bucket charged one request
   * together (every request, REST or GraphQL, costs at least one; a GraphQL operation that costs
   * more is charged the rest once it is measured). A refused charge is in `limit.allowed`.
   */
  async function contextFor(authorization: string | undefined, writes = true): Promise<GraphQLContext> {
    const em = orm.em.fork();
    const secret = bearerOf(authorization);
    const tracking = replicas ? { writes, windowSeconds: replicas.windowSeconds } : undefined;
    const authentication = secret ? await authenticate(em, secret, limiter, 1, tracking) : null;
    if (!authentication) throw new UnauthenticatedError();
    const context = { em, principal: authentication.principal, loaders: new Loaders(em), limit: authentication.limit };
    routing.set(context, { writes, waitLsn: authentication.waitLsn });
    return context;
  }

  /** A document parsed and validated once, then run as often as REST asks for it (compiled, see compiled-execution.ts). */
  function prepared(source: string): Prepared | readonly GraphQLError[] {
    const cached = documents.get(source);
    if (cached) return cached;
    let document: DocumentNode;
    try {
      document = parse(source);
    } catch (error) {
      return [error as GraphQLError];
    }
    const errors = validate(schema, document, specifiedRules);
    if (errors.length) return errors;
    if (documents.size >= CACHE_LIMIT) documents.delete(documents.keys().next().value as string);
    const entry = { operation: getOperationAST(document)?.operation ?? 'unknown', document };
    documents.set(source, entry);
    return entry;
  }

  async function run(contextValue: GraphQLContext, request: OperationRequest): Promise<OperationResult> {
    const entry = prepared(request.document);
    if (!('document' in entry)) {
      return { errors: entry.map((e) => ({ ...formatError(e.toJSON(), e), extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } })) };
    }
    graphqlOperations.inc({ type: entry.operation, via: 'rest' });
    const executeAs = async (context: GraphQLContext): Promise<OperationResult> => {
      const result = await execute(entry.document, undefined, context, request.variables);
      return { data: result.data as Record<string, unknown> | null, errors: result.errors?.map((e) => formatError(e.toJSON(), e)) };
    };
    const { beforeCommit } = request;
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
  }

  /** A REST request: authenticated and charged one request at once (its operations are the service's own). */
  async function session(authorization: string | undefined, writes = true): Promise<(Session | { errors: readonly GraphQLFormattedError[] }) & SessionHeaders> {
    let context: GraphQLContext;
    try {
      context = await contextFor(authorization, writes);
    } catch (error) {
      const wrapped = new GraphQLError((error as Error).message, { originalError: error as Error });
      return { errors: [formatError(wrapped.toJSON(), wrapped)] };
    }
    const limit = context.limit;
    const headers = limit ? rateLimitHeaders(limit) : undefined;
    if (limit && !limit.allowed) return { errors: [{ message: rateLimitedMessage(limit), extensions: { code: RATE_LIMITED } }], headers };
    return { tokenId: context.principal.tokenId, scopes: context.principal.scopes, run: (request) => run(context, request), headers };
  }

  /** Whether the bearer token holds the scope (for endpoints outside GraphQL, e.g. /metrics). */
  async function hasScope(authorization: string | undefined, scope: Scope): Promise<'ok' | 'unauthenticated' | 'forbidden'> {
    const secret = bearerOf(authorization);
    const authentication = secret ? await authenticate(orm.em.fork(), secret) : null;
    if (!authentication) return 'unauthenticated';
    return authentication.principal.scopes.has(scope) ? 'ok' : 'forbidden';
  }

  const replicated = replicas !== undefined;
  return { schema, limiter, replicated, execute, contextFor, session, hasScope } satisfies GraphQLGateway & {
    limiter: RateLimiter | undefined;
    replicated: boolean;
    execute: typeof execute;
    contextFor: typeof contextFor;
    hasScope: typeof hasScope;
  };
}
