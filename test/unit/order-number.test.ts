// Display numbers: prefix, id, suffix from the store's settings, and back (docs/decisions.md).
import fc from 'fast-check';
import { displayNumber, formatOf, idPartOf, PLAIN_NUMBERS } from '../../src/domain/order-number.js';

/** A prefix or suffix as a merchant sets it (no whitespace at the outer ends: a shown number is trimmed). */
const affix = fc.string({ maxLength: 6 }).filter((s) => s.trim() === s);

it('a shown number gives back the id it was made from, whatever the prefix and suffix', () => {
  fc.assert(
    fc.property(fc.integer({ min: 1, max: 2 ** 31 - 1 }), affix, affix, (id, prefix, suffix) => {
      const format = { prefix, suffix };
      const shown = displayNumber(id, format);
      expect(shown).toBe(`${prefix}${id}${suffix}`);
      expect(idPartOf(shown, format)).toBe(String(id));
    }),
  );
});

it('a store without settings shows bare ids, and a number typed without the affixes still finds the order', () => {
  expect(formatOf(null)).toEqual({ prefix: '', suffix: '' });
  expect(displayNumber(42, PLAIN_NUMBERS)).toBe('42');
  expect(idPartOf(' 42 ', { prefix: '#', suffix: '-A' })).toBe('42');
  expect(idPartOf('#42-A', formatOf({ orderNumberPrefix: '#', orderNumberSuffix: '-A' }))).toBe('42');
});
