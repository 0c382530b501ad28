import type { EntityManager } from '@mikro-orm/postgresql';
import type { LineItem } from '../entities/line-item.entity.js';
import type { Order } from '../entities/order.entity.js';
import { Restock } from '../entities/restock.entity.js';
import { RestockItem } from '../entities/restock-item.entity.js';
import { Warehouse } from '../entities/warehouse.entity.js';
import type { RestockInput } from '../schema/inputs/fulfilment.inputs.js';
import { ConflictError, type FieldError } from './errors.js';
import { restockData } from './event-data.js';
import { type Actor, orderEventSubject, recordEvent } from './events.js';
import { moveStock, orderRecordReference } from './inventory.js';
import { moveUnits } from './line-counters.js';
import { checkQuantity, OrderState, throwIfAny } from './order-state.js';
import type { ExpectedVersion } from './preconditions.js';

/** Takes shipped units back into a warehouse's stock: shipped → restocked, stock grows. */
export async function restockOrderItems(
  em: EntityManager,
  actor: Actor,
  orderId: number,
  input: RestockInput,
  expected?: ExpectedVersion,
): Promise<Order> {
  const state = await OrderState.load(em, orderId, expected, [input.warehouse]);
  const errors: FieldError[] = [];
  const known = state.warehouseExists(input.warehouse, 'warehouse', errors);
  const warehouse = known ? em.getReference(Warehouse, input.warehouse) : null;
  if (!input.items.length) errors.push({ field: 'items', message: 'list at least one item' });
  const seen = new Set<number>();
  const planned: { line: LineItem; quantity: number; index: number }[] = [];
  input.items.forEach((item, i) => {
    const line = state.line(item.id, `items[${i}].id`, errors);
    const ok = checkQuantity(item.quantity, `items[${i}].quantity`, errors);
    if (seen.has(item.id)) errors.push({ field: `items[${i}].id`, message: 'each line item may appear once' });
    seen.add(item.id);
    if (line && ok) planned.push({ line, quantity: item.quantity, index: i });
  });
  throwIfAny(errors);
  for (const { line, quantity, index } of planned) {
    if (quantity > line.shipped)
      throw new ConflictError(`only ${line.shipped} unit(s) of line item ${line.id} are shipped`, `items[${index}]`);
  }
  const restock = Object.assign(new Restock(), { order: state.order, warehouse: warehouse! });
  em.persist(restock);
  const items: RestockItem[] = [];
  for (const { line, quantity } of planned) {
    moveUnits(line, 'shipped', 'restocked', quantity);
    const item = Object.assign(new RestockItem(), { restock, lineItem: line, quantity });
    em.persist(item);
    items.push(item);
  }
  // Stored first: its movements name it by its path, which needs its id.
  await em.flush();
  await moveStock(
    em,
    planned
      .filter(({ line }) => line.trackInventory && line.variant)
      .map(({ line, quantity, index }) => ({
        warehouseId: warehouse!.id,
        variantId: line.variant!.id,
        quantity: -quantity,
        label: `items[${index}]`,
      })),
    { reason: 'restock', reference: orderRecordReference(state.order.id, 'restocks', restock.id), actor },
  );
  const order = await state.settle();
  recordEvent(em, actor, 'restock.created', orderEventSubject(order), restockData(order, restock, items));
  return order;
}
