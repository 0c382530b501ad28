// The baseline of the write mix (issue 22): creating and deleting a fulfilment by hand, in one
// transaction each, with the rules the service keeps (docs/decisions.md#concurrency): the order's
// row locked first, then one statement that checks the quantities (409 when short), moves the
// line counters and the stock (409 when short), writes the record and the event and derives the
// order's status; after COMMIT the order is read back as the answer. Bench code only: no
// validation beyond what the write mix sends (one warehouse, lines of the order).
import type pg from 'pg';

export type Query = (text: string, params?: unknown[]) => Promise<pg.QueryResult>;
/** Runs `work` on one connection between BEGIN and COMMIT (ROLLBACK when it throws). */
export type Transaction = <T>(work: (query: Query) => Promise<T>) => Promise<T>;

/** A pool's transaction; `count` sees every statement sent, BEGIN and COMMIT included. */
export function poolTransaction(pool: pg.Pool, count: () => void = () => {}): Transaction {
  return async (work) => {
    const client = await pool.connect();
    const query: Query = (text, params) => {
      count();
      return client.query(text, params);
    };
    try {
      await query('begin');
      const result = await work(query);
      await query('commit');
      return result;
    } catch (error) {
      await query('rollback');
      throw error;
    } finally {
      client.release();
    }
  };
}

/** A refusal: the transaction rolls back and the client gets this status. */
export class WriteRefused extends Error {
  constructor(readonly status: number) {
    super(String(status));
  }
}

const NOW = `date_trunc('second', now())`;
const epoch = (column: string) => `floor(extract(epoch from ${column}))::bigint`;

/** The order's status from its lines after the change (`moved` holds the changed lines' counters). */
const SETTLED = `totals as (
    select sum(coalesce(m.not_fulfilled, l.not_fulfilled)) as nf, sum(coalesce(m.fulfilled, l.fulfilled)) as fu,
      sum(coalesce(m.shipped, l.shipped)) as sh
    from line_item l left join moved m on m.id = l.id where l.order_id = $1
  ),
  settled as (
    select case when nf + fu + sh = 0 then 5 when fu + sh = 0 then 0
      when sh = 0 then (case when nf > 0 then 1 else 3 end)
      when nf > 0 then 2 when sh < nf + fu + sh then 4 else 5 end as status from totals
  ),
  ordered as (
    update orders set status = settled.status, updated_at = ${NOW}, version = version + 1 from settled where id = $1
  )`;

const CREATE = `with input as (select * from unnest($2::int[], $3::int[]) x(line, quantity)),
  moved as (
    update line_item l set not_fulfilled = l.not_fulfilled - i.quantity, fulfilled = l.fulfilled + i.quantity
    from input i where l.id = i.line and l.order_id = $1 and l.not_fulfilled >= i.quantity
    returning l.id, l.variant_id, l.track_inventory, i.quantity, l.not_fulfilled, l.fulfilled, l.shipped
  ),
  stock as (
    update inventory_level s set quantity = s.quantity - m.quantity from moved m
    where m.track_inventory and s.warehouse_id = $4 and s.variant_id = m.variant_id and s.quantity >= m.quantity
    returning s.variant_id
  ),
  record as (
    insert into fulfilment (order_id, warehouse_id, created_at, updated_at) values ($1, $4, ${NOW}, ${NOW})
    returning id, created_at
  ),
  items as (
    insert into fulfilment_item (fulfilment_id, line_item_id, quantity)
    select r.id, m.id, m.quantity from record r, moved m
  ),
  ${SETTLED},
  event as (
    insert into event (type, created_at, actor_token_id, actor_name, subject, subject_id, order_id, data)
    select 'fulfilment.created', r.created_at, $5::int, $6::text, 'order', $1, $1,
      jsonb_build_object('order_id', $1::int, 'order_status', s.status,
      'id', r.id, 'warehouse', $4::int, 'created_at', ${epoch('r.created_at')}, 'updated_at', ${epoch('r.created_at')},
      'items', (select jsonb_agg(jsonb_build_object('id', m.id, 'quantity', m.quantity) order by m.id) from moved m))
    from record r, settled s
  )
select (select count(*) from moved)::int as moved, (select count(*) from moved where track_inventory)::int as tracked,
  (select count(*) from stock)::int as stocked`;

const DELETE = `with record as (
    select id, warehouse_id, created_at, updated_at from fulfilment where id = $2 and order_id = $1
  ),
  shipped as (select count(*)::int as n from shipment s join record r on s.fulfilment_id = r.id),
  items as (
    delete from fulfilment_item i using record r where i.fulfilment_id = r.id and (select n from shipped) = 0
    returning i.line_item_id, i.quantity
  ),
  moved as (
    update line_item l set not_fulfilled = l.not_fulfilled + i.quantity, fulfilled = l.fulfilled - i.quantity
    from items i where l.id = i.line_item_id
    returning l.id, l.variant_id, l.track_inventory, i.quantity, l.not_fulfilled, l.fulfilled, l.shipped
  ),
  stock as (
    insert into inventory_level (warehouse_id, variant_id, quantity)
    select r.warehouse_id, m.variant_id, m.quantity from moved m, record r
    where m.track_inventory and m.variant_id is not null and r.warehouse_id is not null
    on conflict (warehouse_id, variant_id) do update set quantity = inventory_level.quantity + excluded.quantity
  ),
  gone as (delete from fulfilment f using record r where f.id = r.id and (select n from shipped) = 0),
  ${SETTLED},
  event as (
    insert into event (type, created_at, actor_token_id, actor_name, subject, subject_id, order_id, data)
    select 'fulfilment.deleted', ${NOW}, $3::int, $4::text, 'order', $1, $1,
      jsonb_build_object('order_id', $1::int, 'order_status', s.status, 'id', r.id, 'warehouse', r.warehouse_id,
      'created_at', ${epoch('r.created_at')}, 'updated_at', ${epoch('r.updated_at')},
      'items', (select jsonb_agg(jsonb_build_object('id', m.id, 'quantity', m.quantity) order by m.id) from moved m))
    from record r, settled s where (select n from shipped) = 0
  )
select (select count(*) from record)::int as found, (select n from shipped) as shipped`;

export interface Actor {
  id: number;
  name: string;
}

async function lockOrder(query: Query, orderId: number): Promise<void> {
  const { rowCount } = await query('select 1 from orders where id = $1 for update', [orderId]);
  if (!rowCount) throw new WriteRefused(404);
}

/** POST /orders/{id}/fulfilments of the write mix: `{ items: [{ id, quantity, warehouse }] }`. */
export async function createFulfilment(
  transaction: Transaction,
  actor: Actor,
  orderId: number,
  body: Record<string, unknown>,
): Promise<void> {
  const items = (body.items ?? []) as { id: number; quantity: number; warehouse?: number }[];
  if (!items.length || items.some((i) => !Number.isInteger(i.quantity) || i.quantity < 1)) throw new WriteRefused(422);
  const warehouse = items.find((i) => i.warehouse != null)?.warehouse ?? null;
  await transaction(async (query) => {
    await lockOrder(query, orderId);
    let row: { moved: number; tracked: number; stocked: number };
    try {
      const values = [orderId, items.map((i) => i.id), items.map((i) => i.quantity), warehouse, actor.id, actor.name];
      [row] = (await query(CREATE, values)).rows;
    } catch (error) {
      if ((error as { code?: string }).code === '23503') throw new WriteRefused(422); // no such warehouse
      throw error;
    }
    if (row.moved < items.length || row.stocked < row.tracked) throw new WriteRefused(409);
  });
}

/** DELETE /orders/{id}/fulfilments/{fid}: 404 for a fulfilment not in the order, 409 when it has shipments. */
export async function deleteFulfilment(
  transaction: Transaction,
  actor: Actor,
  orderId: number,
  fulfilmentId: number,
): Promise<void> {
  await transaction(async (query) => {
    await lockOrder(query, orderId);
    const [row] = (await query(DELETE, [orderId, fulfilmentId, actor.id, actor.name])).rows;
    if (!row.found) throw new WriteRefused(404);
    if (row.shipped) throw new WriteRefused(409);
  });
}
