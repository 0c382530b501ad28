import type { EntityManager } from '@mikro-orm/postgresql';
import { runPrepared } from '../db/prepared-statements.js';
import { Order } from '../entities/order.entity.js';
import type { SortTerm } from '../schema/pagination.js';
import { NotFoundError } from './errors.js';
import { countQuery, orderByOf } from './listing.js';

/**
 * The page on which an order lies in the list sorted the same way: one COUNT of the rows that sort
 * before it, in SQL. "Before" follows PostgreSQL's order exactly (ASC puts NULLs last, DESC
 * first) and ends on the id tie-breaker, so the answer agrees with the list even on ties.
 */
export async function pageOfOrder(
  em: EntityManager,
  id: number,
  size: number,
  sort: readonly SortTerm[] | undefined,
  columns: Record<string, string>,
): Promise<number> {
  const meta = em.getMetadata().get(Order);
  const keys = orderByOf(sort, columns).map((term) => {
    const [property, direction] = Object.entries(term)[0];
    const prop = meta.properties[property as keyof Order];
    return { column: `"${prop.fieldNames[0]}"`, desc: direction === 'desc', nullable: Boolean(prop.nullable) };
  });
  const before = (k: (typeof keys)[number]) => {
    const compare = `o.${k.column} ${k.desc ? '>' : '<'} t.${k.column}`;
    if (!k.nullable) return compare;
    return k.desc
      ? `(o.${k.column} is null and t.${k.column} is not null) or ${compare}`
      : `(t.${k.column} is null and o.${k.column} is not null) or ${compare}`;
  };
  // NOT NULL keys in one direction (the common case, e.g. `!total` then the id): one row comparison,
  // which PostgreSQL answers with a range scan of the composite sort index. Otherwise key by key.
  const simple = keys.every((k) => !k.nullable && k.desc === keys[0].desc);
  const key = `"${meta.properties[meta.primaryKeys[0] as keyof Order].fieldNames[0]}"`;
  let counted: string;
  if (keys.length === 1 && keys[0].column === key) {
    counted = byKey(keys[0].desc, key, countQuery(em, Order, {}).sql);
  } else if (simple) {
    const [these, its] = [keys.map((k) => `o.${k.column}`), keys.map((k) => `t.${k.column}`)];
    counted =
      `select count(*) from orders o where (${these.join(', ')}) ` +
      `${keys[0].desc ? '>' : '<'} (select ${its.join(', ')} from orders t where t.id = ?)`;
  } else {
    // Before on the first key, or tied on it and before on the next, and so on.
    const tiedThenBefore = keys.map((k, i) => [
      ...keys.slice(0, i).map((p) => `o.${p.column} is not distinct from t.${p.column}`),
      `(${before(k)})`,
    ]);
    const condition = tiedThenBefore.map((terms) => `(${terms.join(' and ')})`).join(' or ');
    counted = `select count(*) from orders o, (select * from orders where id = ?) t where ${condition}`;
  }
  // Prepared with the id bound, as every read (one text per sort, not per order), so the token
  // check can ride on it (db/prepared-statements.ts).
  const [row] = await runPrepared<{ found: number; before: number }>(
    em,
    `select (select count(*) from orders where id = ?)::int as found, (${counted})::int as before`,
    [id, id],
  );
  if (!row.found) throw new NotFoundError('Order', id);
  return Math.floor(row.before / size) + 1;
}

/**
 * The rows before an order in key order, counted on the smaller side of it. Ids are handed out in
 * order, so the middle of the key range is about the middle of the table: an order in the half
 * that comes first is counted directly, one in the other half as every row (the exact total of
 * the table's row counts, or a count where it has none) less the rows from it on. Half the index
 * entries read on average against counting one side always; exact either way (one snapshot).
 */
function byKey(desc: boolean, id: string, total: string): string {
  const [before, fromIt] = desc ? ['>', '<='] : ['<', '>='];
  const count = (op: string) => `(select count(*) from orders o where o.${id} ${op} t.${id})`;
  const firstHalf = desc ? '>=' : '<';
  return (
    `select case when t.${id} ${firstHalf} (select (min(${id})::bigint + max(${id})) / 2 from orders) ` +
    `then ${count(before)} else (${total}) - ${count(fromIt)} end from orders t where t.${id} = ?`
  );
}
