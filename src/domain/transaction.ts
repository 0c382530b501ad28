import type { EntityManager } from '@mikro-orm/postgresql';
import { activeTraceparent } from '../observability/tracing-state.js';

/**
 * One transaction per mutation, opened at the edge: the use case runs on a forked EntityManager
 * inside BEGIN…COMMIT; any throw rolls everything back, so a refused request changes nothing.
 * Its BEGIN raises the statement timeout for the transaction (a lock wait may be long under
 * contention): src/db/session-settings.ts writeTransactionsBegin. Nested (a bulk line's savepoint),
 * the transaction around it has raised it already.
 */
export function inTransaction<T>(em: EntityManager, work: (em: EntityManager) => Promise<T>): Promise<T> {
  return em.transactional(async (tx) => {
    // Traced (only then): the webhook deliveries this write queues keep its trace (migration
    // webhook_trace_parent), and their attempts are spans of it.
    const traceparent = activeTraceparent();
    if (traceparent) await tx.execute(`select set_config('store.traceparent', ?, true)`, [traceparent]);
    return work(tx as EntityManager);
  });
}
