// `npm run seed -- --products N --customers N --orders N [--warehouses N] [--seed S]`: fill an
// empty database with a generated store (the demo store by default), streamed in chunks and
// written with COPY, so a store of 100k orders takes a minute or so. Beside a running `npm start`
// it uses that server's database.
import 'reflect-metadata';
import cliProgress from 'cli-progress';
import { loadConfig } from '../config.js';
import { openDatabase } from '../db/database.js';
import { seedIfEmpty } from '../seed/seed-store.js';
import { DEMO_STORE, type StoreSize } from '../seed/store-generator.js';
import { parseCommandLine, runCommand, UsageError } from './command-line.js';

const usage =
  `
usage: npm run seed -- [--products N] [--customers N] [--orders N] [--warehouses N] [--seed S]
Fills an empty store with a generated one (defaults: the demo store, ${DEMO_STORE.products} ` +
  `products, ${DEMO_STORE.customers} customers,
${DEMO_STORE.orders} orders, ${DEMO_STORE.warehouses} warehouses, seed ${DEMO_STORE.seed}). A store ` +
  `that holds products is left alone.
Uses DATABASE_URL, or the embedded PostgreSQL of DATA_DIR (the running store's, when it runs).
  -h, --help   this text`;

const { values } = parseCommandLine({
  usage,
  options: {
    products: { type: 'string' },
    customers: { type: 'string' },
    orders: { type: 'string' },
    warehouses: { type: 'string' },
    seed: { type: 'string' },
  },
});

await runCommand(async () => {
  const size: StoreSize = { ...DEMO_STORE };
  for (const key of ['products', 'customers', 'orders', 'warehouses', 'seed'] as const) {
    const raw = values[key];
    if (raw === undefined) continue;
    if (!/^\d+$/.test(raw)) throw new UsageError(`--${key} must be a non-negative integer`);
    size[key] = Number(raw);
  }

  const database = await openDatabase(loadConfig(), { shareRunning: true });
  try {
    const [{ any }] = await database.orm.em
      .getConnection()
      .execute<{ any: boolean }[]>('select exists (select 1 from product) as any');
    if (any) {
      process.stdout.write('The database already holds a store; nothing seeded (seed needs an empty database).\n');
      return;
    }
    // Progress counts the records asked for (products, customers, orders); rows counts every row written.
    const bar = new cliProgress.SingleBar(
      {
        format: 'seeding [{bar}] {percentage}% | {value}/{total} records | {rows} rows | {duration}s',
        etaBuffer: 50,
        noTTYOutput: true,
        notTTYSchedule: 5000,
      },
      cliProgress.Presets.shades_classic,
    );
    const records: Record<string, true> = { product: true, customer: true, orders: true };
    const started = Date.now();
    bar.start(size.products + size.customers + size.orders, 0, { rows: 0 });
    let rows = 0;
    let done = 0;
    const seeded = await seedIfEmpty(database.orm, size, (table, n) => {
      rows += n;
      if (records[table]) done += n;
      bar.update(done, { rows });
    }).finally(() => bar.stop());
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    process.stdout.write(
      seeded
        ? `Seeded ${size.products} products, ${size.customers} customers, ` +
            `${size.orders} orders (${rows} rows) in ${seconds} s.\n`
        : 'The database already holds a store; nothing seeded (seed needs an empty database).\n',
    );
  } finally {
    await database.close();
  }
}, usage);
