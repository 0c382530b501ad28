// The writes of creating and deleting a fulfilment, each as one statement (issue 22: the write mix
// in fewer round trips). The domain code decides everything (docs/decisions.md#concurrency: under
// the order's lock, counters moved by moveUnits, stock by moveStock, status by settleOrder); these
// statements only store what it decided, in the transaction of the change, with the event.
import type { EntityManager } from '@mikro-orm/postgresql';
import { now } from '../clock.js';
import { runPrepared } from '../db/prepared-statements.js';
import type { Fulfilment } from '../entities/fulfilment.entity.js';
import type { LineItem } from '../entities/line-item.entity.js';
import type { Order } from '../entities/order.entity.js';
import type { EventRow } from './events.js';
import { orderRecordReference } from './inventory.js';

/** The lines whose counters moved, and the order's status, time and version after the change. */
const SETTLED = `lines as (
    update line_item l set not_fulfilled = x.not_fulfilled, fulfilled = x.fulfilled
    from unnest(?::int[], ?::int[], ?::int[]) x(id, not_fulfilled, fulfilled) where l.id = x.id
  ),
  settled as (update orders set status = ?, updated_at = ?, version = ? where id = ?)`;

const settledValues = (order: Order, lines: readonly LineItem[]) => [
  lines.map((l) => l.id),
  lines.map((l) => l.notFulfilled),
  lines.map((l) => l.fulfilled),
  order.status,
  order.updatedAt,
  order.version,
  order.id,
];

const EVENT_COLUMNS = 'type, created_at, actor_token_id, actor_name, subject, subject_id, order_id, data';
const eventValues = (event: EventRow) => [
  event.type,
  now(),
  event.actorTokenId,
  event.actorName,
  event.subject,
  event.subjectId,
  event.orderId,
  JSON.stringify(event.data),
];

const CREATE = `with fulfilment as (
    insert into fulfilment (order_id, warehouse_id, created_at, updated_at) values (?, ?, ?, ?) returning id
  ),
  items as (
    insert into fulfilment_item (fulfilment_id, line_item_id, quantity)
    select f.id, x.line, x.quantity
    from fulfilment f, unnest(?::int[], ?::int[]) with ordinality x(line, quantity, n) order by x.n
  ),
  ${SETTLED},
  event as (
    insert into event (${EVENT_COLUMNS})
    select ?, ?, ?, ?, ?, ?, ?, jsonb_set(?::jsonb, '{id}', to_jsonb(f.id)) from fulfilment f
  ),
  movements as (
    update inventory_movement m set reference = ?::text || f.id from fulfilment f where m.id = any(?::int[])
  )
select id from fulfilment`;

/**
 * Stores a new fulfilment with its items, the lines and order it settled and its event (whose
 * data gets the new fulfilment's id), and gives the stock movements it made (`movements`, written
 * before its id existed) its path as their reference; answers that id.
 */
export async function insertFulfilment(
  em: EntityManager,
  order: Order,
  fulfilment: Fulfilment,
  items: { lineItem: LineItem; quantity: number }[],
  event: EventRow,
  movements: number[],
): Promise<number> {
  const [row] = await runPrepared<{ id: number }>(em, CREATE, [
    order.id,
    fulfilment.warehouse?.id ?? null,
    fulfilment.createdAt,
    fulfilment.updatedAt,
    items.map((i) => i.lineItem.id),
    items.map((i) => i.quantity),
    ...settledValues(
      order,
      items.map((i) => i.lineItem),
    ),
    ...eventValues(event),
    `${orderRecordReference(order.id, 'fulfilments')}/`,
    movements,
  ]);
  return row.id;
}

const DELETE = `with items as (delete from fulfilment_item where fulfilment_id = ?),
  gone as (delete from fulfilment where id = ?),
  ${SETTLED},
  event as (insert into event (${EVENT_COLUMNS}) values (?, ?, ?, ?, ?, ?, ?, ?::jsonb))
select 1`;

/** Removes a fulfilment and its items, stores the lines and order it settled and its event. */
export async function removeFulfilment(
  em: EntityManager,
  order: Order,
  fulfilmentId: number,
  lines: LineItem[],
  event: EventRow,
): Promise<void> {
  await runPrepared(em, DELETE, [fulfilmentId, fulfilmentId, ...settledValues(order, lines), ...eventValues(event)]);
}
