import type { EntityManager } from '@mikro-orm/postgresql';
import DataLoader from 'dataloader';

/**
 * Per-request batching for what the read plan cannot nest into a record's own statement (rule-based
 * collection membership, a collection's page of products, the store's number format): every ask
 * made in the same tick becomes one statement, so a page of 200 records costs what a page of 1 does.
 */
export class Loaders {
  private readonly loaders = new Map<string, DataLoader<number, unknown>>();

  constructor(readonly em: EntityManager) {}

  /** Children grouped by parent id, in the order the fetch returns them. */
  children<T>(
    key: string,
    fetch: (em: EntityManager, parentIds: number[]) => Promise<T[]>,
    parentOf: (child: T) => number,
  ) {
    return this.get(key, async (ids) => {
      const byParent = new Map<number, T[]>();
      for (const child of await fetch(this.em, [...ids])) {
        const parent = parentOf(child);
        const list = byParent.get(parent);
        if (list) list.push(child);
        else byParent.set(parent, [child]);
      }
      return ids.map((id) => byParent.get(id) ?? []);
    }) as DataLoader<number, T[]>;
  }

  /** Single records by id; a missing id resolves to null. */
  byId<T extends { id: number }>(key: string, fetch: (em: EntityManager, ids: number[]) => Promise<T[]>) {
    return this.get(key, async (ids) => {
      const found = new Map((await fetch(this.em, [...ids])).map((row) => [row.id, row]));
      return ids.map((id) => found.get(id) ?? null);
    }) as DataLoader<number, T | null>;
  }

  private get(key: string, batch: (ids: readonly number[]) => Promise<unknown[]>) {
    let loader = this.loaders.get(key);
    if (!loader) {
      loader = new DataLoader<number, unknown>(batch, { maxBatchSize: 1000 });
      this.loaders.set(key, loader);
    }
    return loader;
  }
}
