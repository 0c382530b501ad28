// `npm run seed -- --products N --customers N --orders N [--warehouses N] [--seed S]`: fill an
// empty database with a generated store (the demo store by default), streamed in chunks and
// written with COPY, so a store of 100k orders takes a minute or so.
import 'reflect-metadata';
import cliProgress from 'cli-progress';
import { parseArgs } from 'node:util';
import { loadConfig } from '../config.js';
import { openDatabase } from '../db/database.js';
import { seedIfEmpty } from '../seed/seed-store.js';
import { DEMO_STORE, type StoreSize } from '../seed/store-generator.js';

const { values } = parseArgs({
  options: {
    products: { type: 'string' }, customers: { type: 'string' }, orders: { type: 'string' },
    warehouses: { type: 'string' }, seed: { type: 'string' },
  },
});
const size: StoreSize = { ...DEMO_STORE };
for (const key of ['products', 'customers', 'orders', 'warehouses', 'seed'] as const) {
  const raw = values[key];
  if (raw === undefined) continue;
  if (!/^\d+$/.test(raw)) {
    process.stderr.write(`--${key} must be a non-negative integer\n`);
    process.exit(2);
  }
  size[key] = Number(raw);
}

const database = await openDatabase(loadConfig());
// Progress counts the records asked for (products, customers, orders); rows counts every row written.
const bar = new cliProgress.SingleBar(
  { format: 'seeding [{bar}] {percentage}% | {value}/{total} records | {rows} rows | {duration}s', etaBuffer: 50, noTTYOutput: true, notTTYSchedule: 5000 },
  cliProgress.Presets.shades_classic,
);
const records: Record<string, true> = { product: true, customer: true, orders: true };
const started = Date.now();
try {
  bar.start(size.products + size.customers + size.orders, 0, { rows: 0 });
  let rows = 0;
  let done = 0;
  const seeded = await seedIfEmpty(database.orm, size, (table, n) => {
    rows += n;
    if (records[table]) done += n;
    bar.update(done, { rows });
  });
  bar.stop();
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  process.stdout.write(
    seeded
      ? `Seeded ${size.products} products, ${size.customers} customers, ${size.orders} orders (${rows} rows) in ${seconds} s.\n`
      : 'The database already holds a store; nothing seeded.\n',
  );
} finally {
  await database.close();
}
