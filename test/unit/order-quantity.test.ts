// Quantities are positive whole numbers that fit the int4 columns (docs/decisions.md#references-and-quantities).
import fc from 'fast-check';
import type { FieldError } from '../../src/domain/errors.js';
import { INT4_MAX } from '../../src/domain/int4.js';
import { MAX_STOCK } from '../../src/domain/inventory.js';
import { checkQuantity } from '../../src/domain/order-state.js';

const check = (quantity: number, allowZero = false) => {
  const errors: FieldError[] = [];
  return { ok: checkQuantity(quantity, 'items[0].quantity', errors, allowZero), errors };
};

it('takes every whole number from 1 to the int4 maximum, and 0 only where zero is allowed', () => {
  fc.assert(
    fc.property(fc.integer({ min: 1, max: INT4_MAX }), (n) => expect(check(n)).toEqual({ ok: true, errors: [] })),
  );
  expect(check(0).ok).toBe(false);
  expect(check(0, true)).toEqual({ ok: true, errors: [] });
});

it('refuses fractions, negatives and numbers past the column, naming the field', () => {
  for (const n of [1.5, -1, INT4_MAX + 1, Number.NaN]) {
    expect(check(n)).toEqual({
      ok: false,
      errors: [{ field: 'items[0].quantity', message: 'must be a positive whole number' }],
    });
  }
  expect(check(-1, true).errors[0].message).toBe('must be a whole number ≥ 0');
  expect(MAX_STOCK).toBe(INT4_MAX);
});
