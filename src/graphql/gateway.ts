import type { MikroORM } from '@mikro-orm/postgresql';
import {
  type DocumentNode,
  type ExecutionResult,
  GraphQLError,
  type GraphQLFormattedError,
  type GraphQLSchema,
  getOperationAST,
} from 'graphql';
import { CompiledQuery, type Kysely } from 'kysely';
import { authenticate, checkToken, hashSecret } from '../auth/api-tokens.js';
import { carriedCheckFor, rememberToken } from '../auth/carried-token-check.js';
import { RATE_LIMITED, type RateLimiter, rateLimitedMessage, rateLimitHeaders } from '../auth/rate-limit.js';
import type { Scope } from '../auth/scopes.js';
import { setBounded } from '../bounded-map.js';
import { isDatabaseUnavailable } from '../db/database-errors.js';
import type { FallbackReason, ReadReplicas } from '../db/read-replicas.js';
import { UnauthenticatedError } from '../domain/errors.js';
import { isCursorMiss } from '../domain/event-cursor.js';
import { logger } from '../logger.js';
import { graphqlOperations, readFallbacks, readsByTarget } from '../observability/metrics.js';
import type { AnswerLines } from '../reads/read-query.js';
import type { GraphQLContext } from '../resolvers/context.js';
import { Loaders } from '../resolvers/loaders.js';
import {
  answerFromPostgres,
  linesFromPostgres,
  pageFromPostgres,
  type RenderedPage,
  type Rendering,
} from './answer-passthrough.js';
import { compiledExecutor } from './compiled-execution.js';
import { parseOperation } from './document-guard.js';
import { formatError } from './format-error.js';
import { checkRefusal } from './token-refusals.js';

export interface OperationRequest {
  document: string;
  variables?: Record<string, unknown>;
  /**
   * Runs the operation inside one transaction and calls this with its result before COMMIT
   * (the mutation's own transaction becomes a savepoint of it): the REST edge stores its
   * Idempotency-Key answer there, so the answer exists exactly when the write committed.
   */
  beforeCommit?: (result: OperationResult, sql: (text: string, params: unknown[]) => Promise<unknown>) => Promise<void>;
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

/** Operations run as one authenticated caller. */
export interface Session {
  /** The caller's token (idempotency keys are scoped to it). */
  tokenId: number;
  /** The caller's scopes (REST checks a route's scope before reading its body). */
  scopes: ReadonlySet<string>;
  run(request: OperationRequest): Promise<OperationResult>;
  /**
   * A page operation with its items written by PostgreSQL with `rendering`'s keys
   * (answer-passthrough.ts), or its errors; undefined when the rendering asks for what only
   * execution gives, or reads go to replicas (whose routing only execution knows): `run` answers.
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

/** Operations reading one consistent state of the store (see `Session.snapshot`). */
export interface Snapshot {
  run(request: Omit<OperationRequest, 'beforeCommit'>): Promise<OperationResult>;
  /**
   * A page operation sorted by id, its items as lines of JSON PostgreSQL writes with `rendering`'s
   * keys (answer-passthrough.ts), or its errors; undefined when the rendering asks for what only
   * execution gives: `run` answers it then.
   */
  lines(
    request: Omit<OperationRequest, 'beforeCommit' | 'inputChecked'>,
    rendering: Rendering,
  ): Promise<AnswerLines | OperationResult | undefined>;
  /** Ends the transaction and gives its connection back; safe to call more than once. */
  close(): Promise<void>;
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
  session(
    authorization: string | undefined,
    writes?: boolean,
  ): Promise<(Session | { errors: readonly GraphQLFormattedError[] }) & SessionHeaders>;
}

/** Read replicas, and how long after a token's write its reads must see that write (seconds). */
export interface ReplicaRouting {
  set: ReadReplicas;
  windowSeconds: number;
}

const CACHE_LIMIT = 1000;

/** An execution result as an operation's result (errors formatted as every edge shows them). */
const formatted = (result: ExecutionResult): OperationResult => ({
  data: (result.data as Record<string, unknown> | null | undefined) ?? null,
  errors: result.errors?.map((e) => formatError(e.toJSON(), e)),
});

interface Prepared {
  operation: string;
  document: DocumentNode;
}

/** A replica chosen for a read, and how to report that it went away mid-read. */
interface ReplicaTarget {
  name: string;
  em: GraphQLContext['em'];
  failed(): void;
}

/** A read the primary answers although replicas are configured, counted with why. */
function countOnPrimary(reason: FallbackReason): void {
  readsByTarget.inc({ target: 'primary' });
  readFallbacks.inc({ reason });
}

export function bearerOf(header: string | undefined): string | null {
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
  // Snapshots (exports) hold a pooled connection each for as long as their client reads: at most
  // half the pool, so the other requests always have connections.
  const SNAPSHOTS_MAX = Math.max(1, Math.floor((orm.config.get('pool')?.max ?? 10) / 2));
  let snapshotsOpen = 0;
  // Per request: whether it writes, and the WAL position its reads must see (read replicas only).
  // Keyed by the request's EntityManager, not the context: Apollo hands the executor a copy of it.
  const routing = new WeakMap<GraphQLContext['em'], { writes: boolean; waitLsn?: string }>();

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
    // Without replicas, nothing to decide: the document is not even looked at.
    const query = replicas !== undefined && getOperationAST(document, operationName)?.operation === 'query';
    const target = query ? replicaFor(context) : undefined;
    if (!target) return compiled(document, operationName, context, variables);
    const result = await compiled(
      document,
      operationName,
      { ...context, em: target.em, loaders: new Loaders(target.em) },
      variables,
    );
    if (result.errors?.some((error) => isCursorMiss(error.originalError))) {
      // A feed cursor this replica has not replayed yet: the primary has it (or refuses it for good).
      countOnPrimary('cursor_ahead');
      return compiled(document, operationName, context, variables);
    }
    if (!result.errors?.some((error) => isDatabaseUnavailable(error.originalError))) {
      readsByTarget.inc({ target: target.name });
      return result;
    }
    target.failed();
    countOnPrimary('read_failed');
    return compiled(document, operationName, context, variables);
  }

  /**
   * The replica a request's reads go to, or undefined for the primary (no replicas, a request that
   * writes, or none qualifies: then counted with why).
   */
  function replicaFor(context: GraphQLContext): ReplicaTarget | undefined {
    const route = routing.get(context.em);
    if (!replicas || !route || route.writes) return undefined;
    const { set } = replicas;
    const target = set.forRead(route.waitLsn);
    if (typeof target !== 'string') return { ...target, failed: () => set.failed(target.name) };
    countOnPrimary(target);
    return undefined;
  }

  /**
   * The caller's context, one statement: the token is checked and its bucket charged one request
   * together (every request, REST or GraphQL, costs at least one; a GraphQL operation that costs
   * more is charged the rest once it is measured). A refused charge is in `limit.allowed`.
   */
  async function contextFor(authorization: string | undefined, writes = true, carry = false): Promise<GraphQLContext> {
    const secret = bearerOf(authorization);
    if (!secret) throw new UnauthenticatedError();
    const hash = hashSecret(secret);
    // `carry`: a `/graphql` read by a caller seen before checks its token in the statement of its read.
    const carried = carry && !writes ? carriedContextOf(hash) : undefined;
    if (carried) return carried;
    const em = orm.em.fork();
    const tracking = replicas ? { writes, windowSeconds: replicas.windowSeconds } : undefined;
    const authentication = await checkToken(em, hash, limiter, 1, tracking);
    if (!authentication) throw new UnauthenticatedError();
    rememberToken(hash, authentication);
    const { principal, limit } = authentication;
    const context = { em, principal, loaders: new Loaders(em), limit, secretHash: hash };
    routing.set(em, { writes, waitLsn: authentication.waitLsn });
    return context;
  }

  /**
   * A `/graphql` read's context whose token check rides on the statement of its read (by a caller
   * seen before, src/auth/carried-token-check.ts; `answer` settles it), else undefined: the token is
   * checked first. Never with replicas: the check writes, so it runs on the primary, where such a
   * read may not.
   */
  function carriedContextOf(hash: string): GraphQLContext | undefined {
    const check = replicas ? undefined : carriedCheckFor(hash, limiter);
    if (!check) return undefined;
    const em = orm.em.fork();
    return { em, principal: check.principal, loaders: new Loaders(em), check, secretHash: hash };
  }

  /** `carriedContextOf` the request's bearer token (src/graphql/direct-queries.ts). */
  function carriedContext(authorization: string | undefined): GraphQLContext | undefined {
    const secret = bearerOf(authorization);
    return secret ? carriedContextOf(hashSecret(secret)) : undefined;
  }

  /**
   * A `/graphql` operation's result: PostgreSQL's answer where it can write one (never with
   * replicas, whose routing only execution knows), else executed. A request whose token check rides
   * on its read (src/auth/carried-token-check.ts) is answered only once the check has passed: an
   * unknown or revoked token, or a refused charge, gets its refusal instead of the result, and a
   * caller whose scopes changed since this process last saw them runs the operation again as they
   * are now (already charged).
   */
  async function answer(
    document: DocumentNode,
    operationName: string | null | undefined,
    context: GraphQLContext,
    variables: Record<string, unknown> | undefined,
  ): Promise<ExecutionResult> {
    const { check } = context;
    // Refused already (a request src/graphql/direct-queries.ts handed over): nothing more to read.
    if (check?.outcome === 'unauthenticated' || check?.outcome === 'refused') return { errors: [checkRefusal(check)] };
    if (check) {
      // The check rides on the read PostgreSQL answers; anything else settles it on its own first.
      const answered = await answerFromPostgres(schema, document, operationName, context, variables, check.companion());
      const outcome = await check.settle(context.em);
      if (outcome === 'passed') return answered ?? execute(document, operationName, context, variables);
      if (outcome !== 'changed') return { errors: [checkRefusal(check)] };
      context = { ...context, principal: check.principal, check: undefined };
    }
    const answered = replicas
      ? undefined
      : await answerFromPostgres(schema, document, operationName, context, variables);
    return answered ?? execute(document, operationName, context, variables);
  }

  /**
   * A document parsed (with Apollo's token limit) and validated (with the rules Apollo validates
   * with here) once, then run as often as REST or a repeated `/graphql` query asks for it
   * (compiled, see compiled-execution.ts; src/graphql/direct-queries.ts).
   */
  function prepared(source: string): Prepared | readonly GraphQLError[] {
    const cached = documents.get(source);
    if (cached) return cached;
    const document = parseOperation(schema, source);
    if (!('kind' in document)) return document;
    const entry = { operation: getOperationAST(document)?.operation ?? 'unknown', document };
    setBounded(documents, source, entry, CACHE_LIMIT);
    return entry;
  }

  async function run(contextValue: GraphQLContext, request: OperationRequest): Promise<OperationResult> {
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
  }

  /**
   * A snapshot transaction on a connection of its own, on a fork of its own (of the primary's or a
   * replica's EntityManager: a REPEATABLE READ READ ONLY transaction runs on a hot standby too).
   * Its fork is not in `routing`, so its operations run where the snapshot is. Each operation gets
   * fresh loaders and an empty identity map, so a long export keeps nothing of earlier pages.
   *
   * The connection is Kysely's single-connection scope rather than MikroORM's `begin`: that scope
   * gives the connection back to the pool however the work ends, while a transaction whose ROLLBACK
   * fails (the backend was terminated, the database restarted) would keep its pooled client checked
   * out for good. A dead client given back is dropped by the pool.
   */
  async function snapshot(context: GraphQLContext): Promise<Snapshot | undefined> {
    if (snapshotsOpen >= SNAPSHOTS_MAX) return undefined;
    snapshotsOpen++;
    try {
      return (await snapshotOnReplica(context)) ?? (await openSnapshot(context, context.em));
    } catch (error) {
      snapshotsOpen--;
      throw error;
    }
  }

  /**
   * The snapshot on a read replica when the request's reads may go to one (as a query's do); one
   * that cannot be opened there is opened on the primary. A replica that goes away mid-export cuts
   * the export (no complete line, so the client can tell), as a primary restart would.
   */
  async function snapshotOnReplica(context: GraphQLContext): Promise<Snapshot | undefined> {
    const target = replicaFor(context);
    if (!target) return undefined;
    try {
      const opened = await openSnapshot(context, target.em);
      readsByTarget.inc({ target: target.name });
      return opened;
    } catch (error) {
      if (!isDatabaseUnavailable(error)) throw error;
      target.failed();
      countOnPrimary('read_failed');
      return undefined;
    }
  }

  async function openSnapshot(context: GraphQLContext, on: GraphQLContext['em']): Promise<Snapshot> {
    const em = on.fork();
    let finish!: () => void;
    const finished = new Promise<void>((resolve) => (finish = resolve));
    let opened!: (connection: Kysely<unknown>) => void;
    const open = new Promise<Kysely<unknown>>((resolve) => (opened = resolve));
    const held = (em.getConnection().getClient() as Kysely<unknown>).connection().execute(async (connection) => {
      await connection.executeQuery(CompiledQuery.raw('begin isolation level repeatable read read only'));
      opened(connection);
      await finished;
      await connection.executeQuery(CompiledQuery.raw('rollback'));
    });
    const ended = held.then(() => Promise.reject(new Error('snapshot ended before it began')));
    const connection = await Promise.race([open, ended]);
    em.setTransactionContext(connection as never);
    let closed = false;
    return {
      run: (request) => {
        em.clear();
        return run({ ...context, em, loaders: new Loaders(em) }, request);
      },
      lines: async (request, rendering) => {
        const entry = prepared(request.document);
        if (!('document' in entry)) return run(context, request); // its validation errors
        graphqlOperations.inc({ type: entry.operation, via: 'rest' });
        em.clear();
        const own = { ...context, em, loaders: new Loaders(em) };
        const answer = await linesFromPostgres(schema, entry.document, own, request.variables, rendering);
        return !answer || 'parts' in answer ? answer : formatted(answer);
      },
      close: async () => {
        if (closed) return;
        closed = true;
        finish();
        // A failed ROLLBACK means the connection is gone: nothing of the snapshot outlives it.
        await held.catch(() => undefined);
        snapshotsOpen--;
      },
    };
  }

  /** A REST request: authenticated and charged one request at once (its operations are the service's own). */
  async function session(
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
        if (replicas) return undefined;
        const entry = prepared(request.document);
        if (!('document' in entry)) return run(context, request); // its validation errors
        graphqlOperations.inc({ type: entry.operation, via: 'rest' });
        const answer = await pageFromPostgres(schema, entry.document, context, request.variables, rendering);
        return answer && !('items' in answer) ? formatted(answer) : answer;
      },
      snapshot: () => snapshot(context),
      headers,
    };
  }

  /** Whether the bearer token holds the scope (for endpoints outside GraphQL, e.g. /metrics). */
  async function hasScope(
    authorization: string | undefined,
    scope: Scope,
  ): Promise<'ok' | 'unauthenticated' | 'forbidden'> {
    const secret = bearerOf(authorization);
    const authentication = secret ? await authenticate(orm.em.fork(), secret) : null;
    if (!authentication) return 'unauthenticated';
    return authentication.principal.scopes.has(scope) ? 'ok' : 'forbidden';
  }

  return {
    schema,
    limiter,
    answer,
    prepared,
    contextFor,
    carriedContext,
    session,
    hasScope,
  } satisfies GraphQLGateway & {
    limiter: RateLimiter | undefined;
    answer: typeof answer;
    prepared: typeof prepared;
    carriedContext: typeof carriedContext;
    contextFor: typeof contextFor;
    hasScope: typeof hasScope;
  };
}
