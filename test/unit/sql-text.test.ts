// The statement text a trace records (docs/operations.md#traces): instrumentation-pg's request hook
// puts sqlWithoutValues(text) in `db.query.text`, so a value MikroORM inlined is never in a span.
import fc from 'fast-check';
import { sqlWithoutValues } from '../../src/observability/sql-text.js';

it('replaces the values MikroORM inlines, and keeps identifiers, aliases and key words', () => {
  expect(
    sqlWithoutValues(
      `update "orders" as "o0" set "notes" = 'bulk four', "version" = "o0"."version" + 1 where "o0"."id" = 1`,
    ),
  ).toBe(`update "orders" as "o0" set "notes" = ?, "version" = "o0"."version" + ? where "o0"."id" = ?`);
  expect(sqlWithoutValues(`select set_config('store.traceparent', '00-4bf92f3577b34da6-01', true)`)).toBe(
    'select set_config(?, ?, true)',
  );
  expect(sqlWithoutValues('select r0.id, t1.x2 from t as t1 join r as r0 on r0.t_id = t1.id limit 25 offset 50')).toBe(
    'select r0.id, t1.x2 from t as t1 join r as r0 on r0.t_id = t1.id limit ? offset ?',
  );
  expect(
    sqlWithoutValues(`insert into "customer" ("email", "erased") values ('a@b.example', false), (null, true)`),
  ).toBe('insert into "customer" ("email", "erased") values (?, false), (null, true)');
});

it('takes a quote inside a string for the string (doubled, or escaped in an E string)', () => {
  expect(sqlWithoutValues(`select 'it''s -- not a comment', x`)).toBe('select ?, x');
  expect(sqlWithoutValues(`select E'back\\\\slash \\' still inside', x`)).toBe('select ?, x');
  expect(sqlWithoutValues(`where "notes" =  E'a\\\\b'`)).toBe(`where "notes" =  ?`);
  expect(sqlWithoutValues(`select B'1010', X'1F', N'nom', U&'d\\0061t\\+000061', e'x'`)).toBe('select ?, ?, ?, ?, ?');
  expect(sqlWithoutValues(`select 'unterminated, secret`)).toBe('select ?');
});

it('replaces dollar-quoted strings and keeps $n placeholders', () => {
  expect(sqlWithoutValues("select $$a 'quoted' $1$$, $tag$x $$ y$tag$ where id = $1 and b = $12")).toBe(
    'select ?, ? where id = $1 and b = $12',
  );
  expect(sqlWithoutValues('select $body$never closed')).toBe('select ?');
});

it('replaces numbers of every form, not digits of a name, a quoted name or a placeholder', () => {
  expect(sqlWithoutValues('select 42, -7, 3.14, .5, 1e-3, 2.5E+10, 1_000, 0x1F, 0o17, 0b101, 5.')).toBe(
    'select ?, -?, ?, ?, ?, ?, ?, ?, ?, ?, ?',
  );
  expect(sqlWithoutValues('select "col 1", "a""9", e2, _3, x$4 from t9 where a[2:3] = $3')).toBe(
    'select "col 1", "a""9", e2, _3, x$4 from t9 where a[?:?] = $3',
  );
});

it('keeps casts, operators and comments', () => {
  expect(sqlWithoutValues(`select '{"a":1}'::jsonb ->> 'a', '2024-01-31'::date, 7::int8`)).toBe(
    'select ?::jsonb ->> ?, ?::date, ?::int8',
  );
  expect(sqlWithoutValues(`select interval '1 day', date '2024-01-31'`)).toBe('select interval ?, date ?');
  expect(sqlWithoutValues("select 1 -- it's 2\n, /* a /* nested 'x' */ 3 */ 4")).toBe(
    "select ? -- it's 2\n, /* a /* nested 'x' */ 3 */ ?",
  );
  expect(sqlWithoutValues('select * from t where id = $1')).toBe('select * from t where id = $1');
});

it('never lets a string value through, whatever it holds', () => {
  fc.assert(
    fc.property(fc.string({ minLength: 1 }), fc.boolean(), (value, backslash) => {
      const quoted = `'${value.replaceAll("'", "''")}'`;
      const literal = backslash ? `E${quoted.replaceAll('\\', '\\\\')}` : quoted;
      expect(sqlWithoutValues(`update "t" set "v" = ${literal} where "t0"."id" = 5`)).toBe(
        'update "t" set "v" = ? where "t0"."id" = ?',
      );
    }),
  );
});
