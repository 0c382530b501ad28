import { type DocumentNode, type ExecutionResult, getOperationAST } from 'graphql';
import { isDatabaseUnavailable } from '../db/database-errors.js';
import type { FallbackReason, ReadReplicas } from '../db/read-replicas.js';
import { isCursorMiss } from '../domain/event-cursor.js';
import { readFallbacks, readsByTarget } from '../observability/metrics.js';
import type { GraphQLContext } from '../resolvers/context.js';
import { Loaders } from '../resolvers/loaders.js';
import type { compiledExecutor } from './compiled-execution.js';

/** Read replicas, and how long after a token's write its reads must see that write (seconds). */
export interface ReplicaRouting {
  set: ReadReplicas;
  windowSeconds: number;
}

/** A replica chosen for a read, and how to report that it went away mid-read. */
export interface ReplicaTarget {
  name: string;
  em: GraphQLContext['em'];
  failed(): void;
}

/** A read the primary answers although replicas are configured, counted with why. */
export function countOnPrimary(reason: FallbackReason): void {
  readsByTarget.inc({ target: 'primary' });
  readFallbacks.inc({ reason });
}

/**
 * Where a request's reads go: `route` records, per request, whether it writes and the WAL position
 * its reads must see; `replicaFor` picks a replica from that; `execute` runs a document there.
 */
export function createReplicaRouter(compiled: ReturnType<typeof compiledExecutor>, replicas?: ReplicaRouting) {
  // Per request: whether it writes, and the WAL position its reads must see (read replicas only).
  // Keyed by the request's EntityManager, not the context: Apollo hands the executor a copy of it.
  const routing = new WeakMap<GraphQLContext['em'], { writes: boolean; waitLsn?: string }>();

  /** Records how the request of `em` routes its reads (see `contextFor`, request-context.ts). */
  function route(em: GraphQLContext['em'], writes: boolean, waitLsn: string | undefined): void {
    routing.set(em, { writes, waitLsn });
  }

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

  return { route, execute, replicaFor };
}

export type ReplicaRouter = ReturnType<typeof createReplicaRouter>;
