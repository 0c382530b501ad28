import type { EntityManager } from '@mikro-orm/postgresql';

/**
 * The catalogue's one lock order (docs/choices.md#versions-that-follow-relations): collections,
 * then customers, then products, each kind in id order. A manual membership (a `collection_product`
 * row) shows on both sides (a product's `collections`, a collection's `match_products`), and a
 * product's tags show in the `tags` of every customer who bought it; a write that changes such a
 * thing moves the other side's versions too, and so locks those rows. Every catalogue write takes
 * its locks in this order, and order placement agrees with it (it locks the customer, then takes a
 * key-share lock on each product it sells through the line item's foreign key), so crossing writes
 * can wait for each other but never deadlock.
 */

/** The tables whose rows this order covers (a whitelist: names never come from input). */
type CatalogueTable = 'collection' | 'customer' | 'product';

const distinctSorted = (ids: Iterable<number>) => [...new Set(ids)].sort((a, b) => a - b);
const placeholders = (ids: readonly number[]) => ids.map(() => '?').join(', ');

async function run<T>(em: EntityManager, sql: string, params: readonly unknown[] = []): Promise<T[]> {
  return em.getConnection().execute<T[]>(sql, [...params], 'all', em.getTransactionContext());
}

/**
 * Locks these rows (FOR NO KEY UPDATE, in id order) and returns the ids found. The mode conflicts
 * with every other write lock on the row, not with the KEY SHARE a new link row's foreign key takes.
 */
export async function lockCatalogueRows(
  em: EntityManager,
  table: CatalogueTable,
  ids: Iterable<number>,
): Promise<number[]> {
  const sorted = distinctSorted(ids);
  if (!sorted.length) return [];
  const sql = `select id from ${table} where id in (${placeholders(sorted)}) order by id for no key update`;
  const rows = await run<{ id: number }>(em, sql, sorted);
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
  const sql = 'select collection_id from collection_product where product_id = ? order by collection_id';
  const rows = await run<{ collection_id: number }>(em, sql, [productId]);
  return rows.map((row) => row.collection_id);
}

/** The customers who bought a product (its tags show in theirs). */
async function buyerIds(em: EntityManager, productId: number): Promise<number[]> {
  const rows = await run<{ customer_id: number }>(
    em,
    `select distinct o.customer_id from line_item li join orders o on o.id = li.order_id
      where li.product_id = ? order by o.customer_id`,
    [productId],
  );
  return rows.map((row) => row.customer_id);
}

const within = (ids: readonly number[], locked: readonly number[]) => ids.every((id) => locked.includes(id));

/** A product locked with the records around it that its write may move (see lockProductWithRelated). */
export interface LockedProduct {
  /** The manual collections it is linked to now (empty unless its links were asked for). */
  linked: number[];
  /** The customers who bought it (empty unless they were asked for). */
  buyers: number[];
}

/** What a product write may move besides the product, so what it locks first. */
export interface ProductWriteReach {
  /**
   * Null: the write leaves its manual collections alone (nothing locked for them). Else the
   * collections it joins; those it is linked to are locked as well.
   */
  joining: readonly number[] | null;
  /** Whether the write moves its buyers, given its tags as they are (then they are locked). */
  movesBuyers: (tags: readonly string[]) => boolean;
}

/**
 * Locks a product (FOR UPDATE) after the records its write may move (`reach`): the collections it
 * is linked to and joins, and its buyers when its tags are to change. These are read before the
 * locks, and another write may add one in between (a collection write links it: it locks that
 * collection, then the product; an order moved to another customer: it locks both customers; a
 * tag edit: it locks the product), so they are read again under the product's lock, and if a
 * record not yet locked appeared, every lock of this attempt is released (a savepoint rolled
 * back) and it starts again. Under the product's lock no new link or buyer can appear until commit
 * (a new order line needs a key-share lock on the product; moving an order needs its old
 * customer's lock). Null when the product does not exist.
 */
export async function lockProductWithRelated(
  em: EntityManager,
  productId: number,
  reach: ProductWriteReach,
): Promise<LockedProduct | null> {
  const linkedNow = async () => (reach.joining ? linkedCollectionIds(em, productId) : []);
  const buyersNow = async (tags: readonly string[] | undefined) =>
    tags && reach.movesBuyers(tags) ? buyerIds(em, productId) : [];
  const tagsOf = async (lock: string) =>
    (await run<{ tags: string[] }>(em, `select tags from product where id = ?${lock}`, [productId]))[0]?.tags;
  for (;;) {
    const collections = distinctSorted([...(await linkedNow()), ...(reach.joining ?? [])]);
    const customers = await buyersNow(await tagsOf(''));
    await run(em, 'savepoint catalogue_locks');
    await lockCatalogueRows(em, 'collection', collections);
    await lockCatalogueRows(em, 'customer', customers);
    const tags = await tagsOf(' for update');
    const linked = await linkedNow();
    const buyers = await buyersNow(tags);
    if (within(linked, collections) && within(buyers, customers)) {
      await run(em, 'release savepoint catalogue_locks');
      return tags ? { linked, buyers } : null;
    }
    await run(em, 'rollback to savepoint catalogue_locks');
  }
}

/** The ids in exactly one of the two lists: the members that join or leave. */
export function changedMembers(before: readonly number[], after: readonly number[]): number[] {
  const [was, is] = [new Set(before), new Set(after)];
  return distinctSorted([...before.filter((id) => !is.has(id)), ...after.filter((id) => !was.has(id))]);
}
