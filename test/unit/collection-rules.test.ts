// A rule-based collection's rules (docs/decisions.md#collections): each condition valid for its
// field, and a number for price and weight rules.
import fc from 'fast-check';
import { checkRules } from '../../src/domain/collection-edit.js';
import { DECIMAL } from '../../src/domain/collection-membership.js';
import type { FieldError } from '../../src/domain/errors.js';

/** The decision's table: title 0, vendor 1, type 2, price 3, tag 4, weight 5, variant title 6. */
const TEXT = [0, 1, 2, 3, 4];
const NUMERIC = [5, 6, 7, 8];
const ALLOWED: Record<number, number[]> = { 0: TEXT, 1: TEXT, 2: TEXT, 3: NUMERIC, 4: [0, 3, 4], 5: NUMERIC, 6: TEXT };

const errorsOf = (rules: { type: number; condition: number; value: string }[]) => {
  const errors: FieldError[] = [];
  checkRules(rules, errors);
  return errors;
};

it('accepts exactly the conditions the decision allows for each field', () => {
  fc.assert(
    fc.property(fc.integer({ min: -1, max: 8 }), fc.integer({ min: -1, max: 9 }), (type, condition) => {
      const errors = errorsOf([{ type, condition, value: '10' }]);
      const valid = ALLOWED[type]?.includes(condition) ?? false;
      expect(errors).toEqual(
        valid ? [] : [expect.objectContaining({ field: expect.stringMatching(/^rules\[0\]\.(type|condition)$/) })],
      );
    }),
  );
});

it('a price or weight rule takes a plain decimal and nothing else', () => {
  const decimal = fc
    .tuple(fc.boolean(), fc.nat(), fc.option(fc.nat()))
    .map(([minus, whole, part]) => `${minus ? '-' : ''}${whole}${part === null ? '' : `.${part}`}`);
  fc.assert(fc.property(decimal, (value) => expect(errorsOf([{ type: 3, condition: 7, value }])).toEqual([])));
  for (const value of ['1e3', '12,5', 'ten', '.5', '5.', '0x10', ' 5']) {
    expect(DECIMAL.test(value)).toBe(false);
    expect(errorsOf([{ type: 5, condition: 8, value }])).toEqual([
      { field: 'rules[0].value', message: 'must be a number for weight rules' },
    ]);
  }
  // Text fields take any text.
  expect(errorsOf([{ type: 0, condition: 3, value: '1e3' }])).toEqual([]);
});

it('names every bad rule by its index, and needs at least one rule', () => {
  expect(errorsOf([])).toEqual([{ field: 'rules', message: 'must hold at least one rule' }]);
  const errors = errorsOf([
    { type: 0, condition: 0, value: 'ok' },
    { type: 4, condition: 1, value: 'sale' },
    { type: 9, condition: 0, value: 'x' },
    { type: 1, condition: 0, value: '  ' },
  ]);
  expect(errors.map((e) => e.field)).toEqual(['rules[1].condition', 'rules[2].type', 'rules[3].value']);
});
