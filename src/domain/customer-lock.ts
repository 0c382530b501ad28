import type { EntityManager } from '@mikro-orm/postgresql';

/**
 * Locks customer rows, in id order, with FOR NO KEY UPDATE: it serialises every change of a
 * customer's profile or derived figures, yet does not conflict with the KEY SHARE lock an order
 * insert takes through its foreign key, so placing orders and locking customers cannot deadlock.
 * (Deleting a customer takes the stronger FOR UPDATE, which does wait for those inserts.)
 * Answers the ids among them of customers that were erased (docs/decisions.md#erasing-a-customer),
 * whom a write may then refuse to touch.
 */
export async function lockCustomers(em: EntityManager, ids: number[]): Promise<number[]> {
  const sorted = [...new Set(ids)].sort((a, b) => a - b);
  if (!sorted.length) return [];
  const rows = await em
    .getConnection()
    .execute<{ id: number; erased: boolean }[]>(
      `select id, erased_at is not null as erased from customer where id in (${sorted.map(() => '?').join(', ')}) ` +
        'order by id for no key update',
      sorted,
      'all',
      em.getTransactionContext(),
    );
  return rows.filter((row) => row.erased).map((row) => row.id);
}

async function run<T>(em: EntityManager, sql: string, params: readonly unknown[] = []): Promise<T[]> {
  return em.getConnection().execute<T[]>(sql, [...params], 'all', em.getTransactionContext());
}

async function orderIdsOf(em: EntityManager, customerId: number, lock = '', also: number[] = []): Promise<number[]> {
  const others = also.length ? ` or id in (${also.map(() => '?').join(', ')})` : '';
  const sql = `select id from orders where customer_id = ?${others} order by id${lock}`;
  const rows = await run<{ id: number }>(em, sql, [customerId, ...also]);
  return rows.map((row) => row.id);
}

/**
 * Locks a customer after its orders (docs/choices.md#versions-that-follow-relations): an order
 * shows its customer's e-mail and name, so a write that changes them moves the orders' versions
 * too, and order mutations lock the order before its customers. The orders are locked by
 * customer first (FOR NO KEY UPDATE, id order); an order moved to this customer before the
 * customer's lock is taken was not among them, so they are read again under it and, if one
 * appeared, this attempt's locks are released (a savepoint rolled back) and it starts again.
 * Under the customer's lock no order can join (placing or moving one locks the customer).
 * Orders of other customers in `also` are locked with the customer's, in the same id order.
 * Returns the customer's order ids.
 */
export async function lockCustomerAfterOrders(em: EntityManager, id: number, also: number[] = []): Promise<number[]> {
  for (;;) {
    await run(em, 'savepoint customer_orders');
    const locked = await orderIdsOf(em, id, ' for no key update', also);
    await lockCustomers(em, [id]);
    const orders = await orderIdsOf(em, id);
    if (orders.every((order) => locked.includes(order))) {
      await run(em, 'release savepoint customer_orders');
      return orders;
    }
    await run(em, 'rollback to savepoint customer_orders');
  }
}

/** Moves these orders' versions on: their customer block changed with their customer. */
export async function moveOrderVersions(em: EntityManager, ids: readonly number[]): Promise<void> {
  if (!ids.length) return;
  await run(em, `update orders set version = version + 1 where id in (${ids.map(() => '?').join(', ')})`, ids);
}
