import type { MikroORM } from '@mikro-orm/postgresql';
import { DEMO_STORE, type StoreSize, storeChunks } from './store-generator.js';
import { writeStore } from './write-store.js';

/**
 * Fills an empty database with a generated store, in one transaction on one pooled connection
 * (COPY needs the driver's client itself). Returns false if the database already holds products.
 * The new rows are vacuumed and analysed afterwards, so the first queries on a big store already get
 * good plans and index-only scans (counts, deep pages).
 */
export async function seedIfEmpty(
  orm: MikroORM,
  size: StoreSize = DEMO_STORE,
  onProgress?: (table: string, rows: number) => void,
): Promise<boolean> {
  const pool = await orm.em.getConnection().getNativeClient();
  const client = await pool.connect();
  let seeded = false;
  try {
    await client.query('begin');
    // Serialise concurrent starts on one database: only the first seeds.
    await client.query('select pg_advisory_xact_lock(727274)');
    const { rows } = await client.query<{ any: boolean }>('select exists (select 1 from product) as any');
    if (!rows[0].any) {
      await writeStore(client, storeChunks(size), onProgress);
      seeded = true;
    }
    await client.query('commit');
  } catch (error) {
    await client.query('rollback').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
  if (seeded) await orm.em.getConnection().execute('vacuum analyze');
  return seeded;
}
