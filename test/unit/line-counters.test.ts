// A line item's counters are exclusive buckets (docs/decisions.md#line-item-counters): every move keeps
// quantity = not_fulfilled + fulfilled + shipped + restocked, and none goes negative.
import fc from 'fast-check';
import { type Bucket, countersFromRecords, type LineCounters, moveUnits } from '../../src/domain/line-counters.js';

const buckets: Bucket[] = ['notFulfilled', 'fulfilled', 'shipped', 'restocked'];
const total = (line: LineCounters) => line.notFulfilled + line.fulfilled + line.shipped + line.restocked;

it('any sequence of moves keeps the four buckets summing to the quantity, each ≥ 0', () => {
  const move = fc.record({
    from: fc.constantFrom(...buckets),
    to: fc.constantFrom(...buckets),
    units: fc.integer({ min: -5, max: 5 }),
  });
  fc.assert(
    fc.property(fc.nat(50), fc.array(move, { maxLength: 30 }), (quantity, moves) => {
      const line: LineCounters = { quantity, notFulfilled: quantity, fulfilled: 0, shipped: 0, restocked: 0 };
      for (const { from, to, units } of moves) {
        const before = { ...line };
        try {
          moveUnits(line, from, to, units);
        } catch {
          expect(line).toEqual(before); // a refused move changes nothing
        }
        expect(total(line)).toBe(quantity);
        for (const bucket of buckets) expect(line[bucket]).toBeGreaterThanOrEqual(0);
      }
    }),
  );
});

it('refuses a move that would take a bucket below zero', () => {
  const line: LineCounters = { quantity: 2, notFulfilled: 2, fulfilled: 0, shipped: 0, restocked: 0 };
  expect(() => moveUnits(line, 'notFulfilled', 'fulfilled', 3)).toThrow(/cannot move 3/);
  expect(() => moveUnits(line, 'notFulfilled', 'fulfilled', -1)).toThrow();
  expect(line).toEqual({ quantity: 2, notFulfilled: 2, fulfilled: 0, shipped: 0, restocked: 0 });
});

it('the counters of a line follow from its records: fulfilled, shipped and restocked units', () => {
  const records = fc
    .tuple(fc.nat(40), fc.nat(40), fc.nat(40), fc.nat(40))
    .map(([restocked, shippedOnly, fulfilledOnly, open]) => ({
      quantity: restocked + shippedOnly + fulfilledOnly + open,
      records: {
        restocked,
        inShipments: restocked + shippedOnly,
        inFulfilments: restocked + shippedOnly + fulfilledOnly,
      },
      expected: { notFulfilled: open, fulfilled: fulfilledOnly, shipped: shippedOnly, restocked },
    }));
  fc.assert(
    fc.property(records, ({ quantity, records, expected }) => {
      expect(countersFromRecords(quantity, records)).toEqual({ quantity, ...expected });
    }),
  );
});
