import { ReflectMetadataProvider } from '@mikro-orm/decorators/legacy';
import { Migrator } from '@mikro-orm/migrations';
import { defineConfig, type Options } from '@mikro-orm/postgresql';
import type { Pool } from 'pg';
import { releaseDeadClients } from './src/db/dead-connections.js';
import { preparePooledStatements } from './src/db/prepared-statements.js';
import { setSessionTimeouts, writeTransactionsBegin } from './src/db/session-settings.js';
import { READ_STATEMENT_TIMEOUT_MS, WRITE_STATEMENT_TIMEOUT_MS } from './src/db/statement-timeouts.js';
import { entities } from './src/entities/index.js';
import { migrationsList } from './src/migrations/index.js';

/**
 * The one ORM configuration. Entities and migrations are the classes found in their folders by
 * src/entities/index.ts and src/migrations/index.ts (not MikroORM's own glob discovery): each list
 * reads the folder beside it, so the same config works from src under Jest and from dist under
 * `npm start`, and neither runtime ever loads the other's files.
 */
export function ormConfig(
  clientUrl: string,
  overrides: Partial<Options> = {},
  statementTimeoutMs = READ_STATEMENT_TIMEOUT_MS,
): Options {
  return defineConfig({
    clientUrl,
    entities,
    metadataProvider: ReflectMetadataProvider,
    extensions: [Migrator],
    migrations: { migrationsList, tableName: 'mikro_orm_migrations', snapshot: false, silent: true },
    forceUtcTimezone: true,
    pool: { min: 0, max: 10 },
    // Bounded waits: a request fails fast (503) when PostgreSQL is unreachable or a query hangs,
    // instead of holding the client until its own timeout. Every statement outside a write
    // transaction (reads, the rate-limit bucket, idempotency claims) ends within the read timeout;
    // write transactions raise it for themselves, in their BEGIN (writeTransactionsBegin).
    // The timeouts are set by a statement as each connection opens (src/db/session-settings.ts), not
    // as startup parameters, which PgBouncer refuses.
    driverOptions: {
      connectionTimeoutMillis: 3000,
      query_timeout: Math.max(statementTimeoutMs, WRITE_STATEMENT_TIMEOUT_MS) + 5000,
      onPoolCreated: (pool: Pool) => {
        setSessionTimeouts(pool, {
          statement_timeout: statementTimeoutMs,
          idle_in_transaction_session_timeout: 60_000,
        });
        // No read bound (0: the CLIs' migrations) is no bound at all: a migration may run long.
        if (statementTimeoutMs > 0) writeTransactionsBegin(pool, WRITE_STATEMENT_TIMEOUT_MS);
        preparePooledStatements(pool);
        releaseDeadClients(pool);
      },
    },
    debug: false,
    allowGlobalContext: false,
    ...overrides,
  });
}

export default ormConfig(process.env.DATABASE_URL ?? 'postgres://postgres:postgres@127.0.0.1:5432/store');
