// OpenTelemetry traces end to end (issue 41 item 2; docs/operations.md#traces): the built service
// as `npm start` runs it (`--import` of the preload), with OTEL_EXPORTER_OTLP_ENDPOINT pointing at
// an OTLP/HTTP receiver in this test. Each request carries a `traceparent` of the test's, so its
// trace is found by id; the tree is checked span by span: the HTTP server span, the REST route
// (instrumentation-koa), the GraphQL operation with its cost (made by hand), the SQL statements
// (instrumentation-pg, text with `?` for each literal and $n placeholders, no values: no span
// received holds a value a write sent), a webhook delivery queued by a write, whose POST carries
// the trace's `traceparent`, and the lines of a bulk operation (REST and GraphQL form), run later
// by the runner, each a span of the trace of the request that made the operation, over its SQL
// statements and the deliveries its write queued. Without the variable nothing of OpenTelemetry is
// loaded.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { createDatabase } from './support/harness.js';
import { npmStartNodeFlags } from './support/server-process.js';
import { until } from './support/until.js';

const ADMIN_TOKEN = 'tracing-admin-token-0123456789';
const auth = { authorization: `Bearer ${ADMIN_TOKEN}` };

interface Span {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: Record<string, string | number | boolean>;
  status?: { code?: number };
  service: string;
}

/** An attribute value of OTLP/JSON (`{ stringValue }`, `{ intValue }` as a string, …). */
function attributeValue(value: Record<string, unknown>): string | number | boolean {
  if ('stringValue' in value) return value.stringValue as string;
  if ('intValue' in value) return Number(value.intValue);
  if ('doubleValue' in value) return Number(value.doubleValue);
  if ('boolValue' in value) return value.boolValue as boolean;
  return JSON.stringify(value);
}

const hex = (id: string) => (/^[0-9a-f]+$/.test(id) ? id : Buffer.from(id, 'base64').toString('hex'));

/** The in-test OTLP/HTTP receiver: POST /v1/traces with OTLP JSON, every span kept. */
function otlpReceiver() {
  const spans: Span[] = [];
  const paths: string[] = [];
  const bodies: string[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      paths.push(`${req.method} ${req.url} ${req.headers['content-type']}`);
      bodies.push(body);
      const message = JSON.parse(body) as { resourceSpans: any[] };
      for (const resourceSpans of message.resourceSpans ?? []) {
        const service = resourceSpans.resource?.attributes?.find((a: any) => a.key === 'service.name')?.value;
        for (const scope of resourceSpans.scopeSpans ?? [])
          for (const span of scope.spans ?? [])
            spans.push({
              traceId: hex(span.traceId),
              spanId: hex(span.spanId),
              parentSpanId: span.parentSpanId ? hex(span.parentSpanId) : undefined,
              name: span.name,
              kind: span.kind,
              status: span.status,
              service: service ? String(attributeValue(service)) : '',
              attributes: Object.fromEntries((span.attributes ?? []).map((a: any) => [a.key, attributeValue(a.value)])),
            });
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  return { server, spans, paths, bodies };
}

/** A webhook receiver: every POST's headers. */
function webhookReceiver() {
  const received: IncomingHttpHeaders[] = [];
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      received.push(req.headers);
      res.writeHead(204).end();
    });
  });
  return { server, received };
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** A new trace of the test's: its id, and the `traceparent` naming the test's own span as parent. */
function newTrace() {
  const traceId = randomBytes(16).toString('hex');
  const parent = randomBytes(8).toString('hex');
  return { traceId, parent, traceparent: `00-${traceId}-${parent}-01` };
}

const receiver = otlpReceiver();
const hooks = webhookReceiver();
let service: ChildProcess;
let url: string;
let output = '';

beforeAll(async () => {
  const collector = await listen(receiver.server);
  const hookBase = await listen(hooks.server);
  const databaseUrl = await createDatabase();
  // As `npm start` runs the service: its Node flags, the tracing preload among them.
  service = spawn(process.execPath, [...npmStartNodeFlags(), path.resolve('dist/src/main.js')], {
    env: {
      ...process.env,
      NODE_OPTIONS: '',
      DATABASE_URL: databaseUrl,
      ADMIN_TOKEN,
      PORT: '0',
      SEED_DEMO: 'false',
      OUTBOX_WORKER: 'true',
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
      LOG_LEVEL: 'warn',
      OTEL_EXPORTER_OTLP_ENDPOINT: collector,
      OTEL_SERVICE_NAME: 'store-under-test',
      OTEL_BSP_SCHEDULE_DELAY: '100',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  service.stdout?.on('data', (chunk) => (output += chunk));
  service.stderr?.on('data', (chunk) => (output += chunk));
  url = (await until(async () => /listening on (http:\/\/\S+)/.exec(output)?.[1], 30_000).catch(() => {
    throw new Error(`the service did not start:\n${output}`);
  })) as string;
  const subscribed = await fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json' },
    body: JSON.stringify({
      query: 'mutation ($u: String!, $e: [String!]!) { createWebhookSubscription(url: $u, events: $e) { secret } }',
      variables: { u: `${hookBase}/hook`, e: ['order.notes_changed', 'bulk_operation.finished'] },
    }),
  });
  expect(((await subscribed.json()) as any).errors).toBeUndefined();
}, 60_000);

afterAll(async () => {
  if (service.exitCode === null) {
    const exited = new Promise((resolve) => service.once('exit', resolve));
    service.kill('SIGTERM');
    await exited;
  }
  receiver.server.close();
  hooks.server.close();
});

/** The spans of one trace, once `count` matches, each with its children listed. */
async function traceOf(traceId: string, done: (spans: Span[]) => boolean): Promise<Span[]> {
  return until(async () => {
    const spans = receiver.spans.filter((s) => s.traceId === traceId);
    return done(spans) ? spans : false;
  }, 15_000);
}

const childrenOf = (spans: Span[], parent: Span) => spans.filter((s) => s.parentSpanId === parent.spanId);
const one = (spans: Span[], name: string | RegExp) => {
  const found = spans.filter((s) => (typeof name === 'string' ? s.name === name : name.test(s.name)));
  expect(found.map((s) => s.name)).toEqual([expect.anything()]);
  return found[0];
};
/** The statement text of a pg span, whichever semantic-conventions version names it. */
const statementOf = (span: Span) => String(span.attributes['db.query.text'] ?? span.attributes['db.statement'] ?? '');
const ndjson = (lines: unknown[]) => `${lines.map((line) => JSON.stringify(line)).join('\n')}\n`;
const count = (spans: Span[], name: string) => spans.filter((s) => s.name === name).length;

/**
 * The spans of a bulk operation's trace once its two lines ran, it ended and the webhook deliveries
 * of its lines' notes changes and of its `bulk_operation.finished` event were attempted; checks that
 * each line is a span of the operation (in file order) under `parent`, the span of the request that
 * made it, holding its SQL statements (the order's update among them) and its own delivery.
 */
async function bulkLinesUnder(traceId: string, parentName: string, id: number, form: 'rest' | 'graphql') {
  const spans = await traceOf(
    traceId,
    (s) =>
      count(s, 'bulk line') === 2 &&
      count(s, 'webhook order.notes_changed') === 2 &&
      count(s, 'webhook bulk_operation.finished') === 1,
  );
  const parent = one(spans, parentName);
  const lines = childrenOf(spans, parent).filter((s) => s.name === 'bulk line');
  expect(lines.map((s) => s.attributes)).toEqual(
    [1, 2].map((line) => ({
      'bulk.operation.id': id,
      'bulk.line': line,
      'bulk.form': form,
      'bulk.line.failed': false,
      ...(form === 'rest' ? { 'http.response.status_code': 200 } : {}),
    })),
  );
  for (const line of lines) {
    const statements = childrenOf(spans, line).filter((s) => s.kind === 3 && statementOf(s) !== '');
    expect(statements.map(statementOf)).toContainEqual(expect.stringMatching(/^update "orders"/i));
    one(childrenOf(spans, line), 'webhook order.notes_changed');
  }
  // The operation's end, and the delivery of the event it records, are in the trace too.
  const end = one(childrenOf(spans, parent), 'bulk operation end');
  expect(end.attributes).toMatchObject({ 'bulk.operation.id': id, 'bulk.operation.status': 'completed' });
  one(childrenOf(spans, end), 'webhook bulk_operation.finished');
}

describe('with OTEL_EXPORTER_OTLP_ENDPOINT set', () => {
  it('a REST read is one trace: HTTP server span → REST route → GraphQL operation → SQL statements', async () => {
    const { traceId, parent, traceparent } = newTrace();
    const res = await fetch(`${url}/api/v1/orders/1?fields=id,notes`, { headers: { ...auth, traceparent } });
    expect(res.status).toBe(200);
    const spans = await traceOf(traceId, (s) => s.some((x) => x.kind === 2) && s.some((x) => x.name.startsWith('pg')));
    // The service continues the caller's trace: its server span's parent is the caller's span.
    const http = one(spans, /^GET /);
    expect(http).toMatchObject({ kind: 2, parentSpanId: parent, service: 'store-under-test' });
    expect(http.name).toBe('GET /api/v1/orders/:id');
    expect(http.attributes).toMatchObject({ 'http.route': '/api/v1/orders/:id' });
    const route = one(childrenOf(spans, http), /^router - /);
    expect(route.name).toBe('router - /api/v1/orders/:id');
    const operation = one(childrenOf(spans, route), 'query order');
    expect(operation.attributes).toMatchObject({
      'graphql.operation.type': 'query',
      'graphql.operation.name': 'order',
      'store.cost': 1,
    });
    const statements = childrenOf(spans, operation);
    expect(statements.length).toBeGreaterThan(0);
    for (const statement of statements) {
      expect(statement.kind).toBe(3); // CLIENT
      expect(statementOf(statement)).not.toBe('');
    }
    // Text with placeholders, never the values: the token check binds the token's hash as $1.
    const tokenCheck = statements.map(statementOf).find((text) => /api_token/.test(text));
    expect(tokenCheck).toMatch(/\$1/);
    expect(JSON.stringify(spans)).not.toContain(ADMIN_TOKEN);
  });

  it('a /graphql operation is a span named after it, with its type, name and cost, over its SQL', async () => {
    const { traceId, traceparent } = newTrace();
    const res = await fetch(`${url}/graphql`, {
      method: 'POST',
      headers: { ...auth, traceparent, 'content-type': 'application/json' },
      body: JSON.stringify({ query: 'query FirstProducts { products(size: 3) { items { id title } } }' }),
    });
    const body = (await res.json()) as any;
    expect(body.data.products.items).toHaveLength(3);
    const spans = await traceOf(traceId, (s) => s.some((x) => x.name === 'query FirstProducts') && s.length > 2);
    const http = one(spans, /^POST /);
    expect(http.name).toBe('POST /graphql');
    const operation = one(childrenOf(spans, http), 'query FirstProducts');
    expect(operation.attributes).toMatchObject({
      'graphql.operation.type': 'query',
      'graphql.operation.name': 'FirstProducts',
      'store.cost': body.extensions.cost,
    });
    expect(childrenOf(spans, operation).filter((s) => statementOf(s) !== '').length).toBeGreaterThan(0);
  });

  it("a write's webhook delivery is a span of the write's trace; its POST carries the traceparent", async () => {
    const { traceId, traceparent } = newTrace();
    const res = await fetch(`${url}/api/v1/orders/1`, {
      method: 'PATCH',
      headers: { ...auth, traceparent, 'content-type': 'application/json' },
      body: JSON.stringify({ notes: 'traced note' }),
    });
    expect(res.status).toBe(200);
    const headers = await until(async () => hooks.received.find((h) => h.traceparent?.includes(traceId)), 15_000);
    const spans = await traceOf(traceId, (s) => s.some((x) => x.name === 'webhook order.notes_changed'));
    const operation = one(spans, 'mutation updateOrder');
    const delivery = one(spans, 'webhook order.notes_changed');
    // The delivery hangs under the operation whose transaction queued it.
    expect(delivery.parentSpanId).toBe(operation.spanId);
    expect(delivery.attributes).toMatchObject({ 'webhook.event.type': 'order.notes_changed', 'webhook.attempt': 1 });
    const post = await until(async () => {
      const found = receiver.spans.filter((s) => s.traceId === traceId && s.parentSpanId === delivery.spanId);
      return found.length ? found[0] : false;
    }, 15_000);
    expect(post.kind).toBe(3); // CLIENT, instrumentation-http's
    // The receiver got the POST's own span as parent.
    expect(headers.traceparent).toBe(`00-${traceId}-${post.spanId}-01`);
  });

  it("a REST bulk operation's lines are spans of the trace of the request that made it", async () => {
    const { traceId, traceparent } = newTrace();
    const res = await fetch(`${url}/api/v1/bulk-operations`, {
      method: 'POST',
      headers: { ...auth, traceparent, 'content-type': 'application/x-ndjson' },
      body: ndjson(['one', 'two'].map((n) => ({ method: 'PATCH', path: '/orders/1', body: { notes: `bulk ${n}` } }))),
    });
    expect(res.status).toBe(202);
    const { id } = (await res.json()) as { id: number };
    await bulkLinesUnder(traceId, 'router - /api/v1/bulk-operations', id, 'rest');
  });

  it("a GraphQL bulk operation's lines are spans of bulkOperationRunMutation's trace", async () => {
    const uploaded = await fetch(`${url}/api/v1/bulk-operations/uploads`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/x-ndjson' },
      body: ndjson(['three', 'four'].map((n) => ({ id: 1, notes: `bulk ${n}` }))),
    });
    expect(uploaded.status).toBe(201);
    const { traceId, traceparent } = newTrace();
    const res = await fetch(`${url}/graphql`, {
      method: 'POST',
      headers: { ...auth, traceparent, 'content-type': 'application/json' },
      body: JSON.stringify({
        query:
          'mutation RunNotes($m: String!, $u: Int!) { bulkOperationRunMutation(mutation: $m, uploadId: $u) { id } }',
        variables: {
          m: 'mutation ($id: Int!, $notes: String) { updateOrder(id: $id, input: { notes: $notes }) { id } }',
          u: ((await uploaded.json()) as { id: number }).id,
        },
      }),
    });
    const body = (await res.json()) as any;
    expect(body.errors).toBeUndefined();
    await bulkLinesUnder(traceId, 'mutation RunNotes', body.data.bulkOperationRunMutation.id, 'graphql');
  });

  it('a statement is recorded without its values: no span holds a value the write sent', async () => {
    // MikroORM inlines values in the statement's text; the span must have `?` in their place.
    const marker = `traced-secret-${randomBytes(8).toString('hex')}`;
    const { traceId, traceparent } = newTrace();
    const res = await fetch(`${url}/api/v1/orders/1`, {
      method: 'PATCH',
      headers: { ...auth, traceparent, 'content-type': 'application/json' },
      body: JSON.stringify({ notes: `${marker} it's O'Brien's \\ note` }),
    });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { notes: string }).notes).toContain(marker);
    // Once the write's webhook delivery and its POST are in, the whole trace is.
    const spans = await traceOf(traceId, (s) => {
      const delivery = s.find((x) => x.name === 'webhook order.notes_changed');
      return !!delivery && s.some((x) => x.parentSpanId === delivery.spanId);
    });
    // No attribute of any span received, this trace's or another's, holds the value (nor an export).
    const holding = receiver.spans.filter((s) => Object.values(s.attributes).some((v) => String(v).includes(marker)));
    expect(holding.map((s) => `${s.name}: ${JSON.stringify(s.attributes)}`)).toEqual([]);
    expect(receiver.bodies.filter((body) => body.includes(marker))).toEqual([]);
    // The UPDATE's span is there, its text with `?` for each value (notes, id, version, time).
    const operation = one(spans, 'mutation updateOrder');
    const texts = childrenOf(spans, operation).map(statementOf);
    const update = texts.find((text) => /^update "orders"/i.test(text));
    expect(update).toMatch(/"notes" =\s+\?,/); // MikroORM writes an E string with one more space
    expect(update).toMatch(/ where "id" = \?$/);
    expect(update).not.toMatch(/'|\b1\b/);
    expect(texts).toContainEqual(expect.stringMatching(/set_config\(\?, \?, true\)/));
  });

  it('probes and the workers’ polls start no traces; everything is exported as OTLP/HTTP JSON', async () => {
    await fetch(`${url}/healthz`);
    await fetch(`${url}/readyz`);
    await new Promise((resolve) => setTimeout(resolve, 1500)); // polls of the outbox and webhook workers
    const names = receiver.spans.map((s) => s.name);
    expect(names.filter((n) => /healthz|readyz/.test(n))).toEqual([]);
    // Every trace is a request's (the subscription's in the set-up and the GraphQL upload started
    // their own, no traceparent given): each has its HTTP server span; no poll's statement, bulk
    // line or webhook delivery started one without a request.
    const traces = new Set(receiver.spans.map((s) => s.traceId));
    const withoutRequest = [...traces].filter((id) => !receiver.spans.some((s) => s.traceId === id && s.kind === 2));
    expect(withoutRequest).toEqual([]);
    expect(traces.size).toBe(8);
    expect(receiver.paths.every((p) => p === 'POST /v1/traces application/json')).toBe(true);
  });

  it('an operationName that is no GraphQL name is no pattern: answered at once, never a 500', async () => {
    const query = `query ${'a'.repeat(40)} { __typename }`;
    for (const operationName of ['(a+)+c', '(', '[']) {
      const started = Date.now();
      const res = await fetch(`${url}/graphql`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({ query, operationName }),
      });
      expect({ operationName, status: res.status }).toEqual({ operationName, status: 400 });
      expect(Date.now() - started).toBeLessThan(2000);
    }
  });
});

describe('without OTEL_EXPORTER_OTLP_ENDPOINT', () => {
  /** Runs the preload in a bare Node and says whether OpenTelemetry registered itself. */
  async function loadsOpenTelemetry(env: Record<string, string>): Promise<boolean> {
    const preload = npmStartNodeFlags().find((flag) => flag.startsWith('--import='));
    expect(preload).toBe('--import=./dist/src/observability/tracing-preload.js');
    const child = spawn(
      process.execPath,
      [preload!, '-e', "process.stdout.write(String(Symbol.for('opentelemetry.js.api.1') in globalThis))"],
      { env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let out = '';
    child.stdout?.on('data', (chunk) => (out += chunk));
    await new Promise((resolve) => child.once('close', resolve));
    return out === 'true';
  }

  it('nothing of OpenTelemetry is loaded: tracing off costs nothing per request', async () => {
    expect(await loadsOpenTelemetry({})).toBe(false);
    expect(
      await loadsOpenTelemetry({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9', OTEL_SDK_DISABLED: 'true' }),
    ).toBe(false);
    expect(await loadsOpenTelemetry({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9' })).toBe(true);
  });
});
