import { ConnectionException } from '@mikro-orm/core';

// PostgreSQL SQLSTATEs of a server going away or refusing connections, and the driver's own
// connection failures: the request itself was fine, the database is not there right now.
const UNAVAILABLE_CODES = new Set([
  '57P01',
  '57P02',
  '57P03',
  '53300',
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
]);
const UNAVAILABLE_MESSAGE = new RegExp(
  [
    'Connection terminated',
    'connection timeout',
    'ECONNREFUSED',
    'Client has encountered a connection error',
    'terminating connection',
    'the database system is (starting up|shutting down)',
    // The driver's own read timeout (mikro-orm.config.ts `query_timeout`): a server that stopped
    // answering without closing the connection (a paused host, a partition), not a slow query,
    // which the server's statement timeout ends first.
    'Query read timeout',
  ].join('|'),
  'i',
);

/** The fields of a thrown value (and of its causes) that the checks below read. */
interface ErrorLike {
  code?: unknown;
  message?: unknown;
  cause?: unknown;
  originalError?: unknown;
}

/** An error and its causes (`cause`, or the ORM's `originalError`), at most five deep. */
function* causeChain(error: unknown): Generator<ErrorLike> {
  let e = error as ErrorLike | undefined;
  for (let depth = 0; e && depth < 5; depth++) {
    yield e;
    e = (e.cause ?? e.originalError) as ErrorLike | undefined;
  }
}

/** Whether an error means "PostgreSQL is unreachable now" (answered 503), walking causes. */
export function isDatabaseUnavailable(error: unknown): boolean {
  for (const e of causeChain(error)) {
    if (e instanceof ConnectionException) return true;
    if (typeof e.code === 'string' && (UNAVAILABLE_CODES.has(e.code) || e.code.startsWith('08'))) return true;
    if (typeof e.message === 'string' && UNAVAILABLE_MESSAGE.test(e.message)) return true;
  }
  return false;
}

/** Whether PostgreSQL cancelled a statement for running past its statement timeout (57014). */
export function isStatementTimeout(error: unknown): boolean {
  for (const e of causeChain(error)) {
    if (e.code === '57014') return true;
  }
  return false;
}

/**
 * Whether the pool had no free connection within its timeout (pg-pool's wait in its queue): the
 * service is busy, the database is fine. Answered 503 `overloaded`, not "database unavailable".
 */
export function isPoolExhausted(error: unknown): boolean {
  for (const e of causeChain(error)) {
    if (e.message === 'timeout exceeded when trying to connect') return true;
  }
  return false;
}

/**
 * Whether PostgreSQL refused a write for what another transaction did at the same time: a
 * deadlock (40P01, one of two transactions locking the same rows in other orders is chosen to
 * fail), a serialization failure (40001), or a foreign key to a row deleted meanwhile (23503:
 * checked when read, gone when written). The same write, tried again, meets what is there now.
 */
export function isConcurrentConflict(error: unknown): boolean {
  for (const e of causeChain(error)) {
    if (e.code === '40P01' || e.code === '40001' || e.code === '23503') return true;
  }
  return false;
}
