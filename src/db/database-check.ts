import pg from 'pg';
import { ConfigError } from '../config.js';

/**
 * The oldest PostgreSQL the service is tested on (docs/deployment.md#postgresql): Debian 12's 15,
 * in test/deployment.test.ts; the embedded one is 18. The migrations need 13 at the very least
 * (`xid8`, `pg_current_xact_id()`, generated columns, pg_trgm as a trusted extension), but 13 and 14
 * are not tested, so they are refused.
 */
export const MIN_SERVER_VERSION_NUM = 150_000;

/** An external database the service cannot run on, with what to do about it. */
export class DatabaseUnsuitableError extends ConfigError {}

/** What the checks read of the server, in one statement. */
export interface ServerFacts {
  versionNum: number;
  version: string;
  database: string;
  role: string;
  superuser: boolean;
  /** pg_trgm is already created in this database. */
  trgmInstalled: boolean;
  /** pg_trgm's files are on the server (contrib). */
  trgmAvailable: boolean;
  /** The role may create a trusted extension here (CREATE on the database). */
  mayCreateInDatabase: boolean;
  /** The role may create tables in schema public (PostgreSQL 15 no longer grants it to everyone). */
  mayCreateInPublic: boolean;
  /** The migrations' own table exists (the database was migrated before). */
  migrated: boolean;
}

const FACTS_SQL = `select current_setting('server_version_num')::int as "versionNum",
  current_setting('server_version') as version, current_database() as database, current_user as role,
  (select rolsuper from pg_roles where rolname = current_user) as superuser,
  exists (select 1 from pg_extension where extname = 'pg_trgm') as "trgmInstalled",
  exists (select 1 from pg_available_extensions where name = 'pg_trgm') as "trgmAvailable",
  has_database_privilege(current_database(), 'CREATE') as "mayCreateInDatabase",
  coalesce(has_schema_privilege('public', 'CREATE'), false) as "mayCreateInPublic",
  to_regclass('public.mikro_orm_migrations') is not null as migrated`;

/**
 * Why the service cannot run on this database, as the one line to print (what is wrong and what to
 * do), or null when it can. Each refusal names the statement an administrator runs.
 */
export function unsuitability(facts: ServerFacts): string | null {
  const where = `database "${facts.database}" (PostgreSQL ${facts.version}, role "${facts.role}")`;
  if (facts.versionNum < MIN_SERVER_VERSION_NUM)
    return (
      `${where}: PostgreSQL ${facts.version} is older than 15, the oldest this service supports: ` +
      'upgrade the server (pg_upgrade), or point DATABASE_URL at PostgreSQL 15 or later'
    );
  if (!facts.trgmInstalled && !facts.trgmAvailable)
    return (
      `${where}: the extension pg_trgm (text search indexes) is not installed on the server: install ` +
      "PostgreSQL's contrib modules (Debian and Ubuntu ship them in postgresql-15; RHEL: postgresql15-contrib), " +
      'then start again'
    );
  if (!facts.trgmInstalled && !facts.superuser && !facts.mayCreateInDatabase)
    return (
      `${where}: the migrations need the extension pg_trgm, which role "${facts.role}" may not create: as a ` +
      `superuser, run CREATE EXTENSION pg_trgm; in database "${facts.database}" (or make "${facts.role}" ` +
      `its owner: ALTER DATABASE "${facts.database}" OWNER TO "${facts.role}"), then start again`
    );
  if (!facts.migrated && !facts.superuser && !facts.mayCreateInPublic)
    return (
      `${where}: role "${facts.role}" may not create tables in schema public, which the migrations do: ` +
      `make it the database's owner (ALTER DATABASE "${facts.database}" OWNER TO "${facts.role}"; on ` +
      'PostgreSQL 15 and later the owner of the database owns its schema public only if it created it: ' +
      `then also ALTER SCHEMA public OWNER TO "${facts.role}"), then start again`
    );
  return null;
}

/**
 * Checks an existing PostgreSQL (DATABASE_URL) before the migrations run on it
 * (docs/decisions.md#start-up-contract): a server too old, or where pg_trgm cannot be created, stops
 * the start with one line saying what to do, instead of failing half-way through a migration.
 */
export async function checkExternalDatabase(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 });
  await client.connect();
  let facts: ServerFacts;
  try {
    facts = (await client.query<ServerFacts>(FACTS_SQL)).rows[0];
  } finally {
    await client.end().catch(() => undefined);
  }
  const problem = unsuitability(facts);
  if (problem) throw new DatabaseUnsuitableError(problem);
}
