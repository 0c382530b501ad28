import type { EntityManager } from '@mikro-orm/postgresql';
import { WRITE_STATEMENT_TIMEOUT_MS } from '../db/statement-timeouts.js';
import { activeTraceparent } from '../observability/tracing-state.js';

/**
 * One transaction per mutation, opened at the edge: the use case runs on a forked EntityManager
 * inside BEGIN…COMMIT; any throw rolls everything back, so a refused request changes nothing.
 * The statement timeout is raised for the transaction (a lock wait may be long under contention).
 */
export function inTransaction<T>(em: EntityManager, work: (em: EntityManager) => Promise<T>): Promise<T> {
  return em.transactional(async (tx) => {
    // Reads run under a short statement timeout (the pool's); a write may wait on row locks longer.
    await tx.execute(`set local statement_timeout = ${WRITE_STATEMENT_TIMEOUT_MS}`);
    // Traced (only then): the webhook deliveries this write queues keep its trace (migration
    // webhook_trace_parent), and their attempts are spans of it.
    const traceparent = activeTraceparent();
    if (traceparent) await tx.execute(`select set_config('store.traceparent', ?, true)`, [traceparent]);
    return work(tx as EntityManager);
  });
}
