// seo_url slugs: derived from a title, ASCII words joined by hyphens, at most 80 characters, and
// made unique with the first free `-2`, `-3`, … (docs/decisions.md#product-patch).
import fc from 'fast-check';
import { firstFreeSlug, SLUG, slugBase, slugify } from '../../src/domain/slug.js';

it('any title gives a valid slug of at most 80 characters, or nothing (then the fallback)', () => {
  fc.assert(
    fc.property(fc.string({ unit: 'grapheme', maxLength: 200 }), (title) => {
      const slug = slugify(title);
      if (slug !== '') expect(slug).toMatch(SLUG);
      expect(slug.length).toBeLessThanOrEqual(80);
      expect(slugBase(title, 'product')).toBe(slug || 'product');
    }),
  );
});

it('transliterates and cuts a long title at a word boundary', () => {
  expect(slugify('Crème Brûlée & Café')).toBe('creme-brulee-and-cafe');
  const long = slugify(`${'word '.repeat(30)}end`);
  expect(long.length).toBeLessThanOrEqual(80);
  expect(long).toMatch(/^(word-)*word$/);
  expect(slugBase('!!!', 'collection')).toBe('collection');
});

it('the first free suffix is taken, never one already taken', () => {
  const slug = fc.stringMatching(/^[a-z]{1,8}$/);
  fc.assert(
    fc.property(slug, fc.uniqueArray(fc.integer({ min: 1, max: 12 }), { maxLength: 12 }), (base, numbers) => {
      const taken = new Set(numbers.map((n) => (n === 1 ? base : `${base}-${n}`)));
      const free = firstFreeSlug(base, taken);
      expect(taken.has(free)).toBe(false);
      const n = free === base ? 1 : Number(free.slice(base.length + 1));
      for (let smaller = 1; smaller < n; smaller++)
        expect(taken.has(smaller === 1 ? base : `${base}-${smaller}`)).toBe(true);
    }),
  );
});
