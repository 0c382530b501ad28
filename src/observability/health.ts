import type { MikroORM } from '@mikro-orm/postgresql';
import type { Context, Next } from 'koa';
import type { Pool } from 'pg';
import { UNAVAILABLE_RETRY_AFTER } from '../config.js';
import { logger } from '../logger.js';
import { metricsText, registerServiceGauges, registry } from './metrics.js';

const READY_TIMEOUT_MS = 1500;

/** A read replica as /readyz and /metrics show it (src/db/read-replicas.ts `status`). */
interface ReplicaState {
  name: string;
  host: string;
  state: 'streaming' | 'lagging' | 'down';
  lagMs: number | null;
}

function within<T>(ms: number, work: Promise<T>): Promise<T> {
  return Promise.race([
    work,
    new Promise<T>((_, reject) => setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms).unref()),
  ]);
}

/**
 * Operations endpoints: `GET /healthz` (the process answers), `GET /readyz` (the database answers
 * within 1.5 s and every migration is applied; 503 otherwise), and `GET /metrics` (Prometheus
 * text), which needs a token with the `read_metrics` scope.
 */
export function operationsMiddleware(
  orm: MikroORM,
  canReadMetrics: (authorization: string | undefined) => Promise<'ok' | 'unauthenticated' | 'forbidden'>,
  replicas?: () => ReplicaState[],
) {
  let migrated = false;
  const pool = async (): Promise<Pool> => orm.em.getConnection().getNativeClient();
  registerServiceGauges({
    pool: async () => {
      const p = await pool();
      return { total: p.totalCount, idle: p.idleCount, waiting: p.waitingCount };
    },
    outboxBacklog: async () => {
      const [row] = await orm.em
        .getConnection()
        .execute<{ n: number }[]>('select count(*)::int as n from outbox_message where sent_at is null');
      return row.n;
    },
    replicaLags: () =>
      (replicas?.() ?? []).map((r) => ({ replica: r.name, seconds: r.lagMs === null ? null : r.lagMs / 1000 })),
  });

  async function ready(): Promise<string | null> {
    try {
      await within(READY_TIMEOUT_MS, orm.em.getConnection().execute('select 1'));
      if (!migrated) migrated = (await within(READY_TIMEOUT_MS, orm.migrator.getPending())).length === 0;
      return migrated ? null : 'migrations are pending';
    } catch (error) {
      // Public endpoint: the driver's text (addresses, ports) goes to the log only.
      logger.warn({ err: error }, 'readiness check failed');
      return 'the database is unreachable';
    }
  }

  return async (ctx: Context, next: Next) => {
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') return next();
    switch (ctx.path) {
      case '/healthz':
        ctx.body = { status: 'ok' };
        return;
      case '/readyz': {
        const problem = await ready();
        ctx.status = problem ? 503 : 200;
        if (problem) {
          ctx.type = 'application/problem+json';
          ctx.body = {
            type: '/problems/service-unavailable',
            title: 'Service Unavailable',
            status: 503,
            detail: problem,
          };
        } else {
          // Replicas never make the service unready: their reads go to the primary meanwhile.
          ctx.body = replicas ? { status: 'ready', replicas: replicas() } : { status: 'ready' };
        }
        return;
      }
      case '/metrics': {
        let access: 'ok' | 'unauthenticated' | 'forbidden' | 'unavailable';
        try {
          access = await within(READY_TIMEOUT_MS, canReadMetrics(ctx.get('authorization') || undefined));
        } catch {
          access = 'unavailable'; // the token cannot be checked while the database is away
        }
        if (access !== 'ok') {
          // The 401 says how to send the token: a scraper set up without one otherwise learns only
          // that something is missing (issue 36).
          const [status, type, title, detail] = {
            unauthenticated: [
              401,
              'unauthenticated',
              'Unauthorized',
              'A valid API token is required: send "Authorization: Bearer <token with read_metrics scope>"',
            ],
            forbidden: [403, 'forbidden', 'Forbidden', 'This token lacks the scope read_metrics'],
            unavailable: [
              503,
              'service-unavailable',
              'Service Unavailable',
              'The database is unavailable; try again shortly',
            ],
          }[access] as [number, string, string, string];
          ctx.status = status;
          if (status === 503) ctx.set('Retry-After', UNAVAILABLE_RETRY_AFTER);
          // The scheme and the scope in the challenge, the sentence in the body: RFC 6750 (section 3)
          // wants no error text in the challenge of a request that sent no credentials.
          if (status === 401) ctx.set('WWW-Authenticate', 'Bearer realm="store-api", scope="read_metrics"');
          ctx.type = 'application/problem+json';
          ctx.body = { type: `/problems/${type}`, title, status, detail };
          return;
        }
        try {
          ctx.type = registry.contentType;
          ctx.body = await metricsText();
        } catch (error) {
          logger.warn({ err: error }, 'metrics collection failed');
          ctx.status = 503;
          ctx.set('Retry-After', UNAVAILABLE_RETRY_AFTER);
          ctx.type = 'application/problem+json';
          ctx.body = {
            type: '/problems/service-unavailable',
            title: 'Service Unavailable',
            status: 503,
            detail: 'The metrics could not be collected; try again shortly',
          };
        }
        return;
      }
      default:
        return next();
    }
  };
}
