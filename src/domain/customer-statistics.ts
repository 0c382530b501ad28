import type { EntityManager } from '@mikro-orm/postgresql';
import { lockCustomers } from './customer-lock.js';

/**
 * Each customer's derived figures as its orders make them (docs/decisions.md#customers): order_count,
 * lifetime_spent = Σ(total − refunded) over orders with paid ≠ 0, last_purchase = the latest order
 * date. A query of `(id, order_count, lifetime_spent, last_purchase)` rows for the customers `c2`
 * that `customers` (fixed SQL of our own; values go in as parameters) chooses. The domain refreshes
 * from it, and the seed fills a generated store from it.
 */
export function customerStatisticsQuery(customers: string): string {
  return `select c2.id,
      count(o.id)::int as order_count,
      coalesce(sum(o.total - o.refunded) filter (where o.paid <> 0), 0) as lifetime_spent,
      max(o.order_date) as last_purchase
    from customer c2 left join orders o on o.customer_id = c2.id
    where ${customers}
    group by c2.id`;
}

/**
 * Recomputes the derived columns of these customers from their orders, in the caller's
 * transaction. Called by every change that moves an order.
 */
export async function refreshCustomerStatistics(em: EntityManager, customerIds: number[]): Promise<void> {
  const ids = [...new Set(customerIds)].sort((a, b) => a - b);
  if (!ids.length) return;
  const connection = em.getConnection();
  const ctx = em.getTransactionContext();
  // Lock the customers first, in a statement of its own: the UPDATE below then takes its snapshot
  // after any concurrent order change for them has committed, so no sum is stale.
  await lockCustomers(em, ids);
  await connection.execute(
    `update customer c set
       order_count = s.order_count,
       lifetime_spent = s.lifetime_spent,
       last_purchase = s.last_purchase,
       version = c.version + 1
     from (${customerStatisticsQuery(`c2.id in (${ids.map(() => '?').join(', ')})`)}) s
     where c.id = s.id`,
    ids,
    'run',
    ctx,
  );
}
