import { createServer, type RequestListener, type Server } from 'node:http';
import type { Context, Middleware, Next } from 'koa';
import { Problem } from '../rest/problem.js';

export interface HttpTimeouts {
  /** HEADERS_TIMEOUT_MS: a request's headers must all arrive within this time. */
  headersMs: number;
  /** REQUEST_TIMEOUT_MS: the whole request (headers and body) must arrive within this time. */
  requestMs: number;
  /** BODY_TIMEOUT_MS: reading a body (after the headers) may take this long before a 408. */
  bodyMs: number;
}

export const DEFAULT_TIMEOUTS: HttpTimeouts = { headersMs: 10_000, requestMs: 30_000, bodyMs: 10_000 };

/**
 * The HTTP server with timeouts a slow client cannot stretch: Node answers 408 and closes the
 * socket when headers or the whole request take too long. Node checks these timers only every
 * `connectionsCheckingInterval` (30 s by default), so it is 1 s here to keep the bound tight.
 */
export function createHttpServer(handler: RequestListener, timeouts: HttpTimeouts = DEFAULT_TIMEOUTS): Server {
  const server = createServer(
    {
      requestTimeout: timeouts.requestMs,
      headersTimeout: Math.min(timeouts.headersMs, timeouts.requestMs),
      connectionsCheckingInterval: 1000,
    },
    handler,
  );
  return server;
}

/**
 * Wraps the body parser so a body trickling in is answered 408 problem+json after `ms` (the
 * socket is closed after the answer, which ends the abandoned read).
 */
export function bodyTimeout(ms: number, parser: Middleware): Middleware {
  return async (ctx: Context, next: Next) => {
    let timer: NodeJS.Timeout | undefined;
    let parsed = false;
    const expired = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        if (!parsed)
          reject(
            new Problem(408, `The request body did not arrive within ${ms / 1000} s`, undefined, {
              Connection: 'close',
            }),
          );
      }, ms);
    });
    const parsing = Promise.resolve(
      parser(ctx, async () => {
        parsed = true;
        clearTimeout(timer);
        await next();
      }),
    );
    parsing.catch(() => undefined); // when the timeout wins, the abandoned read rejects later
    expired.catch(() => undefined);
    try {
      await Promise.race([parsing, expired]);
    } finally {
      clearTimeout(timer);
    }
  };
}
