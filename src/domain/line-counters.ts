/**
 * A line item's counters are exclusive buckets (docs/decisions.md#line-item-counters):
 * quantity = notFulfilled + fulfilled + shipped + restocked, always (CHECK constraints on line_item back it up).
 */
export interface LineCounters {
  quantity: number;
  notFulfilled: number;
  fulfilled: number;
  shipped: number;
  restocked: number;
}

export type Bucket = Exclude<keyof LineCounters, 'quantity'>;

/**
 * Moves units of a line from one bucket to another; a negative number moves them back. Every
 * counter move of the domain (fulfil, ship, restock and their undoing) and of the seed goes through
 * here. Callers refuse a move the state does not allow with a 409 first, so a bucket going
 * negative here is a bug, not a request to refuse.
 */
export function moveUnits(line: LineCounters, from: Bucket, to: Bucket, units: number): void {
  if (line[from] - units < 0 || line[to] + units < 0) {
    throw new Error(`cannot move ${units} unit(s) from ${from} (${line[from]}) to ${to} (${line[to]})`);
  }
  line[from] -= units;
  line[to] += units;
}

/** Units of one line that its records hold: in fulfilments, in shipments, in restocks. */
export interface LineRecords {
  inFulfilments: number;
  inShipments: number;
  restocked: number;
}

/**
 * The counters a line's records make: a fulfilment's units left notFulfilled, a shipment's left
 * fulfilled, a restock's left shipped. Undoing a record takes its units out of it again (deleting a
 * fulfilment or shipment, resizing a fulfilment) and a restocked unit stays in its shipment, so the
 * counters of any history are these sums moved in this order.
 */
export function countersFromRecords(quantity: number, records: LineRecords): LineCounters {
  const line: LineCounters = { quantity, notFulfilled: quantity, fulfilled: 0, shipped: 0, restocked: 0 };
  moveUnits(line, 'notFulfilled', 'fulfilled', records.inFulfilments);
  moveUnits(line, 'fulfilled', 'shipped', records.inShipments);
  moveUnits(line, 'shipped', 'restocked', records.restocked);
  return line;
}
