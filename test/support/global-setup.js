// Once per `npm test`: start a real PostgreSQL (embedded binaries) on a free port in a temporary
// folder, and build a template database with the migrations and the demo store. Each test file
// then clones its own database from the template, so files run in parallel and in any order.
// Plain JS on the compiled tree (`npm test` compiles first): Jest loads global setup with Node's
// own resolver, which cannot map `./x.js` imports onto TypeScript sources.
import 'reflect-metadata';
import { MikroORM } from '@mikro-orm/postgresql';
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ormConfig } from '../../dist/mikro-orm.config.js';
import { startEmbeddedPostgres } from '../../dist/src/db/embedded-postgres.js';
import { seedIfEmpty } from '../../dist/src/seed/seed-store.js';

const TEMPLATE_DB = 'store_template';

export default async function globalSetup() {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'store-test-'));
  const server = await startEmbeddedPostgres({ dataDir: path.join(dir, 'pg'), persistent: false });
  try {
    await server.createDatabase(TEMPLATE_DB);
    const orm = await MikroORM.init(ormConfig(server.url(TEMPLATE_DB)));
    await orm.migrator.up();
    await seedIfEmpty(orm);
    await orm.close();
  } catch (error) {
    await server.stop();
    throw error;
  }
  process.env.TEST_PG_ADMIN_URL = server.url('postgres');
  process.env.TEST_PG_TEMPLATE = TEMPLATE_DB;
  globalThis.__storeTestPg = { server, dir };
}
