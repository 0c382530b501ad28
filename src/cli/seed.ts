// `npm run seed -- --products N --customers N --orders N [--warehouses N] [--seed S]`: fill an
// empty database with a generated store (the demo store by default).
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
const bar = new cliProgress.SingleBar({ format: 'seeding [{bar}] {value} rows', etaBuffer: 50 }, cliProgress.Presets.shades_classic);
try {
  bar.start(0, 0);
  let rows = 0;
  const seeded = await seedIfEmpty(database.orm, size, (n) => bar.update((rows += n)));
  bar.stop();
  process.stdout.write(seeded ? `Seeded ${size.products} products, ${size.customers} customers, ${size.orders} orders.\n` : 'The database already holds a store; nothing seeded.\n');
} finally {
  await database.close();
}
