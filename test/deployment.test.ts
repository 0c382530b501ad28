// The deployment guide, run (issue 41 item 1; docs/deployment.md). Every shell block of the guide
// marked `run: test` is run here, in order, as written, on Debian's nginx, PgBouncer 1.18 and a
// PostgreSQL server of its own (Debian's default version, 15 on Debian 12), installed by
// test/support/ensure-deploy-tools.sh (which runs the `run: setup` block); the `run: ci` block is
// `.ci/run`'s. What the test changes to run beside other things on one machine is the list
// `REPLACED` below, applied to the commands and to the copies of deploy/ in its release: its own
// ports instead of 443, 80, 3001, 3002, 6432 and 5432, folders under a temporary directory instead
// of /opt, /etc and /var, and `curl --resolve` for the public host name, which no DNS knows.
// `systemctl` is test/support/systemctl.mjs (CI has no systemd), `nginx` the real one with the
// test's main configuration (`-c`).
//
// Then, through https://shop.example.test (nginx terminating TLS with the guide's self-signed
// certificate, in front of two instances of two workers each, through PgBouncer in session mode):
// REST, GraphQL, a subscription over wss://, an export, a bulk operation, links that say https and
// the public host, the start refusing a database where pg_trgm cannot be created, and the guide's
// rolling restart under load with no failed request.
import { type SpawnSyncReturns, spawn, spawnSync } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import https from 'node:https';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { type Client, createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { freePort } from '../src/db/embedded-postgres.js';

const ROOT = path.resolve('.');
const GUIDE = readFileSync('docs/deployment.md', 'utf8');
const PUBLIC_HOST = 'shop.example.test';

interface Block {
  run: string | undefined;
  text: string;
  /** Its line in docs/deployment.md, for failures. */
  line: number;
}

/** The guide's shell blocks (```sh), each with the `<!-- run: … -->` mark on the line before it. */
function shellBlocks(markdown: string): Block[] {
  const lines = markdown.split('\n');
  const found: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (lines[i] !== '```sh') continue;
    const end = lines.indexOf('```', i + 1);
    let before = i - 1;
    while (before >= 0 && lines[before].trim() === '') before--;
    const run = /^<!-- run: (\w+) -->$/.exec(lines[before] ?? '')?.[1];
    found.push({ run, text: lines.slice(i + 1, end).join('\n'), line: i + 1 });
    i = end;
  }
  return found;
}

const blocks = shellBlocks(GUIDE);
const guideSteps = blocks.filter((b) => b.run === 'test');

/** Two free consecutive ports `<base>1` and `<base>2` (the unit's `300%i`, with another base). */
async function instanceBase(): Promise<string> {
  const free = (port: number) =>
    new Promise<boolean>((resolve) => {
      const probe = createServer();
      probe.once('error', () => resolve(false));
      probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
    });
  // Ports fetch refuses to connect to (the Fetch standard's "bad ports") in that range: a base
  // giving 5061 made the test's own requests fail with "bad port".
  const refusedByFetch = new Set([2049, 3659, 4045, 4190, 5060, 5061]);
  const usable = async (port: number) => !refusedByFetch.has(port) && (await free(port));
  for (let tries = 0; tries < 50; tries++) {
    const base = String(200 + Math.floor(Math.random() * 400)); // ports 2001..5992
    if ((await usable(Number(`${base}1`))) && (await usable(Number(`${base}2`)))) return base;
  }
  throw new Error('no two free ports');
}

function sh(script: string, env: NodeJS.ProcessEnv, cwd = ROOT): SpawnSyncReturns<string> {
  // stdin not a socket: Debian's bash would take itself for a remote shell and read /etc/bash.bashrc.
  return spawnSync('/bin/bash', ['-euo', 'pipefail', '-c', script], {
    env,
    cwd,
    encoding: 'utf8',
    timeout: 180_000,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

const root = process.getuid?.() === 0;
const uidOf = (user: string) => Number(spawnSync('id', ['-u', user], { encoding: 'utf8' }).stdout.trim());
const pgBin = () => {
  const versions = readdirSync('/usr/lib/postgresql').filter((v) =>
    existsSync(`/usr/lib/postgresql/${v}/bin/postgres`),
  );
  return `/usr/lib/postgresql/${versions.sort((a, b) => Number(b) - Number(a))[0]}/bin`;
};

let tmp: string;
let env: NodeJS.ProcessEnv;
let ports: { pg: number; pgbouncer: number; tls: number; http: number; base: string };
/** What the test changes in the guide's commands and its copies of deploy/ (set up in beforeAll). */
let REPLACED: [string, string][];
let ca: Buffer;
let token: string;
let pgData: string;
const outputs: string[] = [];
const clients: Client[] = [];

/** Runs one of the guide's blocks as written (with REPLACED), failing with its output. */
function runStep(step: Block, replaced: [string, string][]): string {
  let script = step.text;
  for (const [from, to] of replaced) script = script.split(from).join(to);
  const run = sh(script, env);
  const output = `${run.stdout}${run.stderr}`;
  outputs.push(`--- docs/deployment.md:${step.line}\n${output}`);
  if (run.status !== 0)
    throw new Error(`docs/deployment.md:${step.line} failed (${run.status ?? run.signal}):\n${script}\n${output}`);
  return run.stdout;
}

/** `runStep` as a child the event loop does not wait on (requests go on meanwhile). */
function runStepAsync(step: Block, replaced: [string, string][]): Promise<string> {
  let script = step.text;
  for (const [from, to] of replaced) script = script.split(from).join(to);
  return new Promise((resolve, reject) => {
    const child = spawn('/bin/bash', ['-euo', 'pipefail', '-c', script], {
      env,
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.once('close', (code) => {
      outputs.push(`--- docs/deployment.md:${step.line}\n${output}`);
      if (code === 0) resolve(output);
      else reject(new Error(`docs/deployment.md:${step.line} failed (${code}):\n${script}\n${output}`));
    });
  });
}

/** A request to the public host through nginx (TLS, the guide's certificate as the only CA). */
function request(
  method: string,
  target: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; text: string; json: any }> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
    const req = https.request(
      {
        host: '127.0.0.1',
        port: ports.tls,
        servername: PUBLIC_HOST,
        method,
        path: target,
        ca,
        agent: false,
        headers: {
          host: `${PUBLIC_HOST}:${ports.tls}`,
          authorization: `Bearer ${token}`,
          ...(payload ? { 'content-type': 'application/json' } : {}),
          ...headers,
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk) => (text += chunk));
        res.on('end', () => {
          let json: unknown;
          try {
            json = JSON.parse(text);
          } catch {
            json = undefined;
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

const publicUrl = () => `https://${PUBLIC_HOST}:${ports.tls}`;

beforeAll(async () => {
  if (!root) throw new Error('the deployment test runs as root (it installs users, files and services)');
  tmp = mkdtempSync(path.join(os.tmpdir(), 'store-deploy-'));
  chmodSync(tmp, 0o755);
  const postgresUid = uidOf('postgres');
  const postgresGid = Number(spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).stdout.trim());
  const dir = (name: string, owner?: 'postgres', mode = 0o755) => {
    const made = path.join(tmp, name);
    mkdirSync(made, { recursive: true, mode });
    chmodSync(made, mode);
    if (owner) chownSync(made, postgresUid, postgresGid);
    return made;
  };
  ports = {
    pg: await freePort(),
    pgbouncer: await freePort(),
    tls: await freePort(),
    http: await freePort(),
    base: await instanceBase(),
  };
  const app = dir('app');
  const run = dir('run', 'postgres');
  const log = dir('log', 'postgres');
  const socket = dir('pgsocket', 'postgres');
  pgData = path.join(dir('pg', 'postgres'), 'data');
  const etc = path.join(tmp, 'etc/store-api');
  mkdirSync(path.dirname(etc), { recursive: true });
  const nginxDir = dir('nginx');
  const sites = dir('nginx/sites-enabled');
  dir('nginx/temp', undefined, 0o777);
  const units = dir('systemd');
  const pgbouncerEtc = dir('pgbouncer', 'postgres');
  const bin = dir('bin');

  // What the test changes in the guide's commands and in its release's copies of deploy/.
  REPLACED = [
    ['127.0.0.1:3001', `127.0.0.1:${ports.base}1`],
    ['127.0.0.1:3002', `127.0.0.1:${ports.base}2`],
    ['PORT=300%i', `PORT=${ports.base}%i`],
    ['http://127.0.0.1:300$i/', `http://127.0.0.1:${ports.base}$i/`],
    ['listen 443 ssl', `listen 127.0.0.1:${ports.tls} ssl`],
    ['listen 80;', `listen 127.0.0.1:${ports.http};`],
    ['port=5432', `port=${ports.pg}`],
    ['listen_port = 6432', `listen_port = ${ports.pgbouncer}`],
    ['127.0.0.1:6432', `127.0.0.1:${ports.pgbouncer}`],
    ['/var/run/postgresql', run],
    ['/var/log/postgresql', log],
    ['/etc/pgbouncer', pgbouncerEtc],
    ['/opt/store-api', app],
    ['/etc/store-api', etc],
    ['PUBLIC_URL=https://shop.example.com', `PUBLIC_URL=https://shop.example.com:${ports.tls}`],
    ['"https://$PUBLIC_HOST/', `--resolve "$PUBLIC_HOST:${ports.tls}:127.0.0.1" "https://$PUBLIC_HOST:${ports.tls}/`],
  ];
  const replaced = (text: string) => REPLACED.reduce((t, [from, to]) => t.split(from).join(to), text);

  // The release in $APP: this tree's sources and deploy/ (its copies with REPLACED), and its
  // node_modules as installed by `npm ci`; the guide's `npm run build` compiles it there.
  for (const entry of ['src', 'scripts', 'assets', 'mikro-orm.config.ts', 'tsconfig.json', 'tsconfig.build.json']) {
    if (existsSync(entry)) cpSync(entry, path.join(app, entry), { recursive: true });
  }
  for (const file of ['package.json', 'package-lock.json']) cpSync(file, path.join(app, file));
  symlinkSync(path.join(ROOT, 'node_modules'), path.join(app, 'node_modules'));
  for (const file of [
    'store-api.env',
    'nginx/store-api.conf',
    'pgbouncer/pgbouncer.ini',
    'systemd/store-api@.service',
  ]) {
    mkdirSync(path.dirname(path.join(app, 'deploy', file)), { recursive: true });
    writeFileSync(path.join(app, 'deploy', file), replaced(readFileSync(path.join('deploy', file), 'utf8')));
  }

  // A PostgreSQL server of its own, superuser by the socket (trust), everyone else by TCP (SCRAM).
  const asPostgres = { uid: postgresUid, gid: postgresGid, encoding: 'utf8' as const };
  const init = spawnSync(
    `${pgBin()}/initdb`,
    ['-D', pgData, '-U', 'postgres', '--auth-local=trust', '--auth-host=scram-sha-256'],
    asPostgres,
  );
  if (init.status !== 0) throw new Error(`initdb failed: ${init.stderr}`);
  const started = spawnSync(
    `${pgBin()}/pg_ctl`,
    [
      ...['-D', pgData, '-l', path.join(log, 'postgresql.log'), '-w'],
      ...['-o', `-p ${ports.pg} -k ${socket} -c listen_addresses=127.0.0.1`, 'start'],
    ],
    asPostgres,
  );
  if (started.status !== 0) throw new Error(`PostgreSQL did not start: ${started.stderr}`);

  // `systemctl` (the stand-in) and `nginx` (with the test's main configuration) come first on PATH;
  // units for nginx and PgBouncer as Debian's packages install them, on the test's paths.
  const nginxConf = path.join(nginxDir, 'nginx.conf');
  writeFileSync(
    nginxConf,
    `pid ${nginxDir}/nginx.pid;
error_log ${nginxDir}/error.log;
worker_processes 1;
events { worker_connections 256; }
http {
  access_log ${nginxDir}/access.log;
  client_body_temp_path ${nginxDir}/temp/body;
  proxy_temp_path ${nginxDir}/temp/proxy;
  fastcgi_temp_path ${nginxDir}/temp/fastcgi;
  uwsgi_temp_path ${nginxDir}/temp/uwsgi;
  scgi_temp_path ${nginxDir}/temp/scgi;
  include ${sites}/*.conf;
}
`,
  );
  writeFileSync(path.join(bin, 'nginx'), `#!/bin/sh\nexec /usr/sbin/nginx -c ${nginxConf} "$@"\n`, { mode: 0o755 });
  writeFileSync(
    path.join(bin, 'systemctl'),
    `#!/bin/sh\nexec ${process.execPath} ${path.join(ROOT, 'test/support/systemctl.mjs')} "$@"\n`,
    { mode: 0o755 },
  );
  writeFileSync(
    path.join(units, 'nginx.service'),
    `[Service]\nExecStart=/usr/sbin/nginx -c ${nginxConf} -g 'daemon off;'\n` +
      `ExecReload=/usr/sbin/nginx -c ${nginxConf} -s reload\nKillSignal=SIGQUIT\nTimeoutStopSec=10\n`,
  );
  writeFileSync(
    path.join(units, 'pgbouncer.service'),
    `[Service]\nUser=postgres\nExecStart=/usr/sbin/pgbouncer ${pgbouncerEtc}/pgbouncer.ini\n` +
      'ExecReload=/bin/kill -HUP $MAINPID\nKillSignal=SIGINT\nTimeoutStopSec=10\n',
  );
  env = {
    PATH: `${bin}:${process.env.PATH}:/usr/sbin:/sbin`,
    HOME: tmp,
    LANG: 'C.UTF-8',
    APP: app,
    ETC: etc,
    PUBLIC_HOST,
    SSL_DIR: path.join(tmp, 'ssl'),
    NGINX_SITES: sites,
    PGBOUNCER_ETC: pgbouncerEtc,
    SYSTEMD_UNITS: units,
    STORE_DB_PASSWORD: 'deploy-test-password-0123456789',
    SHIM_STATE: dir('shim'),
    PGHOST: socket,
    PGPORT: String(ports.pg),
    PGUSER: 'postgres',
    PGDATABASE: 'postgres',
  };
  // nginx is running before the guide reloads it, as the package's install leaves it.
  const nginx = sh('systemctl start nginx', env);
  if (nginx.status !== 0) throw new Error(`nginx: ${nginx.stderr}`);

  // Every step but the last, the upgrade, which its own test runs under load.
  for (const step of guideSteps.slice(0, -1)) {
    const stdout = runStep(step, REPLACED);
    const made = /\b(sk_[\w-]{20,})\b/.exec(stdout);
    if (made) token = made[1];
    if (/dist\/src\/cli\/migrate\.js/.test(step.text) && !/systemctl restart/.test(step.text)) {
      // Test-only: a store to read (the guide's database starts empty), written through PgBouncer.
      const seeded = sh(
        `set -a; . "$ETC/store-api.env"; set +a; cd "$APP" && ` +
          'node_modules/.bin/node dist/src/cli/seed.js --products 20 --customers 20 --orders 20',
        env,
      );
      if (seeded.status !== 0) throw new Error(`seeding failed: ${seeded.stdout}${seeded.stderr}`);
    }
  }
  ca = readFileSync(path.join(env.SSL_DIR!, 'fullchain.pem'));
}, 300_000);

afterAll(async () => {
  await Promise.all(clients.map((c) => c.dispose()));
  if (!env) return;
  // One at a time: a unit the guide never installed (a failed set-up) must not keep the others running.
  for (const unit of ['store-api@1', 'store-api@2', 'nginx', 'pgbouncer']) sh(`systemctl stop ${unit}`, env);
  if (pgData)
    spawnSync(`${pgBin()}/pg_ctl`, ['-D', pgData, '-m', 'fast', 'stop'], {
      uid: uidOf('postgres'),
      gid: Number(spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).stdout.trim()),
    });
  if (process.env.KEEP_DEPLOY_TEST) console.log(`kept ${tmp}`);
  else rmSync(tmp, { recursive: true, force: true });
}, 60_000);

describe('docs/deployment.md', () => {
  it('marks every shell block with who runs it: this test, the test setup or CI', () => {
    expect(blocks.length).toBeGreaterThan(10);
    expect(blocks.filter((b) => !['test', 'setup', 'ci'].includes(b.run ?? '')).map((b) => b.line)).toEqual([]);
    // The setup's and CI's blocks are theirs, line for line.
    const setup = readFileSync('test/support/ensure-deploy-tools.sh', 'utf8');
    const ci = readFileSync('.ci/run', 'utf8');
    for (const block of blocks.filter((b) => b.run === 'setup'))
      for (const line of block.text.split('\n')) expect(setup).toContain(line);
    for (const block of blocks.filter((b) => b.run === 'ci'))
      for (const line of block.text.split('\n')) expect(ci).toContain(line);
    // And every `run: test` block was run, in order, by the set-up above.
    expect(outputs).toHaveLength(guideSteps.length - 1);
  });
});

describe('through nginx (TLS) and PgBouncer (session mode)', () => {
  it('serves REST with links that say https and the public host', async () => {
    const res = await request('GET', '/api/v1/products?size=2&fields=id,title');
    expect(res.status).toBe(200);
    expect(res.json.items).toHaveLength(2);
    expect(res.json._links.self.href.startsWith(`${publicUrl()}/api/v1/products?`)).toBe(true);
    expect(res.json._links.next.href).toMatch(new RegExp(`^${publicUrl().replace(/\./g, '\\.')}/api/v1/products\\?`));
    expect(res.headers.link).toContain(`<${publicUrl()}/api/v1/products?`);
    expect(String(res.headers.link)).not.toMatch(/http:\/\/|127\.0\.0\.1/);
    // An https PUBLIC_URL turns on HSTS; nginx's request id reached the service.
    expect(res.headers['strict-transport-security']).toMatch(/max-age=/);
    expect(res.headers['x-request-id']).toMatch(/^[0-9a-f]{32}$/);
    // The service is reached through PgBouncer: its log has the role's logins.
    expect(readFileSync(path.join(tmp, 'log/pgbouncer.log'), 'utf8')).toMatch(/login attempt: db=store user=store/);
  });

  it('serves the OpenAPI document with the public https URL as its server', async () => {
    const res = await request('GET', '/api/v1/openapi.json');
    expect(res.json.servers[0].url).toBe(publicUrl());
  });

  it('answers GraphQL queries and mutations', async () => {
    const query = await request('POST', '/graphql', {
      query: 'query Few { products(size: 3) { totalCount items { id title } } }',
    });
    expect(query.json.errors).toBeUndefined();
    expect(query.json.data.products.totalCount).toBe(20);
    const mutation = await request('POST', '/graphql', {
      query: 'mutation { updateOrder(id: 1, input: { notes: "through the proxy" }) { id notes } }',
    });
    expect(mutation.json.errors).toBeUndefined();
    expect(mutation.json.data.updateOrder).toEqual({ id: 1, notes: 'through the proxy' });
  });

  it('streams an export to its end', async () => {
    const res = await request('GET', '/api/v1/orders/export?fields=id');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/application\/x-ndjson/);
    const lines = res.text
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines.at(-1)).toEqual({ complete: true, count: 20 });
    expect(lines.slice(0, -1).map((l) => l.id)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
  });

  it('pushes events over wss:// from writes through either instance (LISTEN/NOTIFY through PgBouncer)', async () => {
    class TlsWebSocket extends WebSocket {
      constructor(address: string, protocols?: string | string[]) {
        super(address, protocols, {
          ca,
          // No DNS knows the public host: it is this machine.
          lookup: ((_host: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) =>
            options?.all
              ? callback(null, [{ address: '127.0.0.1', family: 4 }])
              : callback(null, '127.0.0.1', 4)) as never,
        });
      }
    }
    const client = createClient({
      url: `wss://${PUBLIC_HOST}:${ports.tls}/graphql`,
      webSocketImpl: TlsWebSocket,
      connectionParams: { Authorization: `Bearer ${token}` },
      retryAttempts: 0,
      lazy: false,
      onNonLazyError: () => undefined,
    });
    clients.push(client);
    const events = client.iterate<{ events: { type: string; data: { notes?: string } } }>({
      query: 'subscription { events(after: 0, types: ["order.notes_changed"]) { type data } }',
    });
    // One write through each instance, past the proxy: one of them is not the subscription's.
    for (const instance of [1, 2]) {
      const res = await fetch(`http://127.0.0.1:${ports.base}${instance}/api/v1/orders/2`, {
        method: 'PATCH',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ notes: `written through instance ${instance}` }),
      });
      expect(res.status).toBe(200);
    }
    const received: string[] = [];
    const timer = setTimeout(() => events.return?.(), 15_000);
    for await (const next of events) {
      received.push(next.data?.events.data.notes ?? '');
      if (received.filter((n) => n.startsWith('written through')).length === 2) break;
    }
    clearTimeout(timer);
    expect(received).toEqual(expect.arrayContaining(['written through instance 1', 'written through instance 2']));
  });

  it('runs a bulk operation: the upload through the proxy, its lines in the background, its results', async () => {
    // A file over a JSON body's 1 MiB, as a real sync's is: the proxy takes it (its bulk location).
    const padding = 'x'.repeat(3000);
    const lines = Array.from({ length: 400 }, (_, i) => {
      const id = 3 + (i % 2);
      const notes = i >= 398 ? `bulk ${id}` : `bulk ${id} ${padding}`;
      return JSON.stringify({ method: 'PATCH', path: `/orders/${id}`, body: { notes } });
    });
    expect(lines.join('\n').length).toBeGreaterThan(1024 * 1024);
    const upload = await request('POST', '/api/v1/bulk-operations', `${lines.join('\n')}\n`, {
      'content-type': 'application/x-ndjson',
    });
    expect(upload.status).toBe(202);
    const { id } = upload.json;
    let operation: any;
    for (const until = Date.now() + 60_000; Date.now() < until; ) {
      operation = (await request('GET', `/api/v1/bulk-operations/${id}`)).json;
      if (operation.status === 'completed') break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(operation).toMatchObject({ status: 'completed', total_lines: 400, processed_lines: 400, failed_lines: 0 });
    const results = await request('GET', `/api/v1/bulk-operations/${id}/results`);
    const answered = results.text
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(answered.filter((r) => r.status !== 200)).toEqual([]);
    expect(answered.slice(-2).map((r) => [r.line, r.status, r.body.notes])).toEqual([
      [399, 200, 'bulk 3'],
      [400, 200, 'bulk 4'],
    ]);
  }, 90_000);
});

describe('the start on an existing PostgreSQL', () => {
  it('refuses a database where pg_trgm cannot be created, saying what to run', () => {
    const made = sh(
      `psql -v ON_ERROR_STOP=1 -c 'CREATE DATABASE locked' -c 'GRANT CONNECT ON DATABASE locked TO store'`,
      env,
    );
    expect(made.status).toBe(0);
    const start = spawnSync(`${env.APP}/node_modules/.bin/node`, ['dist/src/main.js'], {
      cwd: env.APP,
      encoding: 'utf8',
      timeout: 30_000,
      env: {
        PATH: env.PATH,
        DATABASE_URL: `postgres://store:${env.STORE_DB_PASSWORD}@127.0.0.1:${ports.pg}/locked`,
        PORT: '0',
        LOG_LEVEL: 'info',
      },
    });
    expect(start.status).toBe(2);
    expect(start.stdout).toBe('');
    expect(start.stderr.trim()).toMatch(
      new RegExp(
        '^database "locked" \\(PostgreSQL 1\\d[.\\d]* .*role "store"\\): the migrations need the extension pg_trgm, ' +
          'which role "store" may not create: as a superuser, run CREATE EXTENSION pg_trgm; in database "locked"',
      ),
    );
    expect(start.stderr.trim().split('\n')).toHaveLength(1);
    // Nothing was created there.
    const tables = sh(`psql -Atc "select count(*) from pg_tables where schemaname = 'public'" locked`, env);
    expect(tables.stdout.trim()).toBe('0');
  });
});

describe('an upgrade', () => {
  it('migrates, then restarts one instance at a time: reads through the proxy never fail', async () => {
    const upgrade = guideSteps.at(-1)!;
    expect(upgrade.text).toMatch(/migrate\.js[\s\S]*systemctl restart store-api@\$i/);
    const pidOf = (instance: number) =>
      readFileSync(path.join(env.SHIM_STATE!, `store-api@${instance}.service.pid`), 'utf8');
    const before = [pidOf(1), pidOf(2)];
    let stop = false;
    const failures: string[] = [];
    let answered = 0;
    // About 30 requests a second, within the token's rate limit (50 a second, docs/operations.md#rate-limits).
    const hammer = async () => {
      while (!stop) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        try {
          const res = await request('GET', '/api/v1/products?size=5&fields=id');
          if (res.status === 200) answered++;
          else failures.push(`${res.status} ${res.text.slice(0, 200)}`);
        } catch (error) {
          failures.push(String(error));
        }
      }
    };
    const hammers = [hammer(), hammer(), hammer()];
    await new Promise((resolve) => setTimeout(resolve, 500));
    const during = answered;
    try {
      await runStepAsync(upgrade, REPLACED);
    } finally {
      stop = true;
      await Promise.all(hammers);
    }
    expect(failures).toEqual([]);
    expect(answered - during).toBeGreaterThan(20);
    // Both instances are new processes, and serve.
    const after = [pidOf(1), pidOf(2)];
    expect(after[0]).not.toBe(before[0]);
    expect(after[1]).not.toBe(before[1]);
    expect((await request('GET', '/readyz')).status).toBe(200);
  }, 120_000);
});
