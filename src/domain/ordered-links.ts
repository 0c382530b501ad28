import type { EntityManager } from '@mikro-orm/postgresql';

/**
 * Replaces an ordered set of link rows (a product's images, a collection's products, …) with the
 * wanted keys in the wanted order: rows whose key stays are kept and repositioned, the others are
 * removed, new keys get new rows. Returns the rows in the wanted order. Keeping rows avoids
 * delete-then-insert clashes on the (parent, key) unique constraints within one flush.
 */
export function replaceOrdered<L extends object & { position: number }, K>(
  em: EntityManager,
  current: readonly L[],
  keyOf: (link: L) => K,
  wanted: readonly K[],
  create: (key: K) => L,
): L[] {
  const byKey = new Map(current.map((link) => [keyOf(link), link]));
  const keep = new Set(wanted);
  for (const [key, link] of byKey) if (!keep.has(key)) em.remove(link);
  return wanted.map((key, position) => {
    let link = byKey.get(key);
    if (!link) {
      link = create(key);
      em.persist(link);
    }
    link.position = position;
    return link;
  });
}
