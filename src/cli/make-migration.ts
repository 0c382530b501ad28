// Developer tool: `npm run migration:create` diffs the entities against the committed
// migrations (applied to a throw-away embedded PostgreSQL) and writes the next migration.
import 'reflect-metadata';
import { MikroORM } from '@mikro-orm/postgresql';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ormConfig } from '../../mikro-orm.config.js';
import { startEmbeddedPostgres } from '../db/embedded-postgres.js';
import { parseCommandLine } from './command-line.js';

const { positionals } = parseCommandLine({
  usage: 'usage: npm run migration:create -- NAME\nDiffs the entities against the committed migrations and writes the next one.\n  -h, --help   this text',
  options: {},
  allowPositionals: true,
});

const dir = await mkdtemp(path.join(os.tmpdir(), 'store-migration-'));
const server = await startEmbeddedPostgres({ dataDir: path.join(dir, 'pg'), persistent: false });
try {
  await server.createDatabase('store');
  const orm = await MikroORM.init(
    ormConfig(server.url('store'), {
      migrations: { path: path.resolve('src/migrations'), emit: 'ts', snapshot: false, migrationsList: (await import('../migrations/index.js')).migrationsList },
    }),
  );
  await orm.migrator.up();
  const result = await orm.migrator.create(path.resolve('src/migrations'), false, false, positionals[0]);
  console.log(result.fileName ? `wrote src/migrations/${result.fileName} (found at the next start; nothing to register)` : 'no changes');
  await orm.close();
} finally {
  await server.stop();
  await rm(dir, { recursive: true, force: true });
}
