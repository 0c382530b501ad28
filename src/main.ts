import 'reflect-metadata';
import cluster from 'node:cluster';
import { startCluster } from './cluster.js';
import { ConfigError, loadConfig } from './config.js';
import { DatabaseInUseError } from './db/database.js';
import { ensurePortFree } from './http/port-check.js';
import { logger } from './logger.js';
import { flushTracing } from './observability/tracing-state.js';
import { setAnswerMaxBytes } from './reads/answer-bytes.js';
import { startService, unfinishedStartToken } from './server.js';
import { startBanner } from './start-banner.js';

/** Shorter ADMIN_TOKEN secrets are taken, with a warning (they are guessable). */
const ADMIN_TOKEN_ADVISED_LENGTH = 16;

// One shutdown, however many signals, whenever they come. The handlers are in place before
// anything starts: a signal during the start (a Ctrl-C while migrations run) stops the service
// once it is up instead of killing it at once and orphaning the embedded PostgreSQL; a handler
// removed after the first signal (`once`) would leave a second SIGINT (a second Ctrl-C, a
// supervisor's repeat) to Node's default. The drain is bounded by SHUTDOWN_GRACE_MS anyway.
let service: { stop(): Promise<void> } | undefined;
let stopping: string | undefined;
const stop = () =>
  service?.stop().then(
    () => flushTracing().then(() => process.exit(0)),
    (error) => {
      logger.error({ err: error }, 'shutdown failed');
      process.exit(1);
    },
  );
const shutdown = (signal: string) => {
  if (stopping) {
    // Still starting (a start that waits, e.g. for a database that is down): a second signal is
    // the user insisting, and nothing has been served yet that a drain would finish.
    if (!service) process.exit(130);
    logger.info({ signal }, 'already shutting down');
    return;
  }
  stopping = signal;
  logger.info({ signal }, 'shutting down');
  void stop();
};
process.on('SIGTERM', () => shutdown('SIGTERM'));
process.on('SIGINT', () => shutdown('SIGINT'));
// A worker whose primary is gone (killed) has nobody to hand it connections: it drains and exits.
if (cluster.isWorker) process.once('disconnect', () => shutdown('disconnect'));

try {
  const config = loadConfig();
  // The start-up contract honours any secret given (docs/decisions.md#start-up-contract); a short one
  // is said once, where the operator looks, as guessable.
  if (config.ADMIN_TOKEN && config.ADMIN_TOKEN.length < ADMIN_TOKEN_ADVISED_LENGTH && cluster.isPrimary) {
    process.stderr.write(
      `warning: ADMIN_TOKEN is shorter than ${ADMIN_TOKEN_ADVISED_LENGTH} characters; ` +
        'it holds every scope, so use a long random secret\n',
    );
  }
  await ensurePortFree(config); // a busy PORT is refused before anything is created
  // Every process serving requests (each worker runs this file too) reads with the same bound.
  setAnswerMaxBytes(config.ANSWER_MAX_BYTES);
  // WEB_CONCURRENCY > 1: this process supervises workers (cluster.ts), each of which runs this file again.
  const supervising = config.WEB_CONCURRENCY > 1 && cluster.isPrimary;
  const started = supervising ? await startCluster(config) : await startService(config);
  service = started;
  if (stopping) {
    if (started.firstToken && !cluster.isWorker) process.stdout.write(unfinishedStartToken(started.firstToken));
    await stop();
  } else if (!cluster.isWorker) {
    const base = config.PUBLIC_URL?.replace(/\/$/, '') ?? started.url;
    process.stdout.write(startBanner(started, base, config.ADMIN_TOKEN !== undefined));
  }
} catch (error) {
  const firstToken = (error as { firstToken?: unknown }).firstToken;
  if (typeof firstToken === 'string') process.stdout.write(unfinishedStartToken(firstToken));
  if (error instanceof ConfigError || error instanceof DatabaseInUseError) {
    process.stderr.write(`${error.message}\n`);
    process.exit(2);
  }
  // The log keeps the stack for whoever investigates; the terminal (or the journal's stderr) gets
  // one line saying what failed, as the CLIs say it.
  logger.fatal({ err: error }, 'failed to start');
  process.stderr.write(`failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
}
