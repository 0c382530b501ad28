import type { EntityManager } from '@mikro-orm/postgresql';
import { now } from '../clock.js';
import { runPrepared } from '../db/prepared-statements.js';
import { ConflictError } from './errors.js';
import type { Actor } from './events.js';
import { INT4_MAX } from './int4.js';
import type { MovementReason } from './inventory-reasons.js';

/** The most units one inventory level holds (the column is a 32-bit integer). */
export const MAX_STOCK = INT4_MAX;

export interface StockMove {
  warehouseId: number;
  variantId: number;
  /** Positive takes units out of the warehouse, negative puts them back. */
  quantity: number;
  /** Says which line of the request the move is for, in a refusal. */
  label: string;
}

/** Why units move, as every movement of the ledger records it (docs/decisions.md#inventory-ledger). */
export interface MovementWhy {
  reason: MovementReason;
  /** The record the change belongs to (its REST path) or the caller's own reference; null for none. */
  reference: string | null;
  actor: Actor | null;
}

/**
 * The REST path of a record under an order (`orders/12/fulfilments/34`; without an id, the order's
 * list of them): the reference of the stock movements that record made.
 */
export function orderRecordReference(orderId: number, records: 'fulfilments' | 'restocks', id?: number): string {
  return `orders/${orderId}/${records}${id === undefined ? '' : `/${id}`}`;
}

/** The columns of a movement a statement writes, after its variant, warehouse, delta and units after. */
export const MOVEMENT_COLUMNS =
  'variant_id, warehouse_id, delta, quantity_after, reason, reference, actor_token_id, actor_name, created_at';

/** The values of the columns after the units: reason, reference, actor and time. */
export const movementWhyValues = (why: MovementWhy) => [
  why.reason,
  why.reference,
  why.actor?.tokenId ?? null,
  why.actor?.name ?? null,
  now(),
];

// Each statement changes one level and records its movement (delta, units after) in one round trip.
const TAKE = `with level as (
    update inventory_level set quantity = quantity - ? where warehouse_id = ? and variant_id = ? and quantity >= ?
    returning variant_id, warehouse_id, quantity
  )
  insert into inventory_movement (${MOVEMENT_COLUMNS})
  select variant_id, warehouse_id, ?, quantity, ?, ?, ?, ?, ? from level returning id`;

// Returning units must not overflow the integer column (a 500 otherwise): refused instead. The
// variant and warehouse are held FOR KEY SHARE: one deleted since the order's lines were read (a
// product PATCH or delete does not wait for the order) has nothing to put back into, as a line whose
// variant is gone has none (fulfilment.ts stockMove), instead of failing the level's foreign key.
const PUT_BACK = `with target as (
    select v.id as variant_id, w.id as warehouse_id from product_variant v, warehouse w
    where v.id = ? and w.id = ? for key share
  ), level as (
    insert into inventory_level (warehouse_id, variant_id, quantity) select warehouse_id, variant_id, ? from target
    on conflict (warehouse_id, variant_id) do update set quantity = inventory_level.quantity + excluded.quantity
    where inventory_level.quantity <= ${MAX_STOCK} - excluded.quantity
    returning variant_id, warehouse_id, quantity
  ), moved as (
    insert into inventory_movement (${MOVEMENT_COLUMNS})
    select variant_id, warehouse_id, ?, quantity, ?, ?, ?, ?, ? from level returning id
  )
  select (select id from moved) as id, exists (select 1 from target) as present`;

// The stock of a product's variants about to be deleted leaves as one movement a level, to zero, in
// the deletion's transaction: the level itself would go by the foreign key's cascade, unrecorded.
// The variants are locked first, then their levels in (warehouse, variant) order as every stock move
// takes them, so a put-back (which holds its variant FOR KEY SHARE before its level) finishes first
// and its units leave with the rest. `?::int[]` null: every variant of the product.
const RETIRE = `with doomed as (
    select id from product_variant where product_id = ? and (?::int[] is null or id = any(?::int[]))
    order by id for update
  ), locked as (
    select warehouse_id, variant_id from inventory_level where variant_id in (select id from doomed)
    order by warehouse_id, variant_id for update
  ), gone as (
    delete from inventory_level l using locked k where l.warehouse_id = k.warehouse_id and l.variant_id = k.variant_id
    returning l.variant_id, l.warehouse_id, l.quantity
  )
  insert into inventory_movement (${MOVEMENT_COLUMNS})
  select variant_id, warehouse_id, -quantity, 0, ?, ?, ?, ?, ? from gone where quantity > 0`;

/**
 * Takes the units of variants of `productId` (`variantIds`, or all of them for null) out of every
 * warehouse before the variants are deleted, recording each level's last movement (`why`: a `set`
 * to zero by the product's write): every change is recorded (docs/decisions.md#inventory-ledger).
 */
export async function retireStock(
  em: EntityManager,
  productId: number,
  variantIds: number[] | null,
  why: MovementWhy,
): Promise<void> {
  if (variantIds?.length === 0) return;
  await runPrepared(em, RETIRE, [productId, variantIds, variantIds, ...movementWhyValues(why)]);
}

/** A put-back whose variant or warehouse no longer exists. */
const GONE = Symbol('gone');

/** Takes `move.quantity` units: the movement's id, or null when fewer are there. */
async function take(em: EntityManager, move: StockMove, why: MovementWhy): Promise<number | null> {
  const [row] = await runPrepared<{ id: number }>(em, TAKE, [
    move.quantity,
    move.warehouseId,
    move.variantId,
    move.quantity,
    -move.quantity,
    ...movementWhyValues(why),
  ]);
  return row?.id ?? null;
}

/** Puts `-move.quantity` units back: the movement's id, null when they would overflow, or GONE. */
async function putBack(em: EntityManager, move: StockMove, why: MovementWhy): Promise<number | null | typeof GONE> {
  const [row] = await runPrepared<{ id: number | null; present: boolean }>(em, PUT_BACK, [
    move.variantId,
    move.warehouseId,
    -move.quantity,
    -move.quantity,
    ...movementWhyValues(why),
  ]);
  return row.present ? row.id : GONE;
}

/**
 * Applies stock moves in the caller's transaction, in (warehouse, variant) order so that two
 * transactions touching the same rows always lock them in the same order (no deadlock; an
 * adjustment locks its levels in this order too, src/domain/inventory-adjustment.ts). Taking is one
 * conditional UPDATE: it succeeds only while enough units are there, so concurrent fulfilments can
 * never oversell; the CHECK (quantity >= 0) backs it up. Each move's movement is written by the
 * same statement, with `why`. Answers the ids of the movements written.
 */
export async function moveStock(em: EntityManager, moves: StockMove[], why: MovementWhy): Promise<number[]> {
  const merged = new Map<string, StockMove>();
  for (const move of moves) {
    const key = `${move.warehouseId}:${move.variantId}`;
    const seen = merged.get(key);
    if (seen) seen.quantity += move.quantity;
    else merged.set(key, { ...move });
  }
  const ordered = [...merged.values()]
    .filter((m) => m.quantity !== 0)
    .sort((a, b) => a.warehouseId - b.warehouseId || a.variantId - b.variantId);
  const written: number[] = [];
  for (const move of ordered) {
    const taking = move.quantity > 0;
    const id = taking ? await take(em, move, why) : await putBack(em, move, why);
    if (id === GONE) continue; // the variant (or warehouse) is gone: nothing to put back
    if (id === null) {
      const message = taking
        ? `warehouse ${move.warehouseId} has fewer than ${move.quantity} units of variant ${move.variantId} in stock`
        : `warehouse ${move.warehouseId} cannot hold ${-move.quantity} more units of variant ${move.variantId}`;
      throw new ConflictError(message, move.label || undefined);
    }
    written.push(id);
  }
  return written;
}
