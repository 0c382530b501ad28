import { randomUUID } from 'node:crypto';
import type { Context, Next } from 'koa';
import type { Logger } from 'pino';
import { httpRequestDuration } from './metrics.js';

const GOOD_ID = /^[\w.:-]{1,128}$/;

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

/**
 * One structured log line per request: method, route template, status, duration and request id
 * (`X-Request-Id` taken from the caller when sane, else generated, and echoed back). Headers and
 * bodies are never logged, so no token or personal data reaches the log.
 */
export function requestLog(logger: Logger) {
  return async (ctx: Context, next: Next) => {
    const given = ctx.get('x-request-id');
    const requestId = GOOD_ID.test(given) ? given : randomUUID();
    ctx.state.requestId = requestId;
    ctx.set('X-Request-Id', requestId);
    const started = process.hrtime.bigint();
    try {
      await next();
    } finally {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const route = routeTemplate(ctx);
      httpRequestDuration.observe({ method: ctx.method, route, status: String(ctx.status) }, seconds);
      logger.info(
        { requestId, method: ctx.method, route, status: ctx.status, durationMs: Math.round(seconds * 1e4) / 10 },
        'request',
      );
    }
  };
}
