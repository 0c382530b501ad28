// `npm run migrate`: apply the committed migrations to DATABASE_URL (or the embedded database,
// the running store's when it runs).
import 'reflect-metadata';
import { loadConfig } from '../config.js';
import { openDatabase } from '../db/database.js';
import { parseCommandLine, runCommand } from './command-line.js';

const usage = `
usage: npm run migrate
Applies the committed migrations (the store also applies them on start) and lists every migration
the database has had, these included.
Uses DATABASE_URL, or the embedded PostgreSQL of DATA_DIR (the running store's, when it runs).
  -h, --help   this text`;

parseCommandLine({ usage, options: {} });
await runCommand(async () => {
  const database = await openDatabase(loadConfig(), { shareRunning: true });
  try {
    const executed = await database.orm.migrator.getExecuted();
    process.stdout.write(`Migrations applied: ${executed.map((m) => m.name).join(', ') || 'none'}\n`);
  } finally {
    await database.close();
  }
}, usage);
