// `npm run worker`: delivers outbox e-mails without serving HTTP (the server runs one too, unless
// OUTBOX_WORKER=false). Any number of workers may run against one database; beside a running
// `npm start` it uses that server's database.
import 'reflect-metadata';
import { loadConfig } from '../config.js';
import { openDatabase } from '../db/database.js';
import { EventRetention } from '../db/event-retention.js';
import { logger } from '../logger.js';
import { createMailer } from '../notifications/mailer.js';
import { OutboxWorker } from '../notifications/outbox-worker.js';
import { WebhookWorker } from '../webhooks/webhook-worker.js';
import { parseCommandLine, runCommand } from './command-line.js';

const usage = `
usage: npm run worker
Delivers what the store queued (shipment e-mails and webhooks) and purges events older than
EVENT_RETENTION_DAYS (hourly) until SIGTERM/SIGINT. Any number
of workers may run beside the servers; none sends a message or makes a webhook attempt another took.
Uses DATABASE_URL, or the embedded PostgreSQL of DATA_DIR (the running store's, when it runs);
SMTP_URL, MAIL_FROM, WEBHOOK_TIMEOUT_MS and WEBHOOK_ALLOW_PRIVATE_TARGETS as the server does.
  -h, --help   this text`;

parseCommandLine({ usage, options: {} });
await runCommand(async () => {
  const config = loadConfig();
  const database = await openDatabase(config, { shareRunning: true });
  const mailer = createMailer(config.SMTP_URL, config.MAIL_FROM);
  const worker = new OutboxWorker(database.orm, mailer);
  const webhooks = new WebhookWorker(database.orm, {
    timeoutMs: config.WEBHOOK_TIMEOUT_MS,
    allowPrivate: config.WEBHOOK_ALLOW_PRIVATE_TARGETS,
  });
  const retention = new EventRetention(database.orm, { days: config.EVENT_RETENTION_DAYS });
  worker.start();
  webhooks.start();
  retention.start();
  logger.info('outbox and webhook worker running');
  const keepAlive = setInterval(() => undefined, 60_000);
  // One shutdown however many signals come (as main.ts): a repeated one must not kill the drain.
  let stopping = false;
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.on(signal, async () => {
      if (stopping) return;
      stopping = true;
      clearInterval(keepAlive);
      await Promise.all([worker.stop(), webhooks.stop(), retention.stop()]);
      mailer.close();
      await database.close();
      process.exit(0);
    });
  }
}, usage);
