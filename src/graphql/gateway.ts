import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import type { DocumentNode, ExecutionResult, GraphQLFormattedError, GraphQLSchema } from 'graphql';
import type { Principal } from '../auth/api-tokens.js';
import type { RateLimiter } from '../auth/rate-limit.js';
import { answersByRoad } from '../observability/metrics.js';
import type { GraphQLContext } from '../resolvers/context.js';
import { Loaders } from '../resolvers/loaders.js';
import { answerFromPostgres, type Given } from './answer-passthrough.js';
import { compiledExecutor } from './compiled-execution.js';
import { createOperationRunner, type OperationRequest } from './operation-run.js';
import { createPreparedDocuments } from './prepared-documents.js';
import { createReplicaRouter, type ReplicaRouting } from './replica-routing.js';
import { createRequestContexts } from './request-context.js';
import { createRestSessions, type Session, type SessionHeaders } from './rest-session.js';
import { createSnapshots } from './snapshots.js';
import { checkRefusal } from './token-refusals.js';

// The gateway's surface, wherever each part lives.
export type { OperationRequest, OperationResult } from './operation-run.js';
export type { ReplicaRouting } from './replica-routing.js';
export { bearerOf } from './request-context.js';
export type { Session, SessionHeaders } from './rest-session.js';
export type { Snapshot } from './snapshots.js';

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
    carry?: boolean,
  ): Promise<(Session | { errors: readonly GraphQLFormattedError[] }) & SessionHeaders>;
}

/**
 * The execution side of the schema, put together from its parts: the caller's context
 * (request-context.ts), where reads go (replica-routing.ts), documents parsed and validated once
 * (prepared-documents.ts), REST's operations (operation-run.ts), sessions (rest-session.ts) and
 * snapshots (snapshots.ts); `answer` is a `/graphql` operation's result.
 */
export function createGateway(schema: GraphQLSchema, orm: MikroORM, limiter?: RateLimiter, replicas?: ReplicaRouting) {
  const compiled = compiledExecutor(schema);
  const router = createReplicaRouter(compiled, replicas);
  const { execute } = router;
  const prepared = createPreparedDocuments(schema);
  const { contextFor, hasScope } = createRequestContexts(orm, router, limiter, replicas);
  const run = createOperationRunner(prepared, execute);
  const snapshot = createSnapshots(orm, [compiled, schema], router, run, prepared);
  const session = createRestSessions({ schema, compiled, contextFor, prepared, run, snapshot, router });

  /**
   * A `/graphql` operation's result: PostgreSQL's answer where it can write one, else executed;
   * either on a read replica where the request's reads may go. A request whose token check rides
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
    if (check) {
      // The check rides on the read PostgreSQL answers; anything else settles it on its own first.
      const given: Given = [compiled, schema, document, context, variables];
      const answered = await answerFromPostgres(given, operationName, check.companion());
      const outcome = await check.settle(context.em);
      if (outcome === 'passed')
        return answered ? counted(answered) : executed(document, operationName, context, variables);
      if (outcome !== 'changed') return { errors: [checkRefusal(check)] };
      context = { ...context, principal: check.principal, check: undefined };
    }
    // On a read replica where the request's reads may go (replica-routing.ts), as an execution is.
    const answered = await router.routed(
      context,
      router.isQuery(document, operationName),
      (on) => answerFromPostgres([compiled, schema, document, on, variables], operationName),
      (result) => result?.errors,
    );
    return answered ? counted(answered) : executed(document, operationName, context, variables);
  }

  /** An answer PostgreSQL wrote, counted (`answers_by_road_total`: test/postgres-writes-json names every exception). */
  function counted(answer: ExecutionResult): ExecutionResult {
    answersByRoad.inc({ carrier: 'graphql', road: 'postgres' });
    return answer;
  }

  /** An operation executed, counted: a read here is one PostgreSQL could not write. */
  function executed(...args: Parameters<typeof execute>): Promise<ExecutionResult> {
    answersByRoad.inc({ carrier: 'graphql', road: 'executed' });
    return execute(...args);
  }

  /**
   * Operations as a caller authenticated and charged before, on `em`: a bulk operation's lines, as
   * the token that started it, in the runner's transaction (src/bulk/runner.ts). Nothing is
   * looked up or charged here.
   */
  function sessionAs(principal: Principal, em: EntityManager): Pick<Session, 'scopes' | 'run'> {
    const context: GraphQLContext = { em, principal, loaders: new Loaders(em) };
    return { scopes: principal.scopes, run: (request: OperationRequest) => run(context, request) };
  }

  return {
    schema,
    limiter,
    answer,
    contextFor,
    session,
    sessionAs,
    hasScope,
  } satisfies GraphQLGateway & {
    limiter: RateLimiter | undefined;
    answer: typeof answer;
    contextFor: typeof contextFor;
    sessionAs: typeof sessionAs;
    hasScope: typeof hasScope;
  };
}
