import { now } from '../clock.js';
import type { Order } from '../entities/order.entity.js';
import type { FulfilmentStatus } from '../schema/enums/order-status.enums.js';
import type { LineCounters } from './line-counters.js';

/**
 * Order status from the line counters (docs/decisions.md#order-status). Restocked units are out of "every unit";
 * an order whose every unit is restocked counts as 5.
 *   0 nothing fulfilled or shipped          3 every unit fulfilled, none shipped
 *   1 some fulfilled, not all, none shipped  4 every unit fulfilled or shipped, some not shipped
 *   2 not all fulfilled-or-shipped, some shipped   5 every unit shipped
 */
export function deriveStatus(items: readonly LineCounters[]): FulfilmentStatus {
  let notFulfilled = 0;
  let fulfilled = 0;
  let shipped = 0;
  for (const item of items) {
    notFulfilled += item.notFulfilled;
    fulfilled += item.fulfilled;
    shipped += item.shipped;
  }
  const live = notFulfilled + fulfilled + shipped;
  if (live === 0) return 5;
  if (fulfilled + shipped === 0) return 0;
  if (shipped === 0) return notFulfilled > 0 ? 1 : 3;
  if (notFulfilled > 0) return 2;
  return shipped < live ? 4 : 5;
}

/** Stores the derived status and marks the order updated; called by every counter move. */
export function settleOrder(order: Order, items: readonly LineCounters[]): void {
  order.status = deriveStatus(items);
  order.updatedAt = now();
}
