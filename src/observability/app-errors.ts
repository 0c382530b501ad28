import type { Context } from 'koa';
import type { Logger } from 'pino';

/** What a socket's write or a pipe says when the peer closed the connection first. */
const CLIENT_GONE_CODES = new Set([
  'ECONNRESET',
  'EPIPE',
  'ECONNABORTED',
  'ERR_STREAM_PREMATURE_CLOSE',
  'ERR_STREAM_DESTROYED',
  'ERR_STREAM_WRITE_AFTER_END',
]);

/** Whether an error only says the client closed its connection before the answer's end. */
export function clientWentAway(error: unknown): boolean {
  return CLIENT_GONE_CODES.has((error as { code?: string } | null)?.code ?? '');
}

/**
 * The Koa application's `error` listener, in place of Koa's default, which prints the stack to
 * stderr outside the JSON log. A client that went away mid-answer (an export's pipe failing with
 * ECONNRESET or a premature close) is not an error of ours: its request's one log line says so
 * (status 499, src/observability/request-log.ts), and nothing more is logged. Anything else is
 * one JSON line with the request id. Errors the problem middleware answered never get here.
 */
export function appErrorListener(logger: Logger) {
  return (error: Error, ctx?: Context) => {
    if (clientWentAway(error)) return;
    const status = (error as { status?: number }).status;
    if (status === 404 || (error as { expose?: boolean }).expose) return;
    logger.error({ err: error, requestId: ctx?.state?.requestId, path: ctx?.path }, 'request failed');
  };
}
