import type { EntityManager } from '@mikro-orm/postgresql';
import { ConflictError } from './errors.js';
import { INT4_MAX } from './int4.js';

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

/**
 * Applies stock moves in the caller's transaction, in (warehouse, variant) order so that two
 * transactions touching the same rows always lock them in the same order (no deadlock). Taking
 * is one conditional UPDATE: it succeeds only while enough units are there, so concurrent
 * fulfilments can never oversell; the CHECK (quantity >= 0) backs it up.
 */
export async function moveStock(em: EntityManager, moves: StockMove[]): Promise<void> {
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
  const connection = em.getConnection();
  const ctx = em.getTransactionContext();
  for (const move of ordered) {
    if (move.quantity > 0) {
      const result = await connection.execute<{ affectedRows: number }>(
        'update inventory_level set quantity = quantity - ? where warehouse_id = ? and variant_id = ? ' +
          'and quantity >= ?',
        [move.quantity, move.warehouseId, move.variantId, move.quantity],
        'run',
        ctx,
      );
      if (!result.affectedRows) {
        throw new ConflictError(
          `warehouse ${move.warehouseId} has fewer than ${move.quantity} units of variant ${move.variantId} in stock`,
          move.label || undefined,
        );
      }
    } else {
      // Returning units must not overflow the integer column (a 500 otherwise): refuse instead.
      const result = await connection.execute<{ affectedRows: number }>(
        `insert into inventory_level (warehouse_id, variant_id, quantity) values (?, ?, ?)
         on conflict (warehouse_id, variant_id) do update set quantity = inventory_level.quantity + excluded.quantity
         where inventory_level.quantity <= ${MAX_STOCK} - excluded.quantity`,
        [move.warehouseId, move.variantId, -move.quantity],
        'run',
        ctx,
      );
      if (!result.affectedRows) {
        throw new ConflictError(
          `warehouse ${move.warehouseId} cannot hold ${-move.quantity} more units of variant ${move.variantId}`,
          move.label || undefined,
        );
      }
    }
  }
}
