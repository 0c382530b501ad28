// Product PATCH variants (docs/decisions.md#product-patch): given variants replace the set, a
// variant keeps its row (its id) while its combination of option values is unchanged, every value
// belongs to its option, combinations are unique and at most one is the default.
import fc from 'fast-check';
import type { FieldError } from '../../src/domain/errors.js';
import { planVariants, type VariantState } from '../../src/domain/product-variants.js';
import type { Product } from '../../src/entities/product.entity.js';
import type { ProductVariant } from '../../src/entities/product-variant.entity.js';
import type { ProductFields, VariantInput } from '../../src/schema/inputs/product.inputs.js';

const SIZES = ['S', 'M', 'L'];
const COLOURS = ['red', 'blue'];
const COMBINATIONS = SIZES.flatMap((size) => COLOURS.map((colour) => [size, colour]));

const product = { isMulti: true, price: '10.00', comparePrice: null, sku: 'SKU' } as unknown as Product;
const stateWith = (combinations: string[][]): VariantState => ({
  options: [
    { title: 'Size', values: SIZES },
    { title: 'Colour', values: COLOURS },
  ] as unknown as VariantState['options'],
  thumbnails: [],
  variants: combinations.map(
    (optionValues, i) => ({ id: i + 1, optionValues, isDefault: i === 0 }) as unknown as ProductVariant,
  ),
});
const variantOf = (combination: string[], extra: Partial<VariantInput> = {}) =>
  ({ variant: combination, price: '10.00', ...extra }) as VariantInput;

function plan(state: VariantState, variants: VariantInput[]) {
  const errors: FieldError[] = [];
  const result = planVariants(product, { variants } as ProductFields, state, false, errors);
  return { ...result, errors };
}

it('a variant keeps its row exactly when its combination is unchanged; the others are removed', () => {
  const subset = fc.subarray(COMBINATIONS, { minLength: 1 });
  fc.assert(
    fc.property(subset, fc.shuffledSubarray(COMBINATIONS, { minLength: 1 }), (existing, given) => {
      const state = stateWith(existing);
      const { slots, removed, errors } = plan(
        state,
        given.map((c) => variantOf(c)),
      );
      expect(errors).toEqual([]);
      slots.forEach((slot, i) => {
        expect(slot.combination).toEqual(given[i]);
        expect(slot.row?.optionValues ?? null).toEqual(existing.find((c) => c.join() === given[i].join()) ?? null);
      });
      const kept = new Set(given.map((c) => c.join()));
      expect(removed.map((row) => row.optionValues.join()).sort()).toEqual(
        existing
          .filter((c) => !kept.has(c.join()))
          .map((c) => c.join())
          .sort(),
      );
    }),
  );
});

it('refuses a value outside its option, a wrong number of values, a repeated combination and a second default', () => {
  const { errors } = plan(stateWith([]), [
    variantOf(['S', 'green']),
    variantOf(['M']),
    variantOf(['L', 'red'], { default: true }),
    variantOf(['L', 'red'], { default: true }),
  ]);
  expect(errors.map((e) => e.field)).toEqual([
    'variants[0].variant[1]',
    'variants[1].variant',
    'variants[3].variant',
    'variants[3].default',
  ]);
  expect(errors[0].message).toBe('"green" is not a value of option Colour (red, blue)');
});

it('the default is the one the body names, else the kept row stays default', () => {
  const state = stateWith([
    ['S', 'red'],
    ['M', 'red'],
  ]);
  expect(plan(state, [variantOf(['M', 'red']), variantOf(['S', 'red'])]).slots.map((s) => s.isDefault)).toEqual([
    false,
    true,
  ]);
  expect(
    plan(state, [variantOf(['M', 'red'], { default: true }), variantOf(['S', 'red'])]).slots.map((s) => s.isDefault),
  ).toEqual([true, false]);
});
