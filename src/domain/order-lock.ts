import { LockMode, type EntityManager } from '@mikro-orm/postgresql';
import { Order } from '../entities/order.entity.js';
import { NotFoundError } from './errors.js';
import { checkPrecondition } from './preconditions.js';

/**
 * Every order mutation starts here: the order row is locked (`FOR UPDATE`) for the rest of the
 * transaction, so concurrent requests on one order, from any server process, run one at a time.
 */
export async function lockOrder(em: EntityManager, id: number): Promise<Order> {
  const order = await em.findOne(Order, { id }, { lockMode: LockMode.PESSIMISTIC_WRITE });
  if (!order) throw new NotFoundError('Order', id);
  checkPrecondition('Order', id, order.version);
  return order;
}
