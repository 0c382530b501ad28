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
function countOnPrimary(reason: FallbackReason): void {
  readsByTarget.inc({ target: 'primary' });
  readFallbacks.inc({ reason });
}

/**
 * Where a request's reads go: `route` records, per request, whether it writes and the WAL position
 * its reads must see; `replicaFor` picks a replica from that, once per request; `routed` runs any
 * read there (PostgreSQL's own answer or an execution), and `execute` a document.
 */
export function createReplicaRouter(compiled: ReturnType<typeof compiledExecutor>, replicas?: ReplicaRouting) {
  // Per request: whether it writes, the WAL position its reads must see, and where they were sent
  // (read replicas only; null: the primary). Keyed by the request's EntityManager, not the context:
  // Apollo hands the executor a copy of it.
  const routing = new WeakMap<
    GraphQLContext['em'],
    { writes: boolean; waitLsn?: string; target?: ReplicaTarget | null }
  >();

  /** Records how the request of `em` routes its reads (see `contextFor`, request-context.ts). */
  function route(em: GraphQLContext['em'], writes: boolean, waitLsn: string | undefined): void {
    routing.set(em, { writes, waitLsn });
  }

  /**
   * Runs a read as the caller: on a read replica when one qualifies for a query of a request that
   * writes nothing (src/db/read-replicas.ts), else on the primary. A read the replica cannot answer
   * (it went away, or has not replayed the feed cursor asked for) runs again on the primary, so the
   * client never sees a replica's outage. `read` answering undefined read nothing (the caller
   * answers another way); `errorsOf` gives a result's errors.
   */
  async function routed<T>(
    context: GraphQLContext,
    query: boolean,
    read: (context: GraphQLContext) => Promise<T>,
    errorsOf: (result: T) => ExecutionResult['errors'],
  ): Promise<T> {
    const target = query ? replicaFor(context) : undefined;
    if (!target) return read(context);
    let result: T;
    try {
      result = await read({ ...context, em: target.em, loaders: new Loaders(target.em) });
    } catch (error) {
      if (!isDatabaseUnavailable(error)) throw error;
      target.failed();
      countOnPrimary('read_failed');
      return read(context);
    }
    if (result === undefined) return result;
    const errors = errorsOf(result) ?? [];
    if (errors.some((error) => isCursorMiss(error.originalError))) {
      // A feed cursor this replica has not replayed yet: the primary has it (or refuses it for good).
      countOnPrimary('cursor_ahead');
      return read(context);
    }
    if (!errors.some((error) => isDatabaseUnavailable(error.originalError))) {
      readsByTarget.inc({ target: target.name });
      return result;
    }
    target.failed();
    countOnPrimary('read_failed');
    return read(context);
  }

  /** Whether `document` runs a query (only then may it read on a replica); never looked at without replicas. */
  const isQuery = (document: DocumentNode, operationName: string | null | undefined) =>
    replicas !== undefined && getOperationAST(document, operationName)?.operation === 'query';

  /** Runs a document as the caller, where its reads go (`routed`). */
  function execute(
    document: DocumentNode,
    operationName: string | null | undefined,
    context: GraphQLContext,
    given?: Record<string, unknown> | null,
  ): Promise<ExecutionResult> {
    const variables = given ?? undefined;
    const run = async (on: GraphQLContext) => compiled(document, operationName, on, variables);
    return routed(context, isQuery(document, operationName), run, (result) => result.errors);
  }

  /**
   * The replica a request's reads go to, or undefined for the primary (no replicas, a request that
   * writes, or none qualifies: then counted with why). Decided once per request, so a request whose
   * answer is tried one way and then another is counted once; a replica that fails sends the rest
   * of the request's reads to the primary.
   */
  function replicaFor(context: GraphQLContext): ReplicaTarget | undefined {
    const route = routing.get(context.em);
    if (!replicas || !route || route.writes) return undefined;
    if (route.target !== undefined) return route.target ?? undefined;
    const { set } = replicas;
    const target = set.forRead(route.waitLsn);
    if (typeof target === 'string') {
      countOnPrimary(target);
      route.target = null;
      return undefined;
    }
    route.target = {
      ...target,
      failed: () => {
        set.failed(target.name);
        route.target = null;
      },
    };
    return route.target;
  }

  return { route, routed, isQuery, execute, replicaFor };
}

export type ReplicaRouter = ReturnType<typeof createReplicaRouter>;
