import { randomUUID } from 'node:crypto';
import type { Context, Next } from 'koa';
import type { Logger } from 'pino';
import { clientWentAway } from './app-errors.js';
import { httpRequestDuration } from './metrics.js';

const GOOD_ID = /^[\w.:-]{1,128}$/;

/**
 * The status logged for a streamed answer (an export) whose client closed the connection before
 * its end: nginx's 499 "client closed request". The 200 it started with says nothing of how it ended.
 */
export const CLIENT_GONE = 499;

/** The route template a request matched (`/api/v1/orders/:id`), never the raw path with ids. */
export function routeTemplate(ctx: Context): string {
  const matched = (ctx as Context & { _matchedRoute?: string })._matchedRoute;
  if (matched) return String(matched);
  if (ctx.path === '/graphql' || ctx.path.startsWith('/graphql/')) return '/graphql';
  if (ctx.path === '/docs' || ctx.path.startsWith('/docs/')) return '/docs';
  if (ctx.path === '/api/v1/openapi.json') return ctx.path;
  if (['/healthz', '/readyz', '/metrics'].includes(ctx.path)) return ctx.path;
  return 'unmatched';
}

/** A body Koa pipes to the socket after the middlewares have returned (an export's NDJSON). */
function streamed(body: unknown): boolean {
  return typeof (body as { pipe?: unknown } | null)?.pipe === 'function';
}

/**
 * One structured log line per request: method, route template, status, duration and request id
 * (`X-Request-Id` taken from the caller when sane, else generated, and echoed back). Headers and
 * bodies are never logged, so no token or personal data reaches the log.
 *
 * A streamed answer is logged when its response closes, not when the middlewares return (before
 * its first line): its duration is the whole stream's, a client that went away mid-way is status
 * 499 with `clientGone`, and a stream that failed on its own (a read of the database) is 500 with
 * `streamFailed`, in this one line (the pipe's ECONNRESET or premature close is not logged again,
 * src/observability/app-errors.ts; the stream's own failure is, as an error line).
 */
export function requestLog(logger: Logger) {
  return async (ctx: Context, next: Next) => {
    const given = ctx.get('x-request-id');
    const requestId = GOOD_ID.test(given) ? given : randomUUID();
    ctx.state.requestId = requestId;
    ctx.set('X-Request-Id', requestId);
    const started = process.hrtime.bigint();
    const log = (ended: 'answered' | 'client gone' | 'failed') => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const route = routeTemplate(ctx);
      const status = ended === 'client gone' ? CLIENT_GONE : ended === 'failed' ? 500 : ctx.status;
      httpRequestDuration.observe({ method: ctx.method, route, status: String(status) }, seconds);
      const durationMs = Math.round(seconds * 1e4) / 10;
      const how = ended === 'client gone' ? { clientGone: true } : ended === 'failed' ? { streamFailed: true } : {};
      logger.info({ requestId, method: ctx.method, route, status, durationMs, ...how }, 'request');
    };
    let deferred = false;
    try {
      await next();
      const body = ctx.body as NodeJS.ReadableStream | null;
      if (streamed(body) && ctx.respond !== false && !ctx.res.writableFinished) {
        deferred = true;
        // The stream failing on its own (a read of the database) errs before the response closes;
        // a client that left closes the response first, and the pipe then fails the stream.
        let failure: unknown;
        body?.once('error', (error) => {
          failure ??= error;
        });
        ctx.res.once('close', () => {
          if (ctx.res.writableFinished) log('answered');
          else log(failure !== undefined && !clientWentAway(failure) ? 'failed' : 'client gone');
        });
      }
    } finally {
      if (!deferred) log('answered');
    }
  };
}
