import { ReflectMetadataProvider } from '@mikro-orm/decorators/legacy';
import { Migrator } from '@mikro-orm/migrations';
import { defineConfig, type Options } from '@mikro-orm/postgresql';
import { preparePooledStatements } from './src/db/prepared-statements.js';
import { entities } from './src/entities/index.js';
import { migrationsList } from './src/migrations/index.js';

/**
 * The one ORM configuration. Entities and migrations are listed explicitly (no folder discovery),
 * so the same config works from src under Jest and from dist under `npm start`.
 */
export function ormConfig(clientUrl: string, overrides: Partial<Options> = {}): Options {
  return defineConfig({
    clientUrl,
    entities,
    metadataProvider: ReflectMetadataProvider,
    extensions: [Migrator],
    migrations: { migrationsList, tableName: 'mikro_orm_migrations', snapshot: false, silent: true },
    forceUtcTimezone: true,
    pool: { min: 0, max: 10 },
    // Bounded waits: a request fails fast (503) when PostgreSQL is unreachable or a query hangs,
    // instead of holding the client until its own timeout.
    driverOptions: {
      connectionTimeoutMillis: 3000,
      statement_timeout: 30_000,
      query_timeout: 35_000,
      idle_in_transaction_session_timeout: 60_000,
      onPoolCreated: preparePooledStatements,
    },
    debug: false,
    allowGlobalContext: false,
    ...overrides,
  });
}

export default ormConfig(process.env.DATABASE_URL ?? 'postgres://postgres:postgres@127.0.0.1:5432/store');
