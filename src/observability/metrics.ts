import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

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

/** Gauges read at scrape time from the live service (pool, outbox). */
export function registerServiceGauges(read: {
  pool: () => Promise<{ total: number; idle: number; waiting: number }>;
  outboxBacklog: () => Promise<number>;
}) {
  for (const name of ['db_pool_connections', 'db_pool_idle_connections', 'db_pool_waiting_requests', 'outbox_backlog_messages']) registry.removeSingleMetric(name);
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
    async collect() {
      this.set(await read.outboxBacklog());
    },
  });
}
