import type { MikroORM } from '@mikro-orm/postgresql';
import {
  execute,
  GraphQLError,
  parse,
  specifiedRules,
  validate,
  type DocumentNode,
  type GraphQLFormattedError,
  type GraphQLSchema,
} from 'graphql';
import { authenticate } from '../auth/api-tokens.js';
import { RATE_LIMITED, rateLimitedMessage, rateLimitHeaders, type RateLimiter } from '../auth/rate-limit.js';
import type { Scope } from '../auth/scopes.js';
import { graphqlOperations } from '../observability/metrics.js';
import { UnauthenticatedError } from '../domain/errors.js';
import { withPrecondition, type Precondition } from '../domain/preconditions.js';
import { Loaders } from '../resolvers/loaders.js';
import type { GraphQLContext } from '../schema/context.js';
import { formatError } from './format-error.js';

export interface OperationRequest {
  document: string;
  variables?: Record<string, unknown>;
  /** The caller's If-Match for the record the operation writes. */
  precondition?: Precondition;
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
  session(authorization: string | undefined): Promise<(Session | { errors: readonly GraphQLFormattedError[] }) & SessionHeaders>;
}

const CACHE_LIMIT = 1000;

function bearerOf(header: string | undefined): string | null {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
  return match ? match[1] : null;
}

/**
 * The execution side of the schema. `contextFor` authenticates the bearer token once per request
 * and gives resolvers a fresh EntityManager; `run` executes a document in-process, parsing and
 * validating each distinct document only once.
 */
export function createGateway(schema: GraphQLSchema, orm: MikroORM, limiter?: RateLimiter) {
  const documents = new Map<string, DocumentNode>();

  async function contextFor(authorization: string | undefined): Promise<GraphQLContext> {
    const em = orm.em.fork();
    const secret = bearerOf(authorization);
    const principal = secret ? await authenticate(em, secret) : null;
    if (!principal) throw new UnauthenticatedError();
    return { em, principal, loaders: new Loaders(em) };
  }

  function prepared(source: string): DocumentNode | readonly GraphQLError[] {
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
    documents.set(source, document);
    return document;
  }

  async function run(contextValue: GraphQLContext, request: OperationRequest): Promise<OperationResult> {
    const document = prepared(request.document);
    if (!(document as DocumentNode).kind) {
      return { errors: (document as readonly GraphQLError[]).map((e) => ({ ...formatError(e.toJSON(), e), extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } })) };
    }
    const operation = (document as DocumentNode).definitions.find((d) => d.kind === 'OperationDefinition');
    graphqlOperations.inc({ type: operation && 'operation' in operation ? operation.operation : 'unknown', via: 'rest' });
    const executeAs = async (context: GraphQLContext): Promise<OperationResult> => {
      const result = await withPrecondition(request.precondition, async () =>
        execute({ schema, document: document as DocumentNode, variableValues: request.variables, contextValue: context }),
      );
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

  /** A REST request: authenticated once, then one request from the token's bucket (its operations are the service's own). */
  async function session(authorization: string | undefined): Promise<(Session | { errors: readonly GraphQLFormattedError[] }) & SessionHeaders> {
    let context: GraphQLContext;
    try {
      context = await contextFor(authorization);
    } catch (error) {
      const wrapped = new GraphQLError((error as Error).message, { originalError: error as Error });
      return { errors: [formatError(wrapped.toJSON(), wrapped)] };
    }
    let limit;
    try {
      limit = limiter ? await limiter.charge(context.principal.tokenId, 1) : undefined;
    } catch (error) {
      const wrapped = new GraphQLError((error as Error).message, { originalError: error as Error });
      return { errors: [formatError(wrapped.toJSON(), wrapped)] }; // 503 (unavailable or busy), never a 500
    }
    const headers = limit ? rateLimitHeaders(limit) : undefined;
    if (limit && !limit.allowed) return { errors: [{ message: rateLimitedMessage(limit), extensions: { code: RATE_LIMITED } }], headers };
    return { tokenId: context.principal.tokenId, scopes: context.principal.scopes, run: (request) => run(context, request), headers };
  }

  /** Whether the bearer token holds the scope (for endpoints outside GraphQL, e.g. /metrics). */
  async function hasScope(authorization: string | undefined, scope: Scope): Promise<'ok' | 'unauthenticated' | 'forbidden'> {
    const secret = bearerOf(authorization);
    const principal = secret ? await authenticate(orm.em.fork(), secret) : null;
    if (!principal) return 'unauthenticated';
    return principal.scopes.has(scope) ? 'ok' : 'forbidden';
  }

  return { schema, limiter, contextFor, session, hasScope } satisfies GraphQLGateway & {
    limiter: RateLimiter | undefined;
    contextFor: typeof contextFor;
    hasScope: typeof hasScope;
  };
}
