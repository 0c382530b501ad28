// Shutdown (docs/operations.md#faults-and-shutdown): SIGTERM lets a request in flight finish,
// refuses new connections, then exits 0, whatever signals repeat during the drain; a signal during
// the start stops the service once it is up.
import { spawn } from 'node:child_process';
import { request } from 'node:http';
import path from 'node:path';
import pg from 'pg';
import { createDatabase } from './support/harness.js';
import { startServerProcess } from './support/server-process.js';
import { until } from './support/until.js';

const ADMIN = 'shutdown-test-admin-token-012345';

it('finishes a request in flight after SIGTERM, then exits 0, even when SIGTERM and SIGINT come again', async () => {
  const server = await startServerProcess(await createDatabase(), ADMIN);
  const url = new URL(`${server.url}/api/v1/customers/5`);
  // A PATCH whose body arrives in two parts: it is in flight when SIGTERM comes.
  const [head, tail] = ['{"notes": ', '"written late"}'];
  const answer = new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: 'PATCH',
        headers: {
          authorization: `Bearer ${ADMIN}`,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(head + tail),
        },
      },
      (res) => {
        let body = '';
        res.on('data', (c) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on('error', reject);
    req.write(head);
    setTimeout(() => req.end(tail), 800);
  });
  await new Promise((r) => setTimeout(r, 200));
  const exited = server.signal('SIGTERM');
  await new Promise((r) => setTimeout(r, 100));
  // A supervisor repeating itself, a second Ctrl-C: the one shutdown goes on (Node's default would exit 143/130).
  process.kill(server.pid, 'SIGTERM');
  process.kill(server.pid, 'SIGINT');
  await new Promise((r) => setTimeout(r, 100));
  await expect(fetch(`${server.url}/healthz`)).rejects.toThrow();
  const res = await answer;
  expect(res.status).toBe(200);
  expect(JSON.parse(res.body).notes).toBe('written late');
  expect(await exited).toBe(0);
}, 30_000);

it('a signal during the start stops the service once it is up, with exit 0 and no banner', async () => {
  const databaseUrl = await createDatabase();
  const child = spawn(process.execPath, [path.resolve('dist/src/main.js')], {
    env: {
      ...process.env,
      DATABASE_URL: databaseUrl,
      ADMIN_TOKEN: ADMIN,
      PORT: '0',
      HOST: '127.0.0.1',
      SEED_DEMO: 'false',
      LOG_LEVEL: 'info',
      NODE_OPTIONS: '',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  // The start is under way once the process has its first connection to the database (Node's
  // default, before the handlers were installed first thing, was exit 130 there).
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await until(
      async () => {
        const { rows } = await client.query(
          // A client's session only: a CI run saw another session on the new database (an autovacuum
          // worker's, likely) and signalled the process before its handlers were there.
          "select count(*)::int as n from pg_stat_activity where backend_type = 'client backend' " +
            'and datname = current_database() and pid <> pg_backend_pid()',
        );
        return rows[0].n > 0;
      },
      20_000,
      5,
    );
  } finally {
    await client.end();
  }
  child.kill('SIGINT');
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  expect({ code: await exited, output }).toEqual({ code: 0, output: expect.stringContaining('"signal":"SIGINT"') });
  expect(output).not.toContain('listening on');
}, 30_000);
