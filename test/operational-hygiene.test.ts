// Operational hygiene (issue 41 item 4), each as a user met it, on the built service as a process:
// - a client that disconnects mid-export is one JSON log line with its request id and status 499
//   (`clientGone`), with no ECONNRESET or premature-close stack anywhere;
// - in a terminal (a real pseudo-terminal, util-linux's `script`), each request is one log line,
//   and Ctrl-C (the ^C character, so the terminal signals the whole process group, the embedded
//   PostgreSQL with it) stops the service without a warning;
// - a busy PORT is one line saying to set PORT, and nothing is created first (no DATA_DIR).
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { connect, createServer, type Server } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { jest } from '@jest/globals';
import pg from 'pg';
import { EventWakeups } from '../src/db/event-wakeups.js';
import { logger } from '../src/logger.js';
import { EXPORT_CHUNK } from '../src/rest/export-lines.js';
import { createDatabase } from './support/harness.js';
import { until } from './support/until.js';

const MAIN = path.resolve('dist/src/main.js');
const ADMIN_TOKEN = 'hygiene-admin-token-0123456789';

interface Running {
  child: ChildProcess;
  /** Everything the process wrote to stdout and stderr so far. */
  out: () => string;
  err: () => string;
  exited: Promise<number | null>;
}

function run(command: string, args: string[], env: Record<string, string>): Running {
  const child = spawn(command, args, {
    env: { ...process.env, NODE_OPTIONS: '', NODE_ENV: 'production', ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout?.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  return { child, out: () => out, err: () => err, exited };
}

async function listening(service: Running): Promise<string> {
  const match = await until(async () => /listening on (http:\/\/\S+)\s/.exec(service.out()) ?? false, 60_000);
  return match[1];
}

/** The terminal's colour codes. */
const ANSI = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, 'g');

describe('a client gone mid-export', () => {
  let service: Running;
  let url: string;

  beforeAll(async () => {
    const databaseUrl = await createDatabase();
    // About 20 MB of customers: far more than the socket buffers hold, so the export is still
    // being written when its client goes.
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    await client.query(`insert into customer (email, first_name, last_name, notes, created_at)
      select 'gone.' || n || '@example.com', 'Gone', 'Customer ' || n, repeat('x', 2000), now()
      from generate_series(1, 40 * ${EXPORT_CHUNK}) n`);
    await client.end();
    service = run(process.execPath, [MAIN], {
      DATABASE_URL: databaseUrl,
      ADMIN_TOKEN,
      PORT: '0',
      SEED_DEMO: 'false',
      OUTBOX_WORKER: 'false',
      LOG_LEVEL: 'info',
    });
    url = await listening(service);
  }, 90_000);

  afterAll(async () => {
    service.child.kill('SIGTERM');
    await service.exited;
  });

  it('is one JSON line with the request id and status 499, and no stack trace', async () => {
    const { port } = new URL(url);
    // Reads the start of the export, stops reading, then resets the connection (as a killed curl does).
    await new Promise<void>((resolve, reject) => {
      const socket = connect(Number(port), '127.0.0.1', () =>
        socket.write(
          'GET /api/v1/customers/export HTTP/1.1\r\nHost: 127.0.0.1\r\n' +
            `Authorization: Bearer ${ADMIN_TOKEN}\r\nX-Request-Id: gone-mid-export\r\n\r\n`,
        ),
      );
      let taken = 0;
      socket.on('error', reject);
      socket.on('data', (chunk) => {
        taken += chunk.length;
        if (taken < 64 * 1024) return;
        socket.pause();
        socket.removeAllListeners('data');
        setTimeout(() => {
          socket.resetAndDestroy();
          resolve();
        }, 300);
      });
    });
    const line = await until(async () => {
      const found = service
        .out()
        .split('\n')
        .filter((l) => l.includes('gone-mid-export'));
      return found.length ? found : false;
    }, 10_000);
    // Whatever the closing export might still log has had its chance.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(line).toHaveLength(1);
    const entry = JSON.parse(line[0]);
    expect(entry).toMatchObject({
      requestId: 'gone-mid-export',
      route: '/api/v1/customers/export',
      status: 499,
      clientGone: true,
      msg: 'request',
    });
    expect(entry.durationMs).toBeGreaterThan(250);
    const everything = service.out() + service.err();
    expect(everything).not.toMatch(/ECONNRESET|ERR_STREAM_PREMATURE_CLOSE|Premature close|\n\s+at /);
    expect(service.err()).toBe('');
    // The service is fine: the next export is read to its end.
    const whole = await fetch(`${url}/api/v1/products/export`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    expect((await whole.text()).trimEnd().split('\n').pop()).toMatch(/"complete":true/);
  });
});

describe('in a terminal', () => {
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'store-hygiene-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('each request is one line, and Ctrl-C stops the service (embedded PostgreSQL too) quietly', async () => {
    // `script` gives the service a pseudo-terminal (stdout.isTTY: the pretty log) whose ^C the
    // terminal turns into SIGINT for its whole foreground process group, as a keyboard's Ctrl-C does.
    // `exec`: `script` runs the command with $SHELL -c, or /bin/sh -c where SHELL is unset (as in
    // CI); dash does not exec a lone command, dies of the SIGINT itself, and `script` reports 130
    // whatever the service did. The service is the terminal's process, as under `npm start`.
    const service = run('script', ['-qefc', `exec ${process.execPath} ${MAIN}`, '/dev/null'], {
      DATA_DIR: path.join(dir, 'data'),
      PORT: '0',
      SEED_DEMO: 'false',
      ADMIN_TOKEN,
      LOG_LEVEL: 'info',
    });
    try {
      const url = await listening(service);
      const headers = { authorization: `Bearer ${ADMIN_TOKEN}` };
      expect((await fetch(`${url}/api/v1/products?size=2`, { headers })).status).toBe(200);
      expect((await fetch(`${url}/api/v1/nothing-here`, { headers })).status).toBe(404);
      expect(
        (
          await fetch(`${url}/graphql`, {
            method: 'POST',
            headers: { ...headers, 'content-type': 'application/json' },
            body: '{"query":"{ __typename }"}',
          })
        ).status,
      ).toBeLessThan(500);
      const log = () => service.out().replace(ANSI, '').split(/\r?\n/);
      await until(async () => log().filter((l) => / request (GET|POST) /.test(l)).length === 3, 10_000);
      const after = log()
        .slice(log().findIndex((l) => l.includes('npm run token')) + 1)
        .filter(Boolean);
      // Three requests, three lines; none of a request's fields on lines of their own.
      expect(after).toEqual([
        expect.stringMatching(/INFO: request GET \/api\/v1\/products 200 [\d.]+ms \{"requestId":"[\w-]+"\}$/),
        expect.stringMatching(/INFO: request GET unmatched 404 [\d.]+ms \{"requestId":"[\w-]+"\}$/),
        expect.stringMatching(/INFO: request POST \/graphql \d+ [\d.]+ms \{"requestId":"[\w-]+"\}$/),
      ]);

      service.child.stdin?.write('\u0003');
      // With the log's last lines, so that a failure says where the stop went.
      const code = await service.exited;
      expect({ code, log: log().slice(-12) }).toEqual({ code: 0, log: expect.any(Array) });
      const stop = log().slice(log().findIndex((l) => l.includes('^C')));
      expect(stop.join('\n')).toMatch(/INFO: shutting down \{"signal":"SIGINT"\}/);
      expect(stop.join('\n')).not.toMatch(/WARN|ERROR|FATAL|57P01|reconnecting/);
      expect(service.err()).toBe('');
    } finally {
      service.child.kill('SIGKILL');
    }
  }, 90_000);
});

describe('the event listener connection', () => {
  let databaseUrl: string;
  const terminate = async (wakeups: EventWakeups) => {
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    // What a fast shutdown of PostgreSQL does to every session: FATAL 57P01.
    await until(async () => {
      const { rows } = await client.query(
        `select pg_terminate_backend(pid) as done from pg_stat_activity
          where datname = current_database() and query like 'listen %'`,
      );
      return rows.length > 0;
    }, 5000);
    await client.end();
    return wakeups;
  };

  beforeAll(async () => {
    databaseUrl = await createDatabase('empty');
  });

  it('lost while the service stops (Ctrl-C reached PostgreSQL first) is not a warning', async () => {
    const warn = jest.spyOn(logger, 'warn');
    try {
      const wakeups = new EventWakeups(databaseUrl);
      await wakeups.start();
      await terminate(wakeups);
      await new Promise((resolve) => setTimeout(resolve, 200));
      await wakeups.close(); // the service's stop, a moment after
      await new Promise((resolve) => setTimeout(resolve, 1500));
      expect(warn).not.toHaveBeenCalled();
    } finally {
      warn.mockRestore();
    }
  });

  it('lost while the service runs is one warning without a stack, and it reconnects', async () => {
    const warn = jest.spyOn(logger, 'warn');
    const wakeups = new EventWakeups(databaseUrl);
    try {
      await wakeups.start();
      await terminate(wakeups);
      await until(async () => warn.mock.calls.length > 0, 5000);
      expect(warn.mock.calls).toEqual([
        [
          { code: '57P01', reason: expect.stringMatching(/administrator command/) },
          'event listener connection lost; reconnecting',
        ],
      ]);
      // Listening again: a notification wakes a waiter.
      const woken = wakeups.wait(10_000);
      const started = Date.now();
      await until(async () => {
        const client = new pg.Client({ connectionString: databaseUrl });
        await client.connect();
        await client.query(`notify store_events`);
        await client.end();
        return Promise.race([woken.then(() => true), new Promise<false>((r) => setTimeout(() => r(false), 200))]);
      }, 8000);
      expect(Date.now() - started).toBeLessThan(9000);
    } finally {
      await wakeups.close();
      warn.mockRestore();
    }
  });
});

describe('a busy PORT', () => {
  let dir: string;
  let holder: Server;
  let port: number;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'store-hygiene-'));
    holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    port = (holder.address() as { port: number }).port;
  });
  afterAll(async () => {
    await new Promise((resolve) => holder.close(resolve));
    await rm(dir, { recursive: true, force: true });
  });

  it('is one line saying to set PORT, and nothing is created first', async () => {
    const dataDir = path.join(dir, 'data');
    const service = run(process.execPath, [MAIN], { DATA_DIR: dataDir, PORT: String(port), LOG_LEVEL: 'info' });
    expect(await service.exited).toBe(2);
    expect(service.out()).toBe('');
    expect(service.err()).toBe(
      `Port ${port} is already in use on 127.0.0.1 (is the store already running?): stop what listens on ` +
        `127.0.0.1:${port}, or set PORT to a free port, e.g. PORT=3000 npm start\n`,
    );
    // No embedded PostgreSQL cluster was made (nor started) before the port was found busy.
    expect(existsSync(dataDir)).toBe(false);
  }, 30_000);
});
