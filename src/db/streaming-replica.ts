import { execFile, spawn } from 'node:child_process';
import { appendFile, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { freePort } from './embedded-postgres.js';

const run = promisify(execFile);

export interface StreamingReplica {
  port: number;
  url(database: string): string;
  /** Stops the server (fast shutdown); `start` brings it back on the same port and data. */
  stop(): Promise<void>;
  start(): Promise<void>;
  /** Stops the server and removes its data folder. */
  destroy(): Promise<void>;
}

/** The binaries that ship inside the embedded-postgres package of this platform (`pg_ctl`, `postgres`). */
async function binaries(): Promise<{ pg_ctl: string }> {
  return (await import(`@embedded-postgres/${process.platform}-${process.arch}`)) as { pg_ctl: string };
}

/** Runs as the `postgres` user when we are root (PostgreSQL refuses to run as root). */
async function postgresUser(): Promise<{ uid?: number; gid?: number }> {
  if (process.getuid?.() !== 0) return {};
  const [uid, gid] = await Promise.all([run('id', ['-u', 'postgres']), run('id', ['-g', 'postgres'])]);
  return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
}

/**
 * A real PostgreSQL streaming replica of `primaryUrl`'s cluster, for tests and the benchmark
 * (docs/operations.md#read-replicas). The embedded-postgres package ships `postgres`, `initdb` and
 * `pg_ctl` but not `pg_basebackup`, so the base backup is PostgreSQL's documented low-level one:
 * `pg_backup_start`, a file copy of the primary's data folder (same machine), `pg_backup_stop`'s
 * backup label written into the copy, then `standby.signal` and `primary_conninfo`, which is what
 * `pg_basebackup -R` writes. A physical replication slot keeps the WAL the replica still needs.
 * `settings` go into the replica's configuration (e.g. `recovery_min_apply_delay`).
 */
export async function startStreamingReplica(options: {
  primaryUrl: string;
  primaryDataDir: string;
  dataDir: string;
  settings?: Record<string, string>;
}): Promise<StreamingReplica> {
  const dataDir = path.resolve(options.dataDir);
  const primary = new URL(options.primaryUrl);
  const slot = `replica_${path.basename(dataDir).replace(/\W/g, '_').toLowerCase()}`;
  const user = await postgresUser();
  const { pg_ctl } = await binaries();
  const port = await freePort();

  const client = new pg.Client({ connectionString: options.primaryUrl });
  await client.connect();
  try {
    await client.query('select pg_create_physical_replication_slot($1, true)', [slot]);
    // Non-exclusive backup: it lasts as long as this session, which must also end it.
    await client.query(`select pg_backup_start('replica', true)`);
    await rm(dataDir, { recursive: true, force: true });
    await mkdir(path.dirname(dataDir), { recursive: true });
    await run('cp', ['-a', path.resolve(options.primaryDataDir), dataDir]);
    const { rows } = await client.query<{ labelfile: string }>('select labelfile from pg_backup_stop(true)');
    await writeFile(path.join(dataDir, 'backup_label'), rows[0].labelfile, { mode: 0o600 });
  } finally {
    await client.end();
  }
  // What the copy must not keep of the running primary (PostgreSQL's list for base backups).
  for (const name of ['postmaster.pid', 'postmaster.opts', 'pg_replslot', 'pg_wal']) {
    await rm(path.join(dataDir, name), { recursive: true, force: true });
  }
  await mkdir(path.join(dataDir, 'pg_wal', 'archive_status'), { recursive: true });
  await mkdir(path.join(dataDir, 'pg_replslot'), { recursive: true });
  await writeFile(path.join(dataDir, 'standby.signal'), '');
  const conninfo =
    `host=${primary.hostname} port=${primary.port} ` +
    `user=${decodeURIComponent(primary.username)} ` +
    `password=${decodeURIComponent(primary.password)}`;
  const settings: Record<string, string> = {
    primary_conninfo: conninfo,
    primary_slot_name: slot,
    hot_standby_feedback: 'on',
    ...options.settings,
  };
  await appendFile(
    path.join(dataDir, 'postgresql.auto.conf'),
    Object.entries(settings)
      .map(([key, value]) => `${key} = '${value.replace(/'/g, "''")}'\n`)
      .join(''),
  );
  if (user.uid !== undefined) await run('chown', ['-R', `${user.uid}:${user.gid}`, dataDir]);

  const pgCtl = (args: string[]) =>
    new Promise<void>((resolve, reject) => {
      const child = spawn(pg_ctl, args, { ...user, stdio: ['ignore', 'ignore', 'pipe'] });
      let err = '';
      child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
      child.once('error', reject);
      child.once('close', (code) => (code === 0 ? resolve() : reject(new Error(`pg_ctl ${args[0]}: ${err.trim()}`))));
    });
  const logFile = path.join(dataDir, 'replica.log');
  const flags = `-p ${port} -c listen_addresses=127.0.0.1 -c unix_socket_directories=`;
  const start = async () => {
    await pgCtl(['start', '-w', '-t', '60', '-D', dataDir, '-l', logFile, '-o', flags]).catch(async (error: Error) => {
      const log = await readFile(logFile, 'utf8').catch(() => '');
      throw new Error(`${error.message}\n${log.split('\n').slice(-10).join('\n')}`);
    });
  };
  // A fast shutdown bounded in time, then an immediate one: a test's cleanup must never hang on it.
  const stop = () =>
    pgCtl(['stop', '-w', '-t', '30', '-m', 'fast', '-D', dataDir])
      .catch(() => pgCtl(['stop', '-w', '-t', '30', '-m', 'immediate', '-D', dataDir]))
      .catch(() => undefined);
  await start();
  const auth = `${primary.username}:${primary.password}`;
  return {
    port,
    url: (database) => `postgres://${auth}@127.0.0.1:${port}/${database}`,
    stop,
    start,
    async destroy() {
      // Its data folder goes next: an immediate shutdown, with no restartpoint to write first (a
      // fast one took tens of seconds on a loaded machine, and test teardowns waited on it).
      await pgCtl(['stop', '-w', '-t', '30', '-m', 'immediate', '-D', dataDir]).catch(() => undefined);
      const cleanup = new pg.Client({ connectionString: options.primaryUrl });
      await cleanup.connect().then(
        () =>
          cleanup.query('select pg_drop_replication_slot(slot_name) from pg_replication_slots where slot_name = $1', [
            slot,
          ]),
        () => undefined,
      );
      await cleanup.end().catch(() => undefined);
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
