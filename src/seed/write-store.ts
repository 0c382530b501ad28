import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { PoolClient } from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { customerStatisticsQuery } from '../domain/customer-statistics.js';
import type { Row, Tables } from './store-generator.js';

/**
 * The tables the generator fills, in an order that satisfies every foreign key. A table the demo
 * store has no rows for (a new list/read entity, say) needs no entry: only tables in a chunk are written.
 */
const ORDER = [
  'store_settings',
  'textarea_preset',
  'shipping_carrier',
  'warehouse',
  'image',
  'product',
  'product_image',
  'product_textarea',
  'product_option',
  'option_thumbnail',
  'product_variant',
  'variant_image',
  'inventory_level',
  'inventory_movement',
  'collection',
  'collection_product',
  'collection_image',
  'collection_rule',
  'customer',
  'customer_address',
  'customer_payment_method',
  'orders',
  'line_item',
  'fulfilment',
  'fulfilment_item',
  'shipment',
  'shipment_item',
  'restock',
  'restock_item',
];
/** Rows per COPY text buffer handed to the stream (keeps one string well below V8's limits). */
const ROWS_PER_BUFFER = 5_000;

/**
 * Writes generated chunks with `COPY … FROM STDIN` on the caller's connection (inside its
 * transaction): each chunk table by table in foreign-key order; then, in one statement, the
 * statistics of every customer with orders, by the domain's own query; then every id sequence
 * past the ids used. Table and column names come from the generator (our code); values are encoded
 * in COPY's text format.
 */
export async function writeStore(
  client: PoolClient,
  chunks: Iterable<Tables>,
  onProgress?: (table: string, rows: number) => void,
): Promise<void> {
  const written = new Set<string>();
  for (const chunk of chunks) {
    for (const table of chunk.keys()) {
      if (!ORDER.includes(table)) throw new Error(`the generator made rows for an unknown table ${table}`);
    }
    for (const table of ORDER) {
      const rows = chunk.get(table);
      if (!rows?.length) continue;
      await copyRows(client, table, rows);
      written.add(table);
      onProgress?.(table, rows.length);
    }
  }
  if (written.has('orders')) {
    const { rowCount } = await client.query(`update customer c set order_count = s.order_count,
      lifetime_spent = s.lifetime_spent, last_purchase = s.last_purchase
      from (${customerStatisticsQuery('true')}) s where s.id = c.id and s.order_count > 0`);
    onProgress?.('customer_statistics', rowCount ?? 0);
  }
  for (const table of written) {
    await client.query(`select setval(pg_get_serial_sequence('"${table}"', 'id'), (select max(id) from "${table}"))`);
  }
}

async function copyRows(client: PoolClient, table: string, rows: Row[]): Promise<void> {
  const columns = Object.keys(rows[0]);
  const stream = client.query(copyFrom(`copy "${table}" (${columns.map((c) => `"${c}"`).join(', ')}) from stdin`));
  await pipeline(Readable.from(buffers(rows, columns)), stream);
}

function* buffers(rows: Row[], columns: string[]): Generator<string> {
  for (let start = 0; start < rows.length; start += ROWS_PER_BUFFER) {
    let text = '';
    const end = Math.min(rows.length, start + ROWS_PER_BUFFER);
    for (let i = start; i < end; i++) {
      const row = rows[i];
      for (let c = 0; c < columns.length; c++) text += (c ? '\t' : '') + copyValue(row[columns[c]]);
      text += '\n';
    }
    yield text;
  }
}

/** One value in COPY's text format: `\N` for null, backslash escapes, arrays as array literals. */
function copyValue(value: unknown): string {
  if (value === null || value === undefined) return '\\N';
  if (typeof value === 'string') return escapeText(value);
  if (typeof value === 'boolean') return value ? 't' : 'f';
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value))
    return escapeText(`{${value.map((v) => `"${String(v).replace(/(["\\])/g, '\\$1')}"`).join(',')}}`);
  return escapeText(String(value));
}

const ESCAPES: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };

function escapeText(text: string): string {
  return /[\\\t\n\r]/.test(text) ? text.replace(/[\\\t\n\r]/g, (c) => ESCAPES[c]) : text;
}
