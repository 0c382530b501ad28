import cluster, { type Address, type Worker } from 'node:cluster';
import type { Config } from './config.js';
import { openDatabase } from './db/database.js';
import { watchHandoffs } from './http/cluster-handoffs.js';
import { logger } from './logger.js';
import { answerMetricsRequests } from './observability/metrics.js';
import { prepareStore, type RunningService, withFirstToken } from './server.js';

export interface RunningCluster extends Pick<RunningService, 'url' | 'seeded' | 'firstToken'> {
  /** Stops every worker (each drains its requests), then the database the primary started. */
  stop(): Promise<void>;
}

/** A worker that dies sooner than this after its start is replaced only after this delay (no hot crash loop). */
const STEADY_MS = 5000;

/**
 * `WEB_CONCURRENCY=N` (docs/decisions.md#instances): this process, the primary, owns
 * the start (embedded PostgreSQL or `DATABASE_URL`, migrations, demo store, first token) and then
 * forks N workers that run the service on one shared port; node:cluster's primary accepts the
 * connections and hands them out round-robin (a connection handed to a worker that died before
 * taking it goes to another: src/http/cluster-handoffs.ts). The primary serves no request itself: it
 * replaces a worker that dies, answers the workers' requests for cluster-wide metrics, and on `stop`
 * lets every worker drain before it closes the database.
 */
export async function startCluster(config: Config): Promise<RunningCluster> {
  const database = await openDatabase(config, { readTimeoutMs: config.DB_READ_TIMEOUT_MS });
  const { seeded, firstToken } = await prepareStore(database, config);
  // The workers reach the same database (the embedded one by its URL); the store is ready for them.
  const workerEnv = { DATABASE_URL: database.url, SEED_DEMO: 'false' };
  answerMetricsRequests();

  let stopping = false;
  const startedAt = new Map<Worker, number>();
  // Workers that listen (in the round robin) and are still connected.
  const listeners = new Set<Worker>();
  cluster.on('listening', (worker) => listeners.add(worker));
  cluster.on('disconnect', (worker) => listeners.delete(worker));
  const fork = () => {
    const worker = cluster.fork(workerEnv);
    watchHandoffs(worker, () => [...listeners].some((other) => other !== worker && other.isConnected()));
    startedAt.set(worker, Date.now());
  };
  cluster.on('exit', (worker, code, signal) => {
    const lived = Date.now() - (startedAt.get(worker) ?? 0);
    startedAt.delete(worker);
    if (stopping) return;
    logger.error({ worker: worker.process.pid, code, signal }, 'worker died; starting another');
    setTimeout(fork, lived < STEADY_MS ? STEADY_MS : 0).unref();
  });

  const listening = new Promise<Address>((resolve, reject) => {
    let count = 0;
    cluster.on('listening', (_worker, address) => {
      if (++count === config.WEB_CONCURRENCY) resolve(address);
    });
    // A worker that cannot start at all (a bad port, the database away) fails the start instead of looping.
    cluster.once('exit', (_worker, code) => {
      if (count < config.WEB_CONCURRENCY) reject(new Error(`a worker exited with ${code} before it listened`));
    });
  });
  for (let i = 0; i < config.WEB_CONCURRENCY; i++) fork();

  const stop = async () => {
    stopping = true;
    const workers = Object.values(cluster.workers ?? {}).filter((w): w is Worker => w !== undefined);
    await Promise.all(
      workers.map(
        (worker) =>
          new Promise<void>((resolve) => {
            if (worker.isDead()) return resolve();
            // Past the workers' own grace period, whatever is left is cut.
            const force = setTimeout(() => worker.process.kill('SIGKILL'), config.SHUTDOWN_GRACE_MS + 5000);
            worker.once('exit', () => {
              clearTimeout(force);
              resolve();
            });
            worker.process.kill('SIGTERM');
          }),
      ),
    );
    await database.close();
  };

  try {
    const address = await listening;
    const host = (address.address ?? '127.0.0.1').includes(':') ? `[${address.address}]` : address.address;
    return { url: `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${address.port}`, seeded, firstToken, stop };
  } catch (error) {
    await stop();
    throw withFirstToken(error, firstToken);
  }
}
