import { type EntityManager, LockMode } from '@mikro-orm/postgresql';
import { Order } from '../entities/order.entity.js';
import { NotFoundError } from './errors.js';
import { beginVersionedWrite, type ExpectedVersion } from './preconditions.js';

/**
 * Every order mutation starts here: the order row is locked (`FOR UPDATE`) for the rest of the
 * transaction, so concurrent requests on one order, from any server process, run one at a time.
 * Under that lock the caller's expected version is compared (a stale one changes nothing) and
 * the order's version moves on: every write under an order changes the order's ETag.
 */
export async function lockOrder(em: EntityManager, id: number, expected?: ExpectedVersion): Promise<Order> {
  const order = await em.findOne(Order, { id }, { lockMode: LockMode.PESSIMISTIC_WRITE });
  if (!order) throw new NotFoundError('Order', id);
  beginVersionedWrite(`Order ${id}`, order, expected);
  return order;
}
