import path from 'node:path';
import { MikroORM } from '@mikro-orm/postgresql';
import { ormConfig } from '../../mikro-orm.config.js';
import type { Config } from '../config.js';
import { logger } from '../logger.js';
import { checkExternalDatabase } from './database-check.js';
import {
  type EmbeddedServer,
  runningEmbeddedPostgres,
  startEmbeddedPostgres,
  stopOrphanedPostgres,
} from './embedded-postgres.js';

/** The embedded data folder is already served by another process (a second `npm start`). */
export class DatabaseInUseError extends Error {}

export interface Database {
  url: string;
  orm: MikroORM;
  /** Closes the pool, then stops the embedded server if we started one. */
  close(): Promise<void>;
}

/**
 * `DATABASE_URL` when given; otherwise a real PostgreSQL from the embedded-postgres binaries with
 * its data under `DATA_DIR` (docs/decisions.md#start-up-contract). Either way the committed
 * migrations are applied. `readTimeoutMs`: the statement timeout of the serving pool (the server's
 * DB_READ_TIMEOUT_MS); 0, for the CLIs, is none. `shareRunning` (the CLI): when `npm start` already
 * runs the embedded server of this `DATA_DIR`, connect to it instead of starting a second one on
 * the same folder (which PostgreSQL refuses).
 */
export async function openDatabase(
  config: Pick<Config, 'DATABASE_URL' | 'DATA_DIR' | 'EMBEDDED_PG_PORT' | 'DB_POOL_MAX'>,
  { readTimeoutMs = 0, shareRunning = false }: { readTimeoutMs?: number; shareRunning?: boolean } = {},
): Promise<Database> {
  let embedded: EmbeddedServer | undefined;
  let url = config.DATABASE_URL;
  // An existing PostgreSQL is checked before anything runs on it: version, pg_trgm, privileges.
  if (url) await checkExternalDatabase(url);
  if (!url) {
    const running = await runningEmbeddedPostgres(path.join(config.DATA_DIR, 'pg'));
    if (running && shareRunning) {
      // The CLI beside `npm start`: use the server's PostgreSQL (and leave it running on close).
      url = running.url('store');
    } else if (running?.orphaned) {
      // Its store process crashed and nobody else will stop it: stop it and start our own.
      const { pid, port } = running;
      logger.warn({ pid, port }, 'stopping the embedded PostgreSQL left running by a store process that is gone');
      await stopOrphanedPostgres(running);
    } else if (running) {
      const by = running.owner
        ? `started by the running store process ${running.owner}`
        : 'not started by a running store process';
      throw new DatabaseInUseError(
        `DATA_DIR ${path.resolve(config.DATA_DIR)} is in use by a running PostgreSQL ` +
          `(pid ${running.pid}, port ${running.port}, ${by}): ` +
          'is the store already started? Stop it, or set another DATA_DIR or DATABASE_URL',
      );
    }
  }
  if (!url) {
    embedded = await startEmbeddedPostgres({
      dataDir: path.join(config.DATA_DIR, 'pg'),
      port: config.EMBEDDED_PG_PORT,
      log: (line) => logger.debug({ postgres: line.trim() }, 'embedded postgres'),
      // The serving process (a read timeout; the CLIs have none) keeps its PostgreSQL out of the
      // terminal's Ctrl-C, and stops it itself once its requests, workers and pools are done.
      ownProcessGroup: readTimeoutMs > 0,
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
