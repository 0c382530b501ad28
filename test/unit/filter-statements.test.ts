// A filtered statement is built once per filter shape (src/reads/filter-statements.ts): later
// filters of the shape bind their own values where the builder put the first ones, and a shape
// whose values the builder did not bind one-to-one is built every time.
import { filterStatement, type Statement } from '../../src/reads/filter-statements.js';

let key = 0;
/** A fresh cache key per test, so tests do not share compiled shapes. */
const fresh = () => `test ${++key}`;

/** A builder that binds the filter's values in reverse order of their walk, and counts its calls. */
function reversing() {
  const calls: unknown[] = [];
  const build = (where: { a: { $in: string[] }; b: { $gte: number } }) => (): Statement => {
    calls.push(where);
    return {
      sql: `a in (${where.a.$in.map(() => '?').join(', ')}) and b >= ?`,
      params: [where.b.$gte, ...where.a.$in.toReversed()],
    };
  };
  return { calls, build };
}

it('binds a later filter of the same shape in the places the builder put the first one', () => {
  const k = fresh();
  const { calls, build } = reversing();
  const first = { a: { $in: ['x', 'y'] }, b: { $gte: 3 } };
  expect(filterStatement(k, first, build(first)).params).toEqual([3, 'y', 'x']);
  const second = { a: { $in: ['p', 'q'] }, b: { $gte: 9 } };
  expect(filterStatement(k, second, build(second))).toEqual({ sql: 'a in (?, ?) and b >= ?', params: [9, 'q', 'p'] });
  expect(calls).toEqual([first]); // built once
  // Another list length is another shape: built again.
  const third = { a: { $in: ['p'] }, b: { $gte: 1 } };
  expect(filterStatement(k, third, build(third)).params).toEqual([1, 'p']);
  expect(calls).toEqual([first, third]);
});

it('builds every time a shape whose first values were not bound one-to-one', () => {
  const k = fresh();
  const { calls, build } = reversing();
  // The same value twice: which place is which cannot be told.
  const twice = { a: { $in: ['x', 'x'] }, b: { $gte: 3 } };
  filterStatement(k, twice, build(twice));
  const next = { a: { $in: ['p', 'q'] }, b: { $gte: 9 } };
  expect(filterStatement(k, next, build(next)).params).toEqual([9, 'q', 'p']);
  expect(calls).toEqual([twice, next]);
});

it('never caches a text that holds a value instead of binding it', () => {
  const k = fresh();
  let builds = 0;
  const inlined = (where: { name: string; n: number }) => (): Statement => {
    builds++;
    return { sql: `name = '${where.name}' and n = ?`, params: [where.n] };
  };
  filterStatement(k, { name: 'ann', n: 1 }, inlined({ name: 'ann', n: 1 }));
  expect(filterStatement(k, { name: 'bob', n: 2 }, inlined({ name: 'bob', n: 2 })).sql).toBe("name = 'bob' and n = ?");
  expect(builds).toBe(2);
});

it('builds every time a filter holding anything but plain objects, lists and values', () => {
  const k = fresh();
  let builds = 0;
  const at = new Date(0);
  const build = (): Statement => {
    builds++;
    return { sql: 'at >= ?', params: [at] };
  };
  filterStatement(k, { at: { $gte: at } }, build);
  filterStatement(k, { at: { $gte: at } }, build);
  expect(builds).toBe(2);
});
