import { MikroORM } from '@mikro-orm/postgresql';
import path from 'node:path';
import { ormConfig } from '../../mikro-orm.config.js';
import type { Config } from '../config.js';
import { logger } from '../logger.js';
import { startEmbeddedPostgres, type EmbeddedServer } from './embedded-postgres.js';

export interface Database {
  url: string;
  orm: MikroORM;
  /** Closes the pool, then stops the embedded server if we started one. */
  close(): Promise<void>;
}

/**
 * `DATABASE_URL` when given; otherwise a real PostgreSQL from the embedded-postgres binaries with
 * its data under `DATA_DIR` (decisions §1). Either way the committed migrations are applied.
 * `readTimeoutMs`: the statement timeout of the serving pool (the server's DB_READ_TIMEOUT_MS);
 * 0, for the CLIs, is none.
 */
export async function openDatabase(
  config: Pick<Config, 'DATABASE_URL' | 'DATA_DIR' | 'EMBEDDED_PG_PORT' | 'DB_POOL_MAX'>,
  { readTimeoutMs = 0 }: { readTimeoutMs?: number } = {},
): Promise<Database> {
  let embedded: EmbeddedServer | undefined;
  let url = config.DATABASE_URL;
  if (!url) {
    embedded = await startEmbeddedPostgres({
      dataDir: path.join(config.DATA_DIR, 'pg'),
      port: config.EMBEDDED_PG_PORT,
      log: (line) => logger.debug({ postgres: line.trim() }, 'embedded postgres'),
    });
    await embedded.createDatabase('store');
    url = embedded.url('store');
  }
  try {
    // Migrations (index builds on a big store) run without the serving pool's read timeout.
    if (readTimeoutMs > 0) {
      const migrating = await MikroORM.init(ormConfig(url, { pool: { min: 0, max: 1 } }, 0));
      try {
        await migrating.migrator.up();
      } finally {
        await migrating.close();
      }
    }
    const orm = await MikroORM.init(ormConfig(url, { pool: { min: 0, max: config.DB_POOL_MAX } }, readTimeoutMs));
    if (readTimeoutMs === 0) await orm.migrator.up();
    return {
      url,
      orm,
      async close() {
        await orm.close();
        await embedded?.stop();
      },
    };
  } catch (error) {
    await embedded?.stop();
    throw error;
  }
}
