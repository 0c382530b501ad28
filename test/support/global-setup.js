// Once per `npm test`: start a real PostgreSQL (embedded binaries) on a free port in a temporary
// folder, and build a template database with the migrations and the demo store. Each test file
// then clones its own database from the template, so files run in parallel and in any order.
// Plain JS on the compiled tree (`npm test` compiles first): Jest loads global setup with Node's
// own resolver, which cannot map `./x.js` imports onto TypeScript sources.
// A run of unit tests only (`jest test/unit`: pure domain rules, no database) starts nothing, so
// they take a second, not the template's build; the compiled tree is loaded only when needed.
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

const TEMPLATE_DB = 'store_template';

/** Whether every path pattern given to Jest names test/unit (no pattern: the whole suite). */
function onlyUnitTests(globalConfig) {
  const patterns = globalConfig?.testPathPatterns?.patterns ?? [];
  return patterns.length > 0 && patterns.every((pattern) => /(^|\/)test\/unit(\/|$)/.test(pattern));
}

export default async function globalSetup(globalConfig) {
  if (onlyUnitTests(globalConfig)) return;
  await import('reflect-metadata');
  const { MikroORM } = await import('@mikro-orm/postgresql');
  const { ormConfig } = await import('../../dist/mikro-orm.config.js');
  const { startEmbeddedPostgres } = await import('../../dist/src/db/embedded-postgres.js');
  const { seedIfEmpty } = await import('../../dist/src/seed/seed-store.js');
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
