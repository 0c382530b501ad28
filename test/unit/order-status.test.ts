// Order status from the line counters (docs/decisions.md#order-status), as a pure rule: no database.
import fc from 'fast-check';
import type { LineCounters } from '../../src/domain/line-counters.js';
import { deriveStatus } from '../../src/domain/order-status.js';

/** A line in any state its counters can be in: quantity = the four buckets, each ≥ 0. */
const line = fc.tuple(fc.nat(20), fc.nat(20), fc.nat(20), fc.nat(20)).map(
  ([notFulfilled, fulfilled, shipped, restocked]): LineCounters => ({
    quantity: notFulfilled + fulfilled + shipped + restocked,
    notFulfilled,
    fulfilled,
    shipped,
    restocked,
  }),
);

/** The decision's six sentences, read literally over the order's units (restocked ones left out). */
function statusAsDecided(items: LineCounters[]): number {
  const sum = (bucket: keyof LineCounters) => items.reduce((n, item) => n + item[bucket], 0);
  const [notFulfilled, fulfilled, shipped] = [sum('notFulfilled'), sum('fulfilled'), sum('shipped')];
  const units = notFulfilled + fulfilled + shipped;
  const sentences: [number, boolean][] = [
    [0, units > 0 && fulfilled + shipped === 0],
    [1, fulfilled > 0 && notFulfilled > 0 && shipped === 0],
    [2, notFulfilled > 0 && shipped > 0],
    [3, units > 0 && fulfilled === units],
    [4, notFulfilled === 0 && shipped > 0 && shipped < units],
    [5, shipped === units],
  ];
  const holding = sentences.filter(([, holds]) => holds).map(([status]) => status);
  if (holding.length !== 1)
    throw new Error(`the decision gives ${holding.length} statuses for ${JSON.stringify(items)}`);
  return holding[0];
}

it('every combination of line counters has exactly the status the decision describes', () => {
  fc.assert(fc.property(fc.array(line, { maxLength: 6 }), (items) => deriveStatus(items) === statusAsDecided(items)));
});

it('restocked units do not count: an order whose every unit is restocked is 5', () => {
  expect(deriveStatus([{ quantity: 3, notFulfilled: 0, fulfilled: 0, shipped: 0, restocked: 3 }])).toBe(5);
  expect(deriveStatus([])).toBe(5);
});

it('reads all lines together: one line fully shipped and one untouched is 2, not 5', () => {
  const shipped = { quantity: 2, notFulfilled: 0, fulfilled: 0, shipped: 2, restocked: 0 };
  const untouched = { quantity: 1, notFulfilled: 1, fulfilled: 0, shipped: 0, restocked: 0 };
  expect(deriveStatus([shipped, untouched])).toBe(2);
});
