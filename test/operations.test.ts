// Health, readiness (also with the database down), metrics and one structured log line
// per request that never holds a token.

import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { MikroORM } from '@mikro-orm/postgresql';
import { pino } from 'pino';
import { ormConfig } from '../mikro-orm.config.js';
import { createApp } from '../src/app.js';
import { startEmbeddedPostgres } from '../src/db/embedded-postgres.js';
import { startTestService, type TestService } from './support/harness.js';

let service: TestService;
beforeAll(async () => {
  service = await startTestService();
});
afterAll(() => service.stop());

it('answers /healthz and /readyz without a token', async () => {
  const health = await service.get('/healthz', null);
  expect(health.status).toBe(200);
  expect(health.body).toEqual({ status: 'ok' });
  const ready = await service.get('/readyz', null);
  expect(ready.status).toBe(200);
  expect(ready.body).toEqual({ status: 'ready' });
});

it('serves Prometheus metrics to a token with read_metrics only', async () => {
  await service.get('/api/v1/products?size=1');
  await service.graphql('{ warehouses { totalCount } }');
  // Issue 36: the 401 says how to send the token (its body), and the challenge names the scope.
  const anonymous = await service.get('/metrics', null);
  expect(anonymous.status).toBe(401);
  expect(anonymous.body.detail).toContain('Authorization: Bearer <token with read_metrics scope>');
  expect(anonymous.headers.get('www-authenticate')).toBe('Bearer realm="store-api", scope="read_metrics"');
  expect((await service.get('/metrics', await service.tokenWith(['read_products']))).status).toBe(403);
  const res = await service.get('/metrics', await service.tokenWith(['read_metrics']));
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/text\/plain/);
  expect(res.text).toMatch(
    /http_request_duration_seconds_bucket\{[^}]*method="GET"[^}]*route="\/api\/v1\/products"[^}]*status="200"/,
  );
  expect(res.text).toMatch(/graphql_operations_total\{type="query",via="rest"\} \d+/);
  expect(res.text).toMatch(/graphql_operations_total\{type="query",via="graphql"\} \d+/);
  expect(res.text).toMatch(/^db_pool_connections \d+/m);
  expect(res.text).toMatch(/^outbox_backlog_messages \d+/m);
});

it('logs one line per request with method, route template, status, duration and request id, and no token', async () => {
  const lines: Record<string, unknown>[] = [];
  const raw: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      raw.push(chunk.toString());
      lines.push(JSON.parse(chunk.toString()));
      done();
    },
  });
  const { app, stop } = await createApp({ orm: service.orm, requestLogger: pino({ level: 'info' }, sink) });
  const server: Server = createServer(app.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  try {
    const auth = { authorization: `Bearer ${service.token}` };
    const given = await fetch(`${base}/api/v1/orders/5?fields=id`, {
      headers: { ...auth, 'x-request-id': 'trace-abc-123' },
    });
    expect(given.headers.get('x-request-id')).toBe('trace-abc-123');
    const generated = await fetch(`${base}/api/v1/customers/7`, { headers: auth });
    expect(generated.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    await fetch(`${base}/api/v1/customers/7`, {
      method: 'PATCH',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ notes: 'secret note', email: 'bad' }),
    });
    await fetch(`${base}/api/v1/products`, { headers: { authorization: 'Bearer sk_wrong-token-for-the-log' } });
    await fetch(`${base}/graphql`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ products { totalCount } }' }),
    });
    expect(lines.map((l) => [l.method, l.route, l.status])).toEqual([
      ['GET', '/api/v1/orders/:id', 200],
      ['GET', '/api/v1/customers/:id', 200],
      ['PATCH', '/api/v1/customers/:id', 422],
      ['GET', '/api/v1/products', 401],
      ['POST', '/graphql', 200],
    ]);
    expect(lines[0].requestId).toBe('trace-abc-123');
    for (const line of lines)
      expect(line).toEqual(expect.objectContaining({ requestId: expect.any(String), durationMs: expect.any(Number) }));
    const all = raw.join('');
    expect(all).not.toContain(service.token);
    expect(all).not.toContain('sk_wrong-token-for-the-log');
    expect(all).not.toContain('secret note');
  } finally {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await stop();
  }
});

it('reports not ready, quickly, while the database is down, and ready again when it is back', async () => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'store-readyz-'));
  const pg = await startEmbeddedPostgres({ dataDir: path.join(dir, 'pg'), persistent: true });
  await pg.createDatabase('store');
  const orm = await MikroORM.init(ormConfig(pg.url('store'), { pool: { min: 0, max: 2, idleTimeoutMillis: 500 } }));
  await orm.migrator.up();
  const { app, stop } = await createApp({ orm });
  const server: Server = createServer(app.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  let restarted: Awaited<ReturnType<typeof startEmbeddedPostgres>> | undefined;
  try {
    expect((await fetch(`${base}/readyz`)).status).toBe(200);
    await pg.stop();
    const started = Date.now();
    const down = await fetch(`${base}/readyz`);
    expect(down.status).toBe(503);
    expect(down.headers.get('content-type')).toMatch(/application\/problem\+json/);
    expect(Date.now() - started).toBeLessThan(5000);
    // A public endpoint shows no driver text (addresses, ports, error codes).
    expect(((await down.json()) as { detail: string }).detail).toBe('the database is unreachable');
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    restarted = await startEmbeddedPostgres({
      dataDir: path.join(dir, 'pg'),
      persistent: true,
      port: Number(new URL(pg.url('store')).port),
    });
    let status = 0;
    for (let i = 0; i < 20 && status !== 200; i++) {
      status = (await fetch(`${base}/readyz`)).status;
      if (status !== 200) await new Promise((r) => setTimeout(r, 250));
    }
    expect(status).toBe(200);
  } finally {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await stop();
    await orm.close().catch(() => undefined);
    await restarted?.stop();
    await rm(dir, { recursive: true, force: true });
  }
}, 60_000);
