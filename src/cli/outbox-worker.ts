// `npm run worker`: delivers outbox e-mails without serving HTTP (the server runs one too, unless
// OUTBOX_WORKER=false). Any number of workers may run against one database.
import 'reflect-metadata';
import { loadConfig } from '../config.js';
import { openDatabase } from '../db/database.js';
import { logger } from '../logger.js';
import { createMailer } from '../notifications/mailer.js';
import { OutboxWorker } from '../notifications/outbox-worker.js';

const config = loadConfig();
const database = await openDatabase(config);
const mailer = createMailer(config.SMTP_URL, config.MAIL_FROM);
const worker = new OutboxWorker(database.orm, mailer);
worker.start();
logger.info('outbox worker running');
const keepAlive = setInterval(() => undefined, 60_000);
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.once(signal, async () => {
    clearInterval(keepAlive);
    await worker.stop();
    mailer.close();
    await database.close();
    process.exit(0);
  });
}
