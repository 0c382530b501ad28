import type { EntityManager } from '@mikro-orm/postgresql';

/**
 * The catalogue's one lock order (docs/choices.md#versions-that-follow-relations): collections
 * before products, each kind in id order. A manual membership (a `collection_product` row) shows
 * on both sides (a product's `collections`, a collection's `match_products`), so a write that
 * changes it moves both records' versions and so locks both rows. Every catalogue write takes its
 * locks in this order, so a product write and a collection write that cross can wait for each
 * other but never deadlock.
 */

/** The tables whose rows this order covers (a whitelist: names never come from input). */
type CatalogueTable = 'collection' | 'product';

const distinctSorted = (ids: Iterable<number>) => [...new Set(ids)].sort((a, b) => a - b);
const placeholders = (ids: readonly number[]) => ids.map(() => '?').join(', ');

async function run<T>(em: EntityManager, sql: string, params: readonly unknown[] = []): Promise<T[]> {
  return em.getConnection().execute<T[]>(sql, [...params], 'all', em.getTransactionContext());
}

/**
 * Locks these rows (FOR NO KEY UPDATE, in id order) and returns the ids found. The mode conflicts
 * with every other write lock on the row, not with the KEY SHARE a new link row's foreign key takes.
 */
export async function lockCatalogueRows(em: EntityManager, table: CatalogueTable, ids: Iterable<number>): Promise<number[]> {
  const sorted = distinctSorted(ids);
  if (!sorted.length) return [];
  const rows = await run<{ id: number }>(em, `select id from ${table} where id in (${placeholders(sorted)}) order by id for no key update`, sorted);
  return rows.map((row) => row.id);
}

/**
 * Moves these records' versions on by one: something their shape shows changed through a write on
 * another record (a membership). The caller holds their locks, taken in the order above.
 */
export async function moveVersions(em: EntityManager, table: CatalogueTable, ids: Iterable<number>): Promise<void> {
  const sorted = distinctSorted(ids);
  if (!sorted.length) return;
  await run(em, `update ${table} set version = version + 1 where id in (${placeholders(sorted)})`, sorted);
}

/** The collections a product is linked to by hand (only manual collections have link rows). */
async function linkedCollectionIds(em: EntityManager, productId: number): Promise<number[]> {
  const rows = await run<{ collection_id: number }>(em, 'select collection_id from collection_product where product_id = ? order by collection_id', [productId]);
  return rows.map((row) => row.collection_id);
}

/**
 * Locks a product (FOR UPDATE) after the collections its write may touch: those it is linked to
 * and `joining`. Its links are read before the locks, and a collection write may add one in
 * between (it locks that collection, then the product); so they are read again under the product's
 * lock, and if a collection not yet locked appeared, every lock of this attempt is released (a
 * savepoint rolled back) and it starts again. Returns the product's links as they are now (no
 * other write can change them until commit), or null when the product does not exist.
 */
export async function lockProductAfterCollections(em: EntityManager, productId: number, joining: readonly number[]): Promise<number[] | null> {
  for (;;) {
    const locked = distinctSorted([...(await linkedCollectionIds(em, productId)), ...joining]);
    await run(em, 'savepoint catalogue_locks');
    await lockCatalogueRows(em, 'collection', locked);
    const found = await run(em, 'select id from product where id = ? for update', [productId]);
    const linked = await linkedCollectionIds(em, productId);
    if (linked.every((id) => locked.includes(id))) {
      await run(em, 'release savepoint catalogue_locks');
      return found.length ? linked : null;
    }
    await run(em, 'rollback to savepoint catalogue_locks');
  }
}

/** The ids in exactly one of the two lists: the members that join or leave. */
export function changedMembers(before: readonly number[], after: readonly number[]): number[] {
  const [was, is] = [new Set(before), new Set(after)];
  return distinctSorted([...before.filter((id) => !is.has(id)), ...after.filter((id) => !was.has(id))]);
}
