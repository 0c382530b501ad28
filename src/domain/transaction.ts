import type { EntityManager } from '@mikro-orm/postgresql';

/**
 * One transaction per mutation, opened at the edge: the use case runs on a forked EntityManager
 * inside BEGIN…COMMIT; any throw rolls everything back, so a refused request changes nothing.
 */
export function inTransaction<T>(em: EntityManager, work: (em: EntityManager) => Promise<T>): Promise<T> {
  return em.transactional((tx) => work(tx as EntityManager));
}
