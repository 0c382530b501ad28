import type { EntityManager } from '@mikro-orm/postgresql';
import type { Row, Tables } from './store-generator.js';

/** Table order that satisfies every foreign key. */
const ORDER = [
  'store_settings', 'textarea_preset', 'shipping_carrier', 'warehouse', 'image', 'product', 'product_image', 'product_textarea',
  'product_option', 'option_thumbnail', 'product_variant', 'variant_image', 'inventory_level', 'collection', 'collection_product',
  'collection_image', 'collection_rule', 'customer', 'customer_address', 'customer_payment_method', 'orders', 'line_item',
  'fulfilment', 'fulfilment_item', 'shipment', 'shipment_item', 'restock', 'restock_item',
];
const MAX_PARAMS = 30_000;

/**
 * Inserts generated rows in batched multi-row INSERTs inside the caller's transaction, then moves
 * every id sequence past the ids used. Table and column names come from the generator (our
 * code), values always travel as parameters.
 */
export async function writeStore(em: EntityManager, tables: Tables, onProgress?: (rows: number) => void): Promise<void> {
  const connection = em.getConnection();
  const ctx = em.getTransactionContext();
  for (const table of ORDER) {
    const rows = tables.get(table);
    if (!rows?.length) continue;
    const columns = Object.keys(rows[0]);
    const perBatch = Math.max(1, Math.floor(MAX_PARAMS / columns.length));
    for (let start = 0; start < rows.length; start += perBatch) {
      const batch = rows.slice(start, start + perBatch);
      const params: unknown[] = [];
      const tuple = `(${columns.map(() => '?').join(', ')})`;
      for (const row of batch) for (const column of columns) params.push(toParam(row, column));
      await connection.execute(
        `insert into "${table}" (${columns.map((c) => `"${c}"`).join(', ')}) values ${batch.map(() => tuple).join(', ')}`,
        params,
        'run',
        ctx,
      );
      onProgress?.(batch.length);
    }
    await connection.execute(`select setval(pg_get_serial_sequence('"${table}"', 'id'), (select max(id) from "${table}"))`, [], 'all', ctx);
  }
}

function toParam(row: Row, column: string): unknown {
  const value = row[column];
  if (Array.isArray(value)) return `{${value.map((v) => `"${String(v).replace(/(["\\])/g, '\\$1')}"`).join(',')}}`;
  return value;
}
