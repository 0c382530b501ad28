// `npm run migrate`: apply the committed migrations to DATABASE_URL (or the embedded database).
import 'reflect-metadata';
import { loadConfig } from '../config.js';
import { openDatabase } from '../db/database.js';

const database = await openDatabase(loadConfig());
const executed = await database.orm.migrator.getExecuted();
process.stdout.write(`Migrations applied: ${executed.map((m) => m.name).join(', ') || 'none'}\n`);
await database.close();
