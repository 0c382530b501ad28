// Order amounts are exact: decimal strings through integer cents, never a float (docs/decisions.md).
import fc from 'fast-check';
import { fromCents, MAX_AMOUNT_CENTS, toCents } from '../../src/domain/money.js';
import { cartCents, totalCents } from '../../src/domain/order-amounts.js';

const cents = fc.bigInt({ min: -MAX_AMOUNT_CENTS, max: MAX_AMOUNT_CENTS });
const amount = fc.bigInt({ min: 0n, max: 10n ** 7n }).map(fromCents);

it('every amount of numeric(12,2) reads back as the cents it was written from', () => {
  fc.assert(
    fc.property(cents, (value) => {
      const text = fromCents(value);
      expect(text).toMatch(/^-?\d+\.\d{2}$/);
      expect(toCents(text)).toBe(value);
    }),
  );
});

it('reads one or no decimal digits as cents too, and refuses what is not an amount', () => {
  expect(toCents('12.5')).toBe(1250n);
  expect(toCents('7')).toBe(700n);
  expect(toCents(' -0.05 ')).toBe(-5n);
  for (const bad of ['1.234', 'abc', '1e3', '', '.5', '--1']) expect(() => toCents(bad)).toThrow(/not a money amount/);
});

it('the cart is Σ price × quantity exactly, where adding floats would not be', () => {
  expect(
    fromCents(
      cartCents([
        { price: '0.10', quantity: 1 },
        { price: '0.20', quantity: 1 },
      ]),
    ),
  ).toBe('0.30');
  expect(0.1 + 0.2).not.toBe(0.3);
  const lines = fc.array(fc.record({ price: amount, quantity: fc.integer({ min: 1, max: 1000 }) }), { maxLength: 20 });
  fc.assert(
    fc.property(lines, amount, amount, (items, shipping, tax) => {
      // The same sum in whole cents as plain integers (all far below 2^53 here).
      const cart = items.reduce((sum, line) => sum + Math.round(Number(line.price) * 100) * line.quantity, 0);
      expect(cartCents(items)).toBe(BigInt(cart));
      expect(totalCents(cartCents(items), shipping, tax)).toBe(BigInt(cart) + toCents(shipping) + toCents(tax));
    }),
  );
});
