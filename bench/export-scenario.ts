// The export scenario of `npm run bench` (docs/rest.md#exports): rows/s of `GET /api/v1/orders/export`
// beside the physical limit measured in the same run, `COPY (SELECT json of the same rows) TO STDOUT`
// through the same driver (pg), and the service's peak RSS during a fast and during a slow reader.

import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { to as copyTo } from 'pg-copy-streams';
import { ORDER_JSON } from './baseline-server.js';

export interface ExportResult {
  /** Records the export streamed (its complete line's count), and in how long. */
  rows: number;
  seconds: number;
  rowsPerSecond: number;
  /**
   * The same records as JSON through COPY … TO STDOUT: the limit. Each order in its REST shape with
   * every relation the export holds (line items, fulfilments, shipments, restocks, the customer),
   * written by the baseline's hand-written SQL.
   */
  copyRows: number;
  copySeconds: number;
  copyRowsPerSecond: number;
  /** rowsPerSecond ÷ copyRowsPerSecond. */
  ratio: number;
  /** The service's peak RSS while the export was read as fast as possible. */
  peakRssMb: number;
  /** …and while a client read another one slowly for `slowSeconds`, then went away. */
  slowReaderPeakRssMb: number;
  slowSeconds: number;
  /** The orders' own plain columns (`?fields=…`, lines PostgreSQL writes), beside COPY of the same columns. */
  plain?: { rowsPerSecond: number; copyRowsPerSecond: number; ratio: number };
  /**
   * A narrower COPY: each order's row with its line items only (`json_build_object('order', o,
   * 'items', …)`), less JSON per order than the export writes; the limit the first runs used.
   */
  ordersWithItems?: { copyRowsPerSecond: number; ratio: number };
}

/** Goals of issue 23: at least half the COPY rate, the service within 250 MB. */
export const EXPORT_RATIO_GOAL = 0.5;
export const EXPORT_RSS_GOAL_MB = 250;

/** Each order's row as one JSON value with its line items, nothing else (see ExportResult.ordersWithItems). */
const COPY_ORDERS_WITH_ITEMS = `COPY (SELECT json_build_object('order', o, 'items',
  (SELECT coalesce(json_agg(li ORDER BY li.id), '[]'::json) FROM line_item li WHERE li.order_id = o.id))
  FROM orders o ORDER BY o.id) TO STDOUT`;

function newlines(chunk: Buffer): number {
  let n = 0;
  for (let at = chunk.indexOf(10); at !== -1; at = chunk.indexOf(10, at + 1)) n++;
  return n;
}

/**
 * The order's own plain columns: an export PostgreSQL writes line by line (docs/rest.md#exports),
 * beside COPY of the same columns as JSON.
 */
const PLAIN_FIELDS = '?fields=id,email,status,paid,tax,total,ip,refunded,refund_possible,order_date,updated_at,notes';
const COPY_PLAIN = `COPY (SELECT json_build_object('id', o.id, 'email', o.email, 'status', o.status, 'paid', o.paid,
  'tax', o.tax, 'total', o.total, 'ip', o.ip, 'refunded', o.refunded, 'refund_possible', o.refund_possible,
  'order_date', o.order_date, 'updated_at', o.updated_at, 'notes', o.notes) FROM orders o ORDER BY o.id) TO STDOUT`;

const COPY_SAME_RECORDS = `COPY (SELECT ${ORDER_JSON} FROM orders o ORDER BY o.id) TO STDOUT`;

async function copyLimit(databaseUrl: string, copy: string): Promise<{ rows: number; seconds: number }> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const started = performance.now();
    let rows = 0;
    for await (const chunk of client.query(copyTo(copy)) as AsyncIterable<Buffer>) rows += newlines(chunk);
    return { rows, seconds: (performance.now() - started) / 1000 };
  } finally {
    await client.end();
  }
}

/** Reads the whole export, counting lines; the last one must be the complete line. */
async function readExport(url: string, token: string, query = ''): Promise<{ rows: number; seconds: number }> {
  const started = performance.now();
  const res = await fetch(`${url}/api/v1/orders/export${query}`, { headers: { authorization: `Bearer ${token}` } });
  if (res.status !== 200 || !res.body) throw new Error(`GET /api/v1/orders/export answered ${res.status}`);
  let lines = 0;
  let tail = '';
  for await (const chunk of res.body as AsyncIterable<Uint8Array>) {
    const buffer = Buffer.from(chunk);
    lines += newlines(buffer);
    tail = (tail + buffer.toString('utf8')).slice(-200);
  }
  const last = JSON.parse(tail.trimEnd().split('\n').pop()!) as { complete?: boolean; count?: number };
  if (last.complete !== true || last.count !== lines - 1)
    throw new Error(`the export ended without its complete line (${lines} lines)`);
  return { rows: last.count, seconds: (performance.now() - started) / 1000 };
}

/** A client that reads a little every 100 ms for `seconds`, then goes away. */
async function readSlowly(url: string, token: string, seconds: number): Promise<void> {
  const abort = new AbortController();
  const res = await fetch(`${url}/api/v1/orders/export`, {
    headers: { authorization: `Bearer ${token}` },
    signal: abort.signal,
  });
  const reader = res.body!.getReader();
  const until = Date.now() + seconds * 1000;
  while (Date.now() < until) {
    if ((await reader.read()).done) break;
    await sleep(100);
  }
  abort.abort();
  await reader.read().catch(() => undefined);
}

export async function measureExport(options: {
  url: string;
  token: string;
  databaseUrl: string;
  rss: { reset(): Promise<void>; peakMb(): Promise<number> };
  slowSeconds?: number;
}): Promise<ExportResult> {
  const copy = await copyLimit(options.databaseUrl, COPY_SAME_RECORDS);
  await options.rss.reset();
  const fast = await readExport(options.url, options.token);
  const peakRssMb = Math.round(await options.rss.peakMb());
  const slowSeconds = options.slowSeconds ?? 5;
  await options.rss.reset();
  await readSlowly(options.url, options.token, slowSeconds);
  const slowReaderPeakRssMb = Math.round(await options.rss.peakMb());
  const rowsPerSecond = fast.rows / fast.seconds;
  const copyRowsPerSecond = copy.rows / copy.seconds;
  const plainCopy = await copyLimit(options.databaseUrl, COPY_PLAIN);
  const plainExport = await readExport(options.url, options.token, PLAIN_FIELDS);
  const plainRate = plainExport.rows / plainExport.seconds;
  const plainCopyRate = plainCopy.rows / plainCopy.seconds;
  const plain = {
    rowsPerSecond: Math.round(plainRate),
    copyRowsPerSecond: Math.round(plainCopyRate),
    ratio: Math.round((plainRate / plainCopyRate) * 100) / 100,
  };
  const narrow = await copyLimit(options.databaseUrl, COPY_ORDERS_WITH_ITEMS);
  const narrowRate = narrow.rows / narrow.seconds;
  const ordersWithItems = {
    copyRowsPerSecond: Math.round(narrowRate),
    ratio: Math.round((rowsPerSecond / narrowRate) * 100) / 100,
  };
  return {
    rows: fast.rows,
    seconds: Math.round(fast.seconds * 100) / 100,
    rowsPerSecond: Math.round(rowsPerSecond),
    copyRows: copy.rows,
    copySeconds: Math.round(copy.seconds * 100) / 100,
    copyRowsPerSecond: Math.round(copyRowsPerSecond),
    ratio: Math.round((rowsPerSecond / copyRowsPerSecond) * 100) / 100,
    peakRssMb,
    slowReaderPeakRssMb,
    slowSeconds,
    plain,
    ordersWithItems,
  };
}
