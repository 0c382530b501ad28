// The one set of input limits (docs/operations.md#input-limits), checked on any JSON input
// before anything else reads it.
import fc from 'fast-check';
import { INPUT_LIMITS, inputProblems } from '../../src/domain/input-limits.js';

const nested = (depth: number): unknown => (depth === 0 ? 'leaf' : { a: nested(depth - 1) });

it('ordinary JSON within the limits has no problems', () => {
  fc.assert(fc.property(fc.jsonValue({ maxDepth: 8 }), (value) => expect(inputProblems(value)).toEqual([])));
});

it('names the field of each value over a limit', () => {
  expect(inputProblems({ title: 'x'.repeat(INPUT_LIMITS.text + 1) })).toEqual([
    { field: 'title', message: 'must be at most 100000 characters' },
  ]);
  expect(inputProblems({ items: [{ sku: 'a\u0000b' }] })).toEqual([
    { field: 'items[0].sku', message: 'must not contain the NUL character' },
  ]);
  expect(inputProblems({ note: '\uD800' })[0]).toMatchObject({
    field: 'note',
    message: expect.stringMatching(/unpaired surrogate/),
  });
  expect(inputProblems({ ids: new Array(INPUT_LIMITS.list + 1).fill(1) })).toEqual([
    { field: 'ids', message: 'may hold at most 1000 values' },
  ]);
  expect(inputProblems({ n: Number.POSITIVE_INFINITY })).toEqual([
    { field: 'n', message: 'is outside the range of numbers' },
  ]);
  expect(inputProblems({ ['k'.repeat(INPUT_LIMITS.text + 1)]: 1 })[0].message).toMatch(/^key must be at most/);
});

it('nesting is bounded: 32 levels pass, one more is a problem, and no depth overflows the stack', () => {
  expect(inputProblems(nested(INPUT_LIMITS.depth))).toEqual([]);
  expect(inputProblems(nested(INPUT_LIMITS.depth + 1))).toEqual([
    { field: `a${'.a'.repeat(INPUT_LIMITS.depth - 1)}`, message: 'nests deeper than 32 levels' },
  ]);
  let deep: unknown = 'leaf';
  for (let i = 0; i < 100_000; i++) deep = [deep];
  expect(inputProblems(deep)).toHaveLength(1);
});

it('filters take tighter limits and no empty "any of" list; an answer names at most 20 problems', () => {
  expect(inputProblems({ q: 'x'.repeat(INPUT_LIMITS.filterText + 1) }, { filter: true, root: 'filter' })).toEqual([
    { field: 'filter.q', message: 'must be at most 1000 characters' },
  ]);
  expect(inputProblems({ status: [] }, { filter: true })).toEqual([
    { field: 'status', message: 'must list at least one value' },
  ]);
  expect(inputProblems({ status: new Array(INPUT_LIMITS.filterValues + 1).fill(0) }, { filter: true })[0].message).toBe(
    'may hold at most 100 values',
  );
  expect(inputProblems(new Array(50).fill('\u0000'))).toHaveLength(INPUT_LIMITS.reported);
});
