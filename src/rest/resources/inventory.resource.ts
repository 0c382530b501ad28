import { type FieldMap, field } from '../fields.js';
import type { RestResource } from '../resource.js';

/**
 * Inventory levels (docs/decisions.md#inventory-ledger): the units of one variant in one warehouse,
 * listed by GET /inventory-levels and answered by an adjustment.
 */
export const inventoryLevelResource: RestResource = {
  name: 'InventoryLevel',
  sortInput: 'InventoryLevelSort',
  fields: {
    id: field(),
    variant_id: field(),
    warehouse_id: field(),
    quantity: field({ description: 'units in stock' }),
  },
  expand: {},
};

/** The ledger's movements: every change to a level, with why and by whom (GET /inventory-movements). */
export const inventoryMovementResource: RestResource = {
  name: 'InventoryMovement',
  sortInput: 'InventoryMovementSort',
  fields: {
    id: field(),
    variant_id: field(),
    warehouse_id: field(),
    delta: field({ description: 'units added (positive) or taken (negative)' }),
    quantity_after: field({ description: 'units right after this movement' }),
    reason: field({
      description:
        'fulfilment, fulfilment_deleted, restock, set (by the service), or the reason of an adjustment: ' +
        'received, correction, damaged, cycle_count, other',
    }),
    reference: field({
      description: "the adjustment's reference, or the REST path of the record that moved the units",
    }),
    actor: field.nested({ token_id: field(), name: field() }, { description: 'the API token that made the change' }),
    created_at: field(),
  },
  expand: {},
};

/** POST /inventory-levels/adjustments: the body's keys are `adjustInventory`'s arguments. */
export const inventoryAdjustmentBody: FieldMap = {
  reason: field({ description: 'received, correction, damaged, cycle_count or other' }),
  reference: field({ description: 'your reference for it (a purchase order, a count sheet)' }),
  changes: field.nested({
    variant_id: field(),
    warehouse_id: field(),
    delta: field({ description: 'units to add (positive) or take (negative); not 0' }),
    change_from_quantity: field({
      description: 'the units you believe are there now: any other number refuses the whole adjustment (412)',
    }),
  }),
};
