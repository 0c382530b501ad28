import type { Context, Next } from 'koa';
import { databaseTrouble } from '../graphql/format-error.js';
import { logger } from '../logger.js';
import { Problem } from './problem.js';
import { bodyTooLarge } from './request-input.js';

function send(ctx: Context, problem: Problem) {
  ctx.status = problem.status;
  ctx.set(problem.headers);
  ctx.type = 'application/problem+json';
  ctx.body = problem.body;
}

/**
 * Renders every failure as RFC 9457 problem+json: our own Problems, the body parser's 400/413/415,
 * the database's trouble as a 503, and, masked, anything unexpected (logged with its stack, never shown).
 */
export async function problemMiddleware(ctx: Context, next: Next) {
  try {
    await next();
  } catch (error) {
    if (error instanceof Problem) return send(ctx, error);
    const { status, type, code } = error as { status?: number; type?: string; code?: unknown };
    // zlib (or brotli) refused the body under its Content-Encoding (not gzip/deflate/br at all, or truncated).
    const encoding = ctx.get('content-encoding').toLowerCase();
    const zlibFailure =
      typeof code === 'string' &&
      (code.startsWith('Z_') || (encoding === 'br' && typeof (error as { errno?: unknown }).errno === 'number'));
    if (zlibFailure) {
      return send(
        ctx,
        new Problem(400, `The request body is not valid ${ctx.get('content-encoding') || 'compressed'} data`, [
          { field: 'Content-Encoding', message: 'does not match the body' },
        ]),
      );
    }
    if (type === 'encoding.unsupported' || (status === 415 && /Content-Encoding/.test((error as Error).message))) {
      return send(
        ctx,
        new Problem(415, 'Unsupported Content-Encoding: send the body as identity, gzip, deflate or br', [
          { field: 'Content-Encoding', message: 'is not supported' },
        ]),
      );
    }
    if (status === 408)
      return send(ctx, new Problem(408, 'The request body did not arrive in time', undefined, { Connection: 'close' }));
    if (status === 400) return send(ctx, new Problem(400, 'The request body is not valid JSON'));
    if (status === 413) return send(ctx, bodyTooLarge());
    if (status === 415) return send(ctx, new Problem(415, 'Send the request body as application/json'));
    // The database busy, too slow or out of reach, met outside an operation (a bulk upload's COPY,
    // its results' cursor): the 503 every road answers, not a 500.
    const trouble = databaseTrouble(error);
    if (trouble) return send(ctx, Problem.fromGraphQL([trouble]));
    logger.error({ err: error, requestId: ctx.state.requestId, method: ctx.method, path: ctx.path }, 'unhandled error');
    send(ctx, new Problem(500, 'Internal server error'));
  }
}

/** After routing: an unmatched path is a 404, a matched path with another method a 405 with Allow. */
export async function notFoundMiddleware(ctx: Context, next: Next) {
  await next();
  if (ctx.body != null || ctx.respond === false) return;
  if (ctx.status === 405) {
    const allow = ctx.response.get('Allow');
    return send(
      ctx,
      new Problem(405, `${ctx.method} is not allowed here; allowed: ${allow}`, undefined, { Allow: allow }),
    );
  }
  if (ctx.status === 404) send(ctx, new Problem(404, `No route ${ctx.method} ${ctx.path}`));
}
