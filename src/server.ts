import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApp } from './app.js';
import { ensureFirstToken } from './auth/api-tokens.js';
import { RateLimiter } from './auth/rate-limit.js';
import { bulkOptionsOf } from './bulk/bulk-operations.js';
import type { Config } from './config.js';
import { type Database, openDatabase } from './db/database.js';
import { EventRetention } from './db/event-retention.js';
import { ReadReplicas } from './db/read-replicas.js';
import { startSubscriptionServer } from './graphql/subscription-server.js';
import { createHttpServer } from './http/timeouts.js';
import { createMailer } from './notifications/mailer.js';
import { OutboxWorker } from './notifications/outbox-worker.js';
import { seedIfEmpty } from './seed/seed-store.js';
import { DEMO_STORE } from './seed/store-generator.js';
import { WebhookWorker } from './webhooks/webhook-worker.js';

export interface RunningService {
  url: string;
  server: Server;
  database: Database;
  /** The first token's secret when one was created by this start (print it once). */
  firstToken: string | null;
  seeded: boolean;
  stop(): Promise<void>;
}

/**
 * The start's error, carrying the first token when this start made it before failing: it is shown
 * once, and a start that stopped after making it (a failure, a signal) must still show it, or
 * nobody ever sees it (the next start makes none, the store having one).
 */
export function withFirstToken(error: unknown, firstToken: string | null): unknown {
  if (firstToken && typeof error === 'object' && error !== null) Object.assign(error, { firstToken });
  return error;
}

/** The line that shows a first token made by a start that did not finish. */
export const unfinishedStartToken = (firstToken: string) =>
  `First API token (all scopes; shown once, store it now; the start did not finish):\n  ${firstToken}\n`;

/**
 * What a start does to the store before serving: the demo store on an empty database, then the
 * first token. Run once per start, by the process that owns the start (the only one, or the
 * WEB_CONCURRENCY primary, whose workers then skip it).
 */
export async function prepareStore(
  database: Database,
  config: Pick<Config, 'SEED_DEMO' | 'SEED' | 'ADMIN_TOKEN'>,
): Promise<Pick<RunningService, 'seeded' | 'firstToken'>> {
  const seeded = config.SEED_DEMO ? await seedIfEmpty(database.orm, { ...DEMO_STORE, seed: config.SEED }) : false;
  const firstToken = await ensureFirstToken(database.orm.em.fork(), config.ADMIN_TOKEN);
  return { seeded, firstToken };
}

/**
 * The start-up contract (docs/decisions.md#start-up-contract): database (embedded or DATABASE_URL)
 * → migrations → demo store on an empty database → first token → listen. `stop` drains in-flight
 * requests first.
 */
export async function startService(config: Config): Promise<RunningService> {
  const database = await openDatabase(config, { readTimeoutMs: config.DB_READ_TIMEOUT_MS });
  let closeReplicas: () => Promise<void> | undefined = () => undefined;
  let firstToken: string | null = null;
  try {
    const prepared = await prepareStore(database, config);
    const { seeded } = prepared;
    firstToken = prepared.firstToken;
    const replicas = config.DATABASE_READ_URL.length
      ? await ReadReplicas.open(database.orm, config.DATABASE_READ_URL, {
          poolMax: config.DB_POOL_MAX,
          readTimeoutMs: config.DB_READ_TIMEOUT_MS,
          maxLagMs: config.REPLICA_MAX_LAG_MS,
        })
      : undefined;
    closeReplicas = () => replicas?.close();
    const {
      app,
      schema,
      stop: stopApp,
      admitted,
    } = await createApp({
      orm: database.orm,
      // A write's commit comes at most REQUEST_TIMEOUT_MS after its token statement; past that and
      // the allowed lag, any replica in use has replayed it.
      replicas: replicas && {
        set: replicas,
        windowSeconds: Math.ceil((config.REQUEST_TIMEOUT_MS + config.REPLICA_MAX_LAG_MS) / 1000) + 1,
      },
      publicUrl: config.PUBLIC_URL,
      corsOrigins: config.CORS_ORIGINS?.split(',')
        .map((o) => o.trim())
        .filter(Boolean),
      rateLimit: { burst: config.RATE_LIMIT_BURST, rps: config.RATE_LIMIT_RPS },
      allowedHosts: config.ALLOWED_HOSTS,
      bodyTimeoutMs: config.BODY_TIMEOUT_MS,
      idempotencyLeaseMs: config.IDEMPOTENCY_LEASE_MS,
      admission: {
        maxInFlight: config.MAX_IN_FLIGHT,
        maxPerToken: config.MAX_IN_FLIGHT_PER_TOKEN,
        queueMs: config.ADMISSION_QUEUE_MS,
        maxQueue: config.ADMISSION_QUEUE_MAX,
      },
      exports: { perToken: config.EXPORTS_PER_TOKEN, stallMs: config.EXPORT_STALL_TIMEOUT_MS },
      bulk: bulkOptionsOf(config),
    });
    const server = createHttpServer(app.callback(), {
      headersMs: config.HEADERS_TIMEOUT_MS,
      requestMs: config.REQUEST_TIMEOUT_MS,
      bodyMs: config.BODY_TIMEOUT_MS,
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(config.PORT, config.HOST, () => resolve());
    });
    const { port } = server.address() as AddressInfo;
    // GraphQL subscriptions share the port: WebSocket upgrades of /graphql.
    // Subscriptions spend the same per-token bucket as requests (one bucket row per token in PostgreSQL).
    const subscriptionLimiter = RateLimiter.create(database.orm, {
      burst: config.RATE_LIMIT_BURST,
      rps: config.RATE_LIMIT_RPS,
    });
    const subscriptions = await startSubscriptionServer(
      server,
      schema,
      database.orm,
      {
        connectionsPerToken: config.SUBSCRIPTION_CONNECTIONS_PER_TOKEN,
        subscriptionsPerToken: config.SUBSCRIPTIONS_PER_TOKEN,
        heartbeatMs: config.SUBSCRIPTION_HEARTBEAT_MS,
      },
      subscriptionLimiter,
      admitted,
    );
    const mailer = createMailer(config.SMTP_URL, config.MAIL_FROM);
    const worker = config.OUTBOX_WORKER ? new OutboxWorker(database.orm, mailer) : undefined;
    worker?.start();
    // Webhooks share the switch: OUTBOX_WORKER=false leaves all background delivery to `npm run worker`.
    const webhooks = config.OUTBOX_WORKER
      ? new WebhookWorker(database.orm, {
          timeoutMs: config.WEBHOOK_TIMEOUT_MS,
          allowPrivate: config.WEBHOOK_ALLOW_PRIVATE_TARGETS,
        })
      : undefined;
    webhooks?.start();
    // The purge too: OUTBOX_WORKER=false leaves it to `npm run worker`.
    const retention = config.OUTBOX_WORKER
      ? new EventRetention(database.orm, { days: config.EVENT_RETENTION_DAYS })
      : undefined;
    retention?.start();
    const host = config.HOST.includes(':') ? `[${config.HOST}]` : config.HOST;
    let stopping: Promise<void> | undefined;
    return {
      url: `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${port}`,
      server,
      database,
      firstToken,
      seeded,
      stop() {
        stopping ??= (async () => {
          // Live subscriptions end first (close 1001), so no socket holds the drain below.
          await subscriptions.close();
          // Stop accepting, let in-flight requests finish (idle keep-alive sockets close now), and
          // cut whatever is still open after the grace period so shutdown is bounded.
          await new Promise<void>((resolve) => {
            const force = setTimeout(() => server.closeAllConnections(), config.SHUTDOWN_GRACE_MS);
            // A keep-alive socket turns idle once its last answer is sent: close it then, not at its timeout.
            const sweep = setInterval(() => server.closeIdleConnections(), 100);
            force.unref();
            server.close(() => {
              clearTimeout(force);
              clearInterval(sweep);
              resolve();
            });
            server.closeIdleConnections();
          });
          await worker?.stop();
          await webhooks?.stop();
          await retention?.stop();
          mailer.close();
          await stopApp();
          await closeReplicas();
          await database.close();
        })();
        return stopping;
      },
    };
  } catch (error) {
    await closeReplicas();
    await database.close();
    throw withFirstToken(error, firstToken);
  }
}
