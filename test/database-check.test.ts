// The start on an existing PostgreSQL (issue 41 item 1; docs/deployment.md#postgresql): the server is
// checked before anything runs on it, and refused, in one line saying what to run, when it is too
// old, has no pg_trgm, or its role may not create pg_trgm or the tables. The refusals read from
// the server's facts (one statement); here against the test's PostgreSQL 18, as a superuser and
// as a role that may only connect. (test/deployment.test.ts does the same on Debian's 15.)
import pg from 'pg';
import {
  checkExternalDatabase,
  DatabaseUnsuitableError,
  MIN_SERVER_VERSION_NUM,
  type ServerFacts,
  unsuitability,
} from '../src/db/database-check.js';
import { createDatabase } from './support/harness.js';

const fit: ServerFacts = {
  versionNum: 150_014,
  version: '15.14',
  database: 'store',
  role: 'store',
  superuser: false,
  trgmInstalled: false,
  trgmAvailable: true,
  mayCreateInDatabase: true,
  mayCreateInPublic: true,
  migrated: false,
};

describe('the facts of a server', () => {
  it('a fit one passes', () => {
    expect(unsuitability(fit)).toBeNull();
    expect(MIN_SERVER_VERSION_NUM).toBe(150_000);
  });

  it('a server older than 15 is refused, saying to upgrade it or point elsewhere', () => {
    expect(unsuitability({ ...fit, versionNum: 140_011, version: '14.11' })).toBe(
      'database "store" (PostgreSQL 14.11, role "store"): PostgreSQL 14.11 is older than 15, the oldest this ' +
        'service supports: upgrade the server (pg_upgrade), or point DATABASE_URL at PostgreSQL 15 or later',
    );
  });

  it('a server without pg_trgm is refused, saying which package brings it', () => {
    expect(unsuitability({ ...fit, trgmAvailable: false })).toMatch(
      /the extension pg_trgm \(text search indexes\) is not installed on the server: install PostgreSQL's contrib/,
    );
    // Created already: the files are needed no more than that.
    expect(unsuitability({ ...fit, trgmAvailable: false, trgmInstalled: true })).toBeNull();
  });

  it('a role that may not create pg_trgm where it is missing is refused, naming the statement', () => {
    expect(unsuitability({ ...fit, mayCreateInDatabase: false })).toMatch(
      /which role "store" may not create: as a superuser, run CREATE EXTENSION pg_trgm; in database "store"/,
    );
    expect(unsuitability({ ...fit, mayCreateInDatabase: false, superuser: true })).toBeNull();
    expect(unsuitability({ ...fit, mayCreateInDatabase: false, trgmInstalled: true })).toBeNull();
  });

  it('a role that may not create the tables of a database never migrated is refused', () => {
    expect(unsuitability({ ...fit, trgmInstalled: true, mayCreateInPublic: false })).toMatch(
      /role "store" may not create tables in schema public, which the migrations do: make it the database's owner/,
    );
    expect(unsuitability({ ...fit, trgmInstalled: true, mayCreateInPublic: false, migrated: true })).toBeNull();
  });
});

describe('against a real server', () => {
  it('passes as the owner of a migrated database', async () => {
    await expect(checkExternalDatabase(await createDatabase())).resolves.toBeUndefined();
  });

  it('refuses a role that may only connect to a database without pg_trgm', async () => {
    const url = await createDatabase('empty');
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    const role = `guest_${process.pid}`;
    await admin.query(`create role ${role} login password 'guest-password'`);
    await admin.query(`grant connect on database "${admin.database}" to ${role}`);
    await admin.end();
    const asGuest = new URL(url);
    asGuest.username = role;
    asGuest.password = 'guest-password';
    const refused = checkExternalDatabase(asGuest.toString());
    await expect(refused).rejects.toBeInstanceOf(DatabaseUnsuitableError);
    await expect(refused).rejects.toThrow(/may not create: as a superuser, run CREATE EXTENSION pg_trgm;/);
  });
});
