import type { MikroORM } from '@mikro-orm/postgresql';
import { Product } from '../entities/product.entity.js';
import { DEMO_STORE, generateStore, type StoreSize } from './store-generator.js';
import { writeStore } from './write-store.js';

/** Fills an empty database with a generated store, in one transaction. Returns false if not empty. */
export async function seedIfEmpty(orm: MikroORM, size: StoreSize = DEMO_STORE, onProgress?: (rows: number) => void): Promise<boolean> {
  return orm.em.fork().transactional(async (em) => {
    // Serialise concurrent starts on one database: only the first seeds.
    await em.getConnection().execute('select pg_advisory_xact_lock(727274)', [], 'all', em.getTransactionContext());
    if ((await em.count(Product, {})) > 0) return false;
    await writeStore(em, generateStore(size), onProgress);
    return true;
  });
}
