// The bulk scenario of `npm run bench` (issue 38, docs/performance.md#the-bulk-scenario): 10,000
// lines, a fulfilment creation and an order-note PATCH for each of 5,000 orders, run as one bulk
// operation against the service as configured (rate limit on, charged once), and the same 10,000
// requests sent one by one against a second process of the store with rate limiting off, over one
// keep-alive connection (the way a sync script sends them) and over 4. Then the p99 of interactive
// reads without and during a bulk operation, and the service's peak RSS while it takes a
// 1,000,000-line upload. Every line and request must succeed (the run fails otherwise); what the
// scenario made is deleted again, by bulk operations of DELETE lines, untimed.
import os from 'node:os';
import { Readable } from 'node:stream';
import autocannon from 'autocannon';
import pg from 'pg';
import type { DriveLoad } from './report.js';

/** bench/results/bulk-orders-N.json (bench/run.ts adds the command, date, machine and store). */
export interface BulkResult {
  lines: number;
  /** The operation from the upload's first byte to its completion: the integrator's wait. */
  bulk: {
    seconds: number;
    linesPerSecond: number;
    uploadSeconds: number;
    cpuMsPerLine: number;
    linesPerTransaction: number;
  };
  /** The same requests one by one, per connection count (rate limiting off on that process). */
  oneByOne: { connections: number; seconds: number; rps: number; cpuMsPerRequest: number; p50: number; p99: number }[];
  /** Bulk lines/s ÷ one-by-one requests/s, by connections. */
  ratios: Record<string, number>;
  /** GET /orders/{id} at 1 connection for the same time, alone and while a bulk operation runs. */
  reads: { alone: DriveLoad; duringBulk: DriveLoad; p99Ratio: number; bulkLinesPerSecondMeanwhile: number };
  /** A 1,000,000-line file uploaded to a process that runs no bulk work (BULK_CONCURRENCY=0). */
  upload: { lines: number; megabytes: number; seconds: number; peakRssMb: number };
  loadAverage: number[];
}

export interface BulkHarness {
  /** The service as the bench runs it; `pid` for its CPU and RSS. */
  service: { url: string; pid: number };
  /** A second process of the store with rate limiting off: the one-by-one side. */
  oneByOne: { url: string; pid: number };
  /** Starts a process of the store that runs no bulk work, for the large upload; stopped by the caller's `stop`. */
  startUploadTarget(): Promise<{ url: string; pid: number; stop(): Promise<void> }>;
  databaseUrl: string;
  token: string;
  /** Seconds of each read drive. */
  duration: number;
  log(line: string): void;
  cpuMs(pid: number): Promise<number>;
  rss: { reset(pid: number): Promise<void>; peakMb(pid: number): Promise<number> };
  failure(message: string): Error;
}

export const BULK_GOALS = { oneConnection: 5, fourConnections: 2, readP99: 2, uploadRssMb: 250 } as const;
const ORDERS = 5000;
const UPLOAD_LINES = 1_000_000;
const round2 = (x: number) => Math.round(x * 100) / 100;

interface Target {
  order: number;
  line: number;
}

type Line = { method: 'POST' | 'PATCH' | 'DELETE'; path: string; body?: unknown };
/** What the bench reads of an order a write answered. */
type OrderAnswer = { id: number; fulfilments: { id: number }[] };

/** The file: for each order, a fulfilment of one unit of an untracked line (no stock involved), then its notes. */
function fileOf(targets: Target[], tag: string): Line[] {
  return targets.flatMap((t) => [
    { method: 'POST', path: `/orders/${t.order}/fulfilments`, body: { items: [{ id: t.line, quantity: 1 }] } },
    { method: 'PATCH', path: `/orders/${t.order}`, body: { notes: `bulk bench ${tag}` } },
  ]);
}

const ndjson = (lines: Line[]) => `${lines.map((line) => JSON.stringify(line)).join('\n')}\n`;

async function api(
  h: BulkHarness,
  url: string,
  method: string,
  path: string,
  body?: string,
  type = 'application/json',
) {
  const res = await fetch(`${url}${path}`, {
    method,
    headers: { authorization: `Bearer ${h.token}`, ...(body === undefined ? {} : { 'content-type': type }) },
    body,
  });
  const text = await res.text();
  if (!res.ok) throw h.failure(`${method} ${path} answered ${res.status}: ${text.slice(0, 300)}`);
  return text;
}

/** Uploads a file and waits for its operation to end; its id and when it ended. */
async function runOperation(h: BulkHarness, url: string, lines: Line[]) {
  const started = performance.now();
  const made = JSON.parse(await api(h, url, 'POST', '/api/v1/bulk-operations', ndjson(lines), 'application/x-ndjson'));
  const uploaded = performance.now();
  for (;;) {
    const op = JSON.parse(await api(h, url, 'GET', `/api/v1/bulk-operations/${made.id}`));
    if (op.status === 'completed') return { id: made.id as number, op, started, uploaded, ended: performance.now() };
    if (op.status !== 'running' && op.status !== 'created')
      throw h.failure(`bulk operation ${made.id} ended ${op.status}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The results of an operation, parsed. */
async function resultsOf(h: BulkHarness, url: string, id: number) {
  const text = await api(h, url, 'GET', `/api/v1/bulk-operations/${id}/results`);
  return text
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { line: number; status: number; body: OrderAnswer });
}

/** Deletes the fulfilments made (untimed): one bulk operation of DELETE lines. */
async function deleteFulfilments(h: BulkHarness, made: { order: number; fulfilment: number }[]) {
  if (!made.length) return;
  const lines = made.map((m) => ({
    method: 'DELETE' as const,
    path: `/orders/${m.order}/fulfilments/${m.fulfilment}`,
  }));
  const { id, op } = await runOperation(h, h.service.url, lines);
  if (op.failed_lines) throw h.failure(`cleaning up: ${op.failed_lines} deletions failed (operation ${id})`);
}

/** The fulfilment a fulfilment creation's answer (the whole order) made: its newest one. */
const newestFulfilment = (order: OrderAnswer) => Math.max(...(order.fulfilments as { id: number }[]).map((f) => f.id));

/** The same requests one by one over `connections` keep-alive connections, each answer checked. */
async function oneByOne(h: BulkHarness, lines: Line[], connections: number) {
  let next = 0;
  const made: { order: number; fulfilment: number }[] = [];
  let failed = '';
  const cpuBefore = await h.cpuMs(h.oneByOne.pid);
  const started = performance.now();
  const result = await autocannon({
    url: h.oneByOne.url,
    connections,
    amount: lines.length,
    timeout: 60,
    headers: { authorization: `Bearer ${h.token}`, 'content-type': 'application/json' },
    requests: [
      {
        setupRequest: (req, context) => {
          const line = lines[next++ % lines.length];
          context.line = line;
          return { ...req, method: line.method, path: `/api/v1${line.path}`, body: JSON.stringify(line.body) };
        },
        onResponse: (status, body, context) => {
          if (status < 200 || status > 299) failed ||= `${status} ${body.slice(0, 300)}`;
          const line = context.line as Line;
          if (status === 201 && line.method === 'POST') {
            const order = JSON.parse(body);
            made.push({ order: order.id, fulfilment: newestFulfilment(order) });
          }
        },
      },
    ],
  });
  const cpu = (await h.cpuMs(h.oneByOne.pid)) - cpuBefore;
  if (failed || result.non2xx || result.errors || result.timeouts)
    throw h.failure(`one by one at ${connections}: ${result.non2xx} non-2xx, ${result.errors} errors; e.g. ${failed}`);
  const seconds = (performance.now() - started) / 1000;
  return {
    made,
    load: {
      connections,
      seconds: round2(seconds),
      rps: Math.round(result.requests.total / seconds),
      cpuMsPerRequest: round2(cpu / result.requests.total),
      p50: result.latency.p50,
      p99: result.latency.p99,
    },
  };
}

/** GET /orders/{id} over one connection for `seconds`, ids spread over the first 10,000 orders. */
async function reads(h: BulkHarness, seconds: number): Promise<DriveLoad> {
  let i = 0;
  const result = await autocannon({
    url: h.service.url,
    connections: 1,
    duration: seconds,
    headers: { authorization: `Bearer ${h.token}` },
    requests: [{ setupRequest: (req) => ({ ...req, path: `/api/v1/orders/${((i++ * 7919 + 17) % 10_000) + 1}` }) }],
  });
  if (result.non2xx || result.errors) throw h.failure(`reads: ${result.non2xx} non-2xx, ${result.errors} errors`);
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    requests: result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors,
  };
}

/** The 1,000,000-line file, made as it is sent (never held whole by the bench). */
function bigFile(orders: number[]): { stream: ReadableStream<Uint8Array>; bytes: () => number } {
  let sent = 0;
  let bytes = 0;
  const encoder = new TextEncoder();
  const stream = Readable.toWeb(
    Readable.from(
      (function* () {
        while (sent < UPLOAD_LINES) {
          let chunk = '';
          for (let k = 0; k < 1000 && sent < UPLOAD_LINES; k++, sent++) {
            const line: Line = {
              method: 'PATCH',
              path: `/orders/${orders[sent % orders.length]}`,
              body: { notes: `line ${sent + 1}` },
            };
            chunk += `${JSON.stringify(line)}\n`;
          }
          const encoded = encoder.encode(chunk);
          bytes += encoded.length;
          yield encoded;
        }
      })(),
    ),
  ) as ReadableStream<Uint8Array>;
  return { stream, bytes: () => bytes };
}

export async function measureBulk(h: BulkHarness, linesPerTransaction: number): Promise<BulkResult> {
  const loadAverage = os.loadavg().map(round2);
  const client = new pg.Client({ connectionString: h.databaseUrl });
  await client.connect();
  let targets: Target[];
  try {
    // Orders with a unit left to fulfil of a product that tracks no inventory, one line each.
    targets = (
      await client.query<Target>(
        `select distinct on (o.id) o.id as "order", li.id as line from orders o join line_item li on li.order_id = o.id
          where li.not_fulfilled > 0 and not li.track_inventory order by o.id, li.id limit ${ORDERS}`,
      )
    ).rows;
  } finally {
    await client.end();
  }
  if (targets.length < ORDERS)
    throw h.failure(`the store has only ${targets.length} orders with an untracked unit to fulfil`);
  const file = fileOf(targets, 'A');

  h.log(`  bulk: ${file.length} lines as one operation…`);
  const cpuBefore = await h.cpuMs(h.service.pid);
  const ran = await runOperation(h, h.service.url, file);
  const cpuBulk = (await h.cpuMs(h.service.pid)) - cpuBefore;
  if (ran.op.failed_lines) {
    const failed = (await resultsOf(h, h.service.url, ran.id)).find((r) => r.status >= 400);
    throw h.failure(`bulk: ${ran.op.failed_lines} lines failed, e.g. ${JSON.stringify(failed).slice(0, 300)}`);
  }
  const seconds = (ran.ended - ran.started) / 1000;
  const bulk = {
    seconds: round2(seconds),
    linesPerSecond: Math.round(file.length / seconds),
    uploadSeconds: round2((ran.uploaded - ran.started) / 1000),
    cpuMsPerLine: round2(cpuBulk / file.length),
    linesPerTransaction,
  };
  const madeByBulk = (await resultsOf(h, h.service.url, ran.id))
    .filter((r) => r.status === 201)
    .map((r) => ({ order: r.body.id as number, fulfilment: newestFulfilment(r.body) }));
  await deleteFulfilments(h, madeByBulk);

  const sides: BulkResult['oneByOne'] = [];
  for (const connections of [1, 4]) {
    h.log(`  one by one: the same ${file.length} requests over ${connections} connection(s)…`);
    const { made, load } = await oneByOne(h, fileOf(targets, `B${connections}`), connections);
    sides.push(load);
    await deleteFulfilments(h, made);
  }
  const ratios = Object.fromEntries(sides.map((s) => [String(s.connections), round2(bulk.linesPerSecond / s.rps)]));

  h.log(`  interactive reads alone, then during a bulk operation (${h.duration} s each)…`);
  const alone = await reads(h, h.duration);
  const notesOnly = targets.map((t) => ({
    method: 'PATCH' as const,
    path: `/orders/${t.order}`,
    body: { notes: 'bulk bench C' },
  }));
  const during = JSON.parse(
    await api(
      h,
      h.service.url,
      'POST',
      '/api/v1/bulk-operations',
      ndjson([notesOnly, notesOnly, notesOnly, notesOnly].flat()),
      'application/x-ndjson',
    ),
  );
  await new Promise((resolve) => setTimeout(resolve, 200));
  const processedBefore = JSON.parse(
    await api(h, h.service.url, 'GET', `/api/v1/bulk-operations/${during.id}`),
  ).processed_lines;
  const duringBulk = await reads(h, h.duration);
  const meanwhile = JSON.parse(await api(h, h.service.url, 'GET', `/api/v1/bulk-operations/${during.id}`));
  if (meanwhile.status !== 'running')
    throw h.failure(`the bulk operation beside the reads was ${meanwhile.status} before they ended`);
  await api(h, h.service.url, 'POST', `/api/v1/bulk-operations/${during.id}/cancel`);

  h.log(`  a ${UPLOAD_LINES}-line upload to a process that runs no bulk work…`);
  const target = await h.startUploadTarget();
  let upload: BulkResult['upload'];
  try {
    await h.rss.reset(target.pid);
    const big = bigFile(targets.map((t) => t.order));
    const started = performance.now();
    const res = await fetch(`${target.url}/api/v1/bulk-operations`, {
      method: 'POST',
      headers: { authorization: `Bearer ${h.token}`, 'content-type': 'application/x-ndjson' },
      body: big.stream,
      duplex: 'half',
    } as RequestInit);
    const answer = await res.text();
    if (res.status !== 202)
      throw h.failure(`the ${UPLOAD_LINES}-line upload answered ${res.status}: ${answer.slice(0, 300)}`);
    upload = {
      lines: UPLOAD_LINES,
      megabytes: round2(big.bytes() / 1024 / 1024),
      seconds: round2((performance.now() - started) / 1000),
      peakRssMb: Math.round(await h.rss.peakMb(target.pid)),
    };
    // Never run: deleted with its lines at once rather than left for the retention purge.
    const { id } = JSON.parse(answer) as { id: number };
    const admin = new pg.Client({ connectionString: h.databaseUrl });
    await admin.connect();
    try {
      await admin.query('delete from bulk_upload where id = (select upload_id from bulk_operation where id = $1)', [
        id,
      ]);
    } finally {
      await admin.end();
    }
  } finally {
    await target.stop();
  }

  return {
    lines: file.length,
    bulk,
    oneByOne: sides,
    ratios,
    reads: {
      alone,
      duringBulk,
      p99Ratio: round2(duringBulk.p99 / Math.max(1, alone.p99)),
      bulkLinesPerSecondMeanwhile: Math.round((meanwhile.processed_lines - processedBefore) / h.duration),
    },
    upload,
    loadAverage,
  };
}
