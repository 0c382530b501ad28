import type { EntityManager } from '@mikro-orm/postgresql';
import { Order } from '../entities/order.entity.js';
import type { SortTerm } from '../schema/pagination.js';
import { NotFoundError } from './errors.js';
import { orderByOf } from './listing.js';

/**
 * The page on which an order lies in the list sorted the same way: one COUNT of the rows that sort
 * before it, in SQL. "Before" follows PostgreSQL's order exactly (ASC puts NULLs last, DESC
 * first) and ends on the id tie-breaker, so the answer agrees with the list even on ties.
 */
export async function pageOfOrder(em: EntityManager, id: number, size: number, sort: readonly SortTerm[] | undefined, columns: Record<string, string>): Promise<number> {
  const meta = em.getMetadata().get(Order);
  const keys = orderByOf(sort, columns).map((term) => {
    const [property, direction] = Object.entries(term)[0];
    return { column: `"${meta.properties[property as keyof Order].fieldNames[0]}"`, desc: direction === 'desc' };
  });
  const before = (k: (typeof keys)[number]) =>
    k.desc ? `(o.${k.column} is null and t.${k.column} is not null) or o.${k.column} > t.${k.column}` : `(t.${k.column} is null and o.${k.column} is not null) or o.${k.column} < t.${k.column}`;
  const clauses = keys.map((k, i) => [...keys.slice(0, i).map((p) => `o.${p.column} is not distinct from t.${p.column}`), `(${before(k)})`].join(' and '));
  const [row] = await em.getConnection().execute<{ found: number; before: number }[]>(
    `with t as (select * from orders where id = ?)
     select (select count(*) from t)::int as found,
            (select count(*) from orders o, t where ${clauses.map((c) => `(${c})`).join(' or ')})::int as before`,
    [id],
  );
  if (!row.found) throw new NotFoundError('Order', id);
  return Math.floor(row.before / size) + 1;
}
