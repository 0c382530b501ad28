import { createHash } from 'node:crypto';
import type { Context } from 'koa';
import type { Holder, IdempotencyStore, KeyScope, SqlRunner, StoredAnswer } from '../db/idempotency-store.js';
import { DATABASE_UNAVAILABLE, UNAVAILABLE_RETRY_AFTER } from '../graphql/error-codes.js';
import { Problem } from './problem.js';

/**
 * Given to the write: keeps the answer now in ctx inside the write's own transaction, so a crash
 * or an outage after the commit still leaves the answer for the retry (and none without one).
 */
export type CommitAnswer = (sql: SqlRunner) => Promise<void>;

/** The Idempotency-Key header's schema: the check below and the OpenAPI document both read it. */
export const IDEMPOTENCY_KEY = { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x21-\\x7e]*$' } as const;
const VISIBLE_ASCII = new RegExp(IDEMPOTENCY_KEY.pattern);
const validKey = (key: string) =>
  key.length >= IDEMPOTENCY_KEY.minLength && key.length <= IDEMPOTENCY_KEY.maxLength && VISIBLE_ASCII.test(key);
const WAIT_MS = 30_000;
const POLL_MS = 50;

/**
 * JSON with sorted keys: bodies that are equal as JSON hash alike whatever their key order. The
 * body has passed the input limits (at most 32 levels deep), so the recursion is bounded.
 */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.keys(value as object)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

/**
 * The request's `Idempotency-Key`, undefined when none is sent; one sent that is not 1–255 visible
 * ASCII characters (empty, too long, given twice) is a 400. A bulk upload asks before it reads its file.
 */
export function idempotencyKeyOf(ctx: Pick<Context, 'request'>): string | undefined {
  const key = ctx.request.headers['idempotency-key'];
  if (key === undefined) return undefined;
  if (typeof key !== 'string') throw Problem.parameter('Idempotency-Key', 'must be given once');
  if (!validKey(key)) {
    const { minLength, maxLength } = IDEMPOTENCY_KEY;
    throw Problem.parameter('Idempotency-Key', `must be ${minLength} to ${maxLength} visible ASCII characters`);
  }
  return key;
}

/**
 * A failure of the key store is the database's, never the client's: 503, retry shortly (D4 in
 * docs/operations.md#hostile-load-findings).
 */
async function store503<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (error) {
    if (error instanceof Problem) throw error;
    throw new Problem(503, DATABASE_UNAVAILABLE, undefined, { 'Retry-After': UNAVAILABLE_RETRY_AFTER });
  }
}

function answerOf(ctx: Context): StoredAnswer {
  const headers: Record<string, string> = {
    'Content-Type': String(ctx.response.get('Content-Type') || 'application/json'),
  };
  for (const name of ['ETag', 'Location']) {
    const value = ctx.response.get(name);
    if (value) headers[name] = String(value);
  }
  return { status: ctx.status, body: ctx.body, headers };
}

function render(ctx: Context, problem: Problem) {
  ctx.status = problem.status;
  ctx.set(problem.headers);
  ctx.type = 'application/problem+json';
  ctx.body = problem.body;
}

/**
 * `Idempotency-Key` on a write (docs/decisions.md#retries), per token, method and path: the first
 * request runs and its answer (2xx or 4xx) is kept 24 h; a repeat with an equal JSON body gets that
 * answer without the work being done again; a duplicate arriving while the first runs waits for it;
 * the same key with another body is a 422 before anything else is checked; a 5xx is not kept, so
 * a retry runs.
 *
 * Crashes (D3/D4, docs/operations.md#hostile-load-findings): the claim is a lease the holder renews
 * while it runs, so a holder that died (or lost the database) blocks its key only until the lease
 * expires, then the retry runs the write. The write's answer is stored by the write's own
 * transaction (`commit` given to `write`), so a write that committed always has its answer, and one
 * that did not has none: the retry gets the original outcome or performs the write once. Every
 * store failure is a 503.
 */
export async function idempotent(
  ctx: Context,
  store: IdempotencyStore | undefined,
  tokenId: number,
  body: unknown,
  write: (commit?: CommitAnswer) => Promise<void>,
  /**
   * `bodyHash`: the body's hash when it is no JSON value (a bulk upload's bytes, hashed as they
   * streamed). `outerTransaction`: the write's transaction is the caller's, still open when `write`
   * returns (a bulk upload's): a key taken over meanwhile is then the caller's 503 to roll back,
   * never waited for here while its write stands.
   */
  { bodyHash, outerTransaction = false }: { bodyHash?: string; outerTransaction?: boolean } = {},
): Promise<void> {
  // Sent empty, it is a key that is not valid (a 400), not a request without one.
  const key = idempotencyKeyOf(ctx);
  if (key === undefined || !store) return write();
  const scope: KeyScope = { tokenId, key, method: ctx.method, path: ctx.path };
  const hash = bodyHash ?? createHash('sha256').update(canonical(body)).digest('hex');
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    const holder = await claimOrAnswer(ctx, store, scope, hash, deadline);
    if (holder === undefined) return;
    try {
      return await runHolding(ctx, store, scope, holder, write);
    } catch (error) {
      if (!(error instanceof LeaseLost) || outerTransaction) throw error;
      // Another request with this key took it over while this one ran (its lease lapsed): this
      // one's write rolled back, and its answer is the other's, waited for as a duplicate's is.
      for (const name of ['ETag', 'Location']) ctx.remove(name);
    }
  }
}

/** A holder's write that found its key taken over at its commit: rolled back (a 503 if it escapes). */
class LeaseLost extends Problem {
  constructor() {
    super(503, DATABASE_UNAVAILABLE, undefined, { 'Retry-After': UNAVAILABLE_RETRY_AFTER });
  }
}

/**
 * Claims the key: its holder id when this request is to run the write, or undefined when the
 * answer is already in ctx (the first request's, replayed); a 422 for another body, a 409 when the
 * first request runs past the wait.
 */
async function claimOrAnswer(
  ctx: Context,
  store: IdempotencyStore,
  scope: KeyScope,
  hash: string,
  deadline: number,
): Promise<Holder | undefined> {
  for (;;) {
    const claim = await store503(store.claim(scope, hash));
    if (claim.state === 'conflict') {
      throw new Problem(422, 'This Idempotency-Key was used with another body', [
        { field: 'Idempotency-Key', message: 'was used with another request body' },
      ]);
    }
    if (claim.state === 'replay') {
      ctx.status = claim.answer.status;
      ctx.set({ ...claim.answer.headers, 'Idempotent-Replayed': 'true' });
      ctx.body = claim.answer.body;
      return undefined;
    }
    if (claim.state === 'new') return claim.holder;
    if (Date.now() > deadline)
      throw new Problem(409, 'A request with this Idempotency-Key is still running; retry later');
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

/** Runs the write as the key's holder and keeps its answer (not a 5xx's: the key is freed). */
async function runHolding(
  ctx: Context,
  store: IdempotencyStore,
  scope: KeyScope,
  holder: Holder,
  write: (commit?: CommitAnswer) => Promise<void>,
): Promise<void> {
  // Renew the lease while the write runs; a failed renewal only shortens it (the holder is alive).
  const heartbeat = setInterval(
    () => store.renew(scope, holder).catch(() => undefined),
    Math.max(50, store.leaseMs / 3),
  );
  let stored = false;
  const commit: CommitAnswer = async (sql) => {
    // A failure, or a key taken over meanwhile, rolls the write back.
    if (!(await store503(store.complete(scope, holder, answerOf(ctx), sql)))) throw new LeaseLost();
    stored = true;
  };
  try {
    try {
      await write(commit);
    } catch (error) {
      stored = false;
      if (!(error instanceof Problem) || error.status >= 500) {
        await store.release(scope, holder).catch(() => undefined); // unreachable database: the lease expires instead
        throw error;
      }
      render(ctx, error);
    }
    if (ctx.status >= 500) return await store.release(scope, holder).catch(() => undefined);
    // A refusal changed nothing: kept for the retries unless the key was taken over meanwhile.
    if (!stored) await store503(store.complete(scope, holder, answerOf(ctx)));
  } finally {
    clearInterval(heartbeat);
  }
}
