import type { EntityManager } from '@mikro-orm/postgresql';

/**
 * Locks customer rows, in id order, with FOR NO KEY UPDATE: it serialises every change of a
 * customer's profile or derived figures, yet does not conflict with the KEY SHARE lock an order
 * insert takes through its foreign key, so placing orders and locking customers cannot deadlock.
 * (Deleting a customer takes the stronger FOR UPDATE, which does wait for those inserts.)
 */
export async function lockCustomers(em: EntityManager, ids: number[]): Promise<void> {
  const sorted = [...new Set(ids)].sort((a, b) => a - b);
  if (!sorted.length) return;
  await em
    .getConnection()
    .execute(`select id from customer where id in (${sorted.map(() => '?').join(', ')}) order by id for no key update`, sorted, 'all', em.getTransactionContext());
}
