// The CLI works beside a running `npm start` (same DATA_DIR, embedded PostgreSQL): it
// finds the server's database instead of starting a second one; --help everywhere; expected
// failures are one line, never a stack trace.
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { type ServerProcess, startServerProcess } from './support/server-process.js';

const run = promisify(execFile);
const ADMIN = 'admin-token-for-the-cli-tests';
let dir: string;
let server: ServerProcess;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'store-cli-'));
  env = { ...process.env, DATA_DIR: dir, DATABASE_URL: '', LOG_LEVEL: 'silent', NODE_OPTIONS: '' };
  // The store as `npm start` runs it: embedded PostgreSQL on DATA_DIR, demo store seeded.
  server = await startServerProcess('', ADMIN, { DATA_DIR: dir, SEED_DEMO: 'true' });
}, 60_000);
afterAll(async () => {
  await server?.stop();
  await rm(dir, { recursive: true, force: true });
});

async function cli(script: string, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [path.resolve(`dist/src/cli/${script}.js`), ...args], {
      env,
      timeout: 30_000,
    });
    return { code: 0, stdout, stderr };
  } catch (error: any) {
    return { code: error.code, stdout: error.stdout, stderr: error.stderr };
  }
}

it('creates a working token while the store runs, and lists it as a table with dates', async () => {
  const created = await cli('token', 'create', '--name', 'cli reader', '--scopes', 'read_orders');
  expect(created.stderr).toBe('');
  expect(created.code).toBe(0);
  const secret = /^(sk_\S+)$/m.exec(created.stdout)?.[1];
  expect(secret).toBeDefined();
  const orders = await fetch(`${server.url}/api/v1/orders?size=1`, { headers: { authorization: `Bearer ${secret}` } });
  expect(orders.status).toBe(200);

  const listed = await cli('token', 'list');
  expect(listed.code).toBe(0);
  const [header, ...rows] = listed.stdout.trim().split('\n');
  expect(header).toMatch(/^ID\s+NAME\s+STATUS\s+CREATED \(UTC\)\s+LAST USED\s+REVOKED\s+SCOPES$/);
  const row = rows.find((r) => r.includes('cli reader'));
  expect(row).toMatch(/active\s+\d{4}-\d\d-\d\d \d\d:\d\d\s+\d{4}-\d\d-\d\d \d\d:\d\d\s+—\s+read_orders$/);

  const id = /^(\d+)/.exec(row!)![1];
  expect((await cli('token', 'revoke', '--id', id)).stdout).toMatch(
    new RegExp(`^Token ${id} "cli reader" revoked at `),
  );
  const refused = await fetch(`${server.url}/api/v1/orders?size=1`, { headers: { authorization: `Bearer ${secret}` } });
  expect(refused.status).toBe(401);
});

it('says in one line that a non-empty store is not seeded', async () => {
  const seeded = await cli('seed', '--orders', '5');
  expect(seeded.code).toBe(0);
  expect(seeded.stdout).toBe('The database already holds a store; nothing seeded (seed needs an empty database).\n');
});

it.each(['token', 'seed', 'outbox-worker', 'migrate', 'emit-schema', 'make-migration'])(
  '%s --help prints its usage',
  async (script) => {
    const res = await cli(script, '--help');
    expect(res.code).toBe(0);
    expect(res.stdout).toMatch(/^usage: npm run /);
    expect(res.stderr).toBe('');
  },
);

it.each([
  [
    ['token', 'create', '--name', 'x', '--scopes', 'read_everything'],
    /^error: scopes: unknown scope read_everything; valid: /,
    1,
  ],
  // Held to what GraphQL's createApiToken holds a name to (it stored any length).
  [['token', 'create', '--name', 'n'.repeat(201), '--scopes', 'all'], /^error: name: must be at most 200/, 1],
  [['token', 'revoke', '--id', '99999'], /^error: ApiToken 99999 does not exist$/, 1],
  [['token', 'revoke', '--id', '3000000000'], /^error: revoke needs --id with a token id/, 2],
  [['api-release', '--version', 'next'], /^error: --version must be X\.Y\.Z/, 2],
  [['make-migration'], /^error: name the migration/, 2],
  [['token', 'frobnicate'], /^error: unknown command "frobnicate"$/, 2],
  [['token', 'list', '--nme', 'x'], /^error: Unknown option '--nme'$/, 2],
  [['seed', '--orders', 'many'], /^error: --orders must be a non-negative integer$/, 2],
])('%j fails with one clear line', async (args, message, code) => {
  const res = await cli(...(args as [string, ...string[]]));
  expect(res.code).toBe(code);
  expect(res.stderr.split('\n')[0]).toMatch(message);
  expect(res.stderr).not.toMatch(/\n\s+at /);
});
