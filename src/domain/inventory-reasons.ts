// Why units of a variant moved in a warehouse (docs/decisions.md#inventory-ledger): every movement
// names one. The entity's CHECK lists the same words (src/entities/inventory-movement.entity.ts).

/** The reasons the service writes itself, for the changes it makes. */
export const SERVICE_REASONS = ['fulfilment', 'fulfilment_deleted', 'restock', 'set'] as const;

/** The reasons a caller gives an adjustment (`adjustInventory`, `POST /inventory-levels/adjustments`). */
export const ADJUSTMENT_REASONS = ['received', 'correction', 'damaged', 'cycle_count', 'other'] as const;

/** Every reason a movement can have. */
export const MOVEMENT_REASONS = [...SERVICE_REASONS, ...ADJUSTMENT_REASONS] as const;

export type MovementReason = (typeof MOVEMENT_REASONS)[number];
export type AdjustmentReason = (typeof ADJUSTMENT_REASONS)[number];

export function isAdjustmentReason(value: string): value is AdjustmentReason {
  return (ADJUSTMENT_REASONS as readonly string[]).includes(value);
}
