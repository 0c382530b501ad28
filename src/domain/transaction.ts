import { setTimeout } from 'node:timers/promises';
import type { EntityManager } from '@mikro-orm/postgresql';
import { isConcurrentConflict } from '../db/database-errors.js';
import { activeTraceparent } from '../observability/tracing-state.js';

/**
 * One transaction per mutation, opened at the edge: the use case runs on a forked EntityManager
 * inside BEGIN…COMMIT; any throw rolls everything back, so a refused request changes nothing.
 * Its BEGIN raises the statement timeout for the transaction (a lock wait may be long under
 * contention): src/db/session-settings.ts writeTransactionsBegin.
 *
 * A mutation at the top that fails for what a concurrent write did (a deadlock, a foreign key to a
 * row deleted meanwhile) is run again, up to CONFLICT_ATTEMPTS times, on a cleared EntityManager.
 *
 * Nested in a transaction that is already the mutation's own (`asOneMutation`: a bulk line's
 * savepoint), the mutation joins it instead of opening a savepoint of its own, and a throw marks
 * it failed for its owner to roll back; nested anywhere else (an idempotent request's transaction,
 * which keeps its answer whatever the mutation did), it is a savepoint that rolls back alone.
 */
export async function inTransaction<T>(em: EntityManager, work: (em: EntityManager) => Promise<T>): Promise<T> {
  const own = ownTransactions.get(em.getTransactionContext() as object);
  if (own && !own.joined) return joined(em, own, work);
  if (em.getTransactionContext()) return em.transactional((tx) => traced(tx as EntityManager, work));
  // Its own transaction, at the top: one that another write's locks made fail (a deadlock, a row
  // deleted meanwhile) is run again from the start, everything it read read again.
  for (let attempt = 1; ; attempt++) {
    try {
      return await em.transactional((tx) => traced(tx as EntityManager, work));
    } catch (error) {
      if (attempt >= CONFLICT_ATTEMPTS || !isConcurrentConflict(error)) throw error;
      em.clear();
      await setTimeout(Math.random() * 10 * attempt);
    }
  }
}

/** Times a mutation's transaction is run when concurrent writes make it fail (see isConcurrentConflict). */
const CONFLICT_ATTEMPTS = 3;

/** A transaction that is one mutation's own: whether the mutation joined it, and whether it threw. */
interface OwnTransaction {
  joined: boolean;
  failed: boolean;
}

const ownTransactions = new WeakMap<object, OwnTransaction>();

/**
 * Runs `work` on `em`'s transaction (a savepoint, typically) as the transaction of the one mutation
 * `work` makes: that mutation's effects are everything the transaction writes, so its owner rolls
 * it back when `mutationFailed` (the mutation threw: its effects are undone, as its own savepoint
 * would have undone them), and keeps it otherwise, even when the answer around it holds errors.
 * A second mutation in it gets a savepoint of its own, as anywhere else.
 */
export async function asOneMutation<T>(
  em: EntityManager,
  work: (em: EntityManager) => Promise<T>,
): Promise<{ result: T; mutationFailed: boolean }> {
  const context = em.getTransactionContext() as object | undefined;
  if (!context) throw new Error('asOneMutation needs a transaction to own');
  const own: OwnTransaction = { joined: false, failed: false };
  ownTransactions.set(context, own);
  try {
    const result = await work(em);
    return { result, mutationFailed: own.failed };
  } finally {
    ownTransactions.delete(context);
  }
}

async function joined<T>(em: EntityManager, own: OwnTransaction, work: (em: EntityManager) => Promise<T>) {
  own.joined = true;
  try {
    const result = await traced(em, work);
    await em.flush(); // as the end of em.transactional would
    return result;
  } catch (error) {
    own.failed = true;
    throw error;
  }
}

async function traced<T>(tx: EntityManager, work: (em: EntityManager) => Promise<T>): Promise<T> {
  // Traced (only then): the webhook deliveries this write queues keep its trace (migration
  // webhook_trace_parent), and their attempts are spans of it.
  const traceparent = activeTraceparent();
  if (traceparent) await tx.execute(`select set_config('store.traceparent', ?, true)`, [traceparent]);
  return work(tx);
}
