import cluster from 'node:cluster';
import { AggregatorRegistry, Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';

/** The service's Prometheus registry (process metrics plus the ones below). */
export const registry = new Registry();
collectDefaultMetrics({ register: registry });

export const httpRequestDuration = new Histogram({
  name: 'http_request_duration_seconds',
  help: 'HTTP request duration by method, route template and status',
  labelNames: ['method', 'route', 'status'] as const,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
  registers: [registry],
});

export const graphqlOperations = new Counter({
  name: 'graphql_operations_total',
  help: 'GraphQL operations executed, by type and entry (REST route or /graphql)',
  labelNames: ['type', 'via'] as const,
  registers: [registry],
});

/**
 * Runs of the input checks by rule and by where they ran (docs/architecture.md#each-check-once): a
 * REST write runs each rule once, at its edge, and the input guard not at all.
 */
export const inputChecks = new Counter({
  name: 'input_checks_total',
  help: 'Input checks run: input_limits, optional_nulls, body_schema; at rest_edge or input_guard',
  labelNames: ['check', 'at'] as const,
  registers: [registry],
});

export const readsByTarget = new Counter({
  name: 'db_reads_total',
  help: 'Read operations by the server that ran them (primary, replica-N), when read replicas are configured',
  labelNames: ['target'] as const,
  registers: [registry],
});

export const exportChunks = new Counter({
  name: 'export_chunks_total',
  help:
    "Chunks of REST exports by who wrote their lines: postgres (the records' REST JSON built in " +
    'SQL) or reshaped (executed, then reshaped in the service: a selection with a computed field)',
  labelNames: ['road'] as const,
  registers: [registry],
});

export const answersByRoad = new Counter({
  name: 'answers_by_road_total',
  help:
    'Read answers by who wrote their JSON: postgres (the answer built in SQL) or executed (run by the ' +
    'executor and serialised in the service); carrier graphql (/graphql) or rest_list (a REST list or search)',
  labelNames: ['carrier', 'road'] as const,
  registers: [registry],
});

export const socketsCutForBackpressure = new Counter({
  name: 'websocket_backpressure_closes_total',
  help: 'WebSocket connections destroyed because their client stopped reading (over 1 MiB queued unsent)',
  registers: [registry],
});

export const textSearchForms = new Counter({
  name: 'db_text_search_forms_total',
  help:
    'Counted text searches in key order by the form that answered them (src/reads/search-walk.ts): walk ' +
    '(the key index, the column statistics saying the term is broad) or matches (every match read once)',
  labelNames: ['form'] as const,
  registers: [registry],
});

export const readFallbacks = new Counter({
  name: 'db_read_fallbacks_total',
  help:
    'Reads sent to the primary although replicas are configured: behind_write (no replica ' +
    "has the caller's write yet), unavailable (none up within the allowed lag), read_failed " +
    "(the chosen one failed mid-read), cursor_ahead (an event feed cursor the replica hasn't replayed)",
  labelNames: ['reason'] as const,
  registers: [registry],
});

/** Gauges read at scrape time from the live service (pool, outbox). */
export function registerServiceGauges(read: {
  pool: () => Promise<{ total: number; idle: number; waiting: number }>;
  outboxBacklog: () => Promise<number>;
  replicaLags: () => { replica: string; seconds: number | null }[];
}) {
  for (const name of [
    'db_pool_connections',
    'db_pool_idle_connections',
    'db_pool_waiting_requests',
    'outbox_backlog_messages',
    'db_replica_lag_seconds',
  ]) {
    registry.removeSingleMetric(name);
  }
  const pool = (key: 'total' | 'idle' | 'waiting', name: string, help: string) =>
    new Gauge({
      name,
      help,
      registers: [registry],
      async collect() {
        this.set((await read.pool())[key]);
      },
    });
  pool('total', 'db_pool_connections', 'open connections of the database pool');
  pool('idle', 'db_pool_idle_connections', 'idle connections of the database pool');
  pool('waiting', 'db_pool_waiting_requests', 'requests waiting for a database connection');
  new Gauge({
    name: 'outbox_backlog_messages',
    help: 'outbox messages not yet sent',
    registers: [registry],
    // One number of the database, read by every worker alike: summing the workers' reads would multiply it.
    aggregator: 'max',
    async collect() {
      this.set(await read.outboxBacklog());
    },
  });
  new Gauge({
    name: 'db_replica_lag_seconds',
    help:
      "How far a read replica's replay is behind the primary (age of the oldest WAL position " +
      'it has not replayed); absent while it is down',
    labelNames: ['replica'] as const,
    registers: [registry],
    aggregator: 'max',
    collect() {
      this.reset();
      for (const { replica, seconds } of read.replicaLags()) if (seconds !== null) this.set({ replica }, seconds);
    },
  });
}

const METRICS_REQUEST = 'store:metrics';
const METRICS_ANSWER = 'store:metrics-answer';
const METRICS_WAIT_MS = 5000;

if (cluster.isWorker) {
  // The primary collects every worker's registry over IPC (prom-client's cluster protocol).
  AggregatorRegistry.setRegistries([registry]);
  new AggregatorRegistry();
}

/**
 * The Prometheus text of `GET /metrics`: this process's registry, or, in a WEB_CONCURRENCY worker,
 * the sum over every worker (counters and histograms add up; the primary asks each worker), so a
 * scrape answered by any worker describes the whole service.
 */
export async function metricsText(): Promise<string> {
  if (!cluster.isWorker || !process.send) return registry.metrics();
  const id = `${process.pid}:${Math.random()}`;
  return new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => done(new Error('the primary did not answer the metrics request')), METRICS_WAIT_MS);
    const onMessage = (message: { type?: string; id?: string; text?: string; error?: string }) => {
      if (message?.type !== METRICS_ANSWER || message.id !== id) return;
      done(message.error === undefined ? null : new Error(message.error), message.text);
    };
    const done = (error: Error | null, text?: string) => {
      clearTimeout(timer);
      process.off('message', onMessage);
      if (error) reject(error);
      else resolve(text ?? '');
    };
    process.on('message', onMessage);
    process.send?.({ type: METRICS_REQUEST, id });
  });
}

/** In the WEB_CONCURRENCY primary: answers the workers' `metricsText` requests with every worker's metrics. */
export function answerMetricsRequests(): void {
  const aggregator = new AggregatorRegistry();
  cluster.on('message', (worker, message: { type?: string; id?: string }) => {
    if (message?.type !== METRICS_REQUEST) return;
    aggregator.clusterMetrics().then(
      (text) => worker.isConnected() && worker.send({ type: METRICS_ANSWER, id: message.id, text }),
      (error: Error) =>
        worker.isConnected() && worker.send({ type: METRICS_ANSWER, id: message.id, error: error.message }),
    );
  });
}
