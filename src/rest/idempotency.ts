import type { Context } from 'koa';
import { createHash } from 'node:crypto';
import { Problem } from './problem.js';

/** Where answers are kept (implemented on PostgreSQL in src/db; the REST layer sees only this). */
export interface StoredAnswer {
  status: number;
  body: unknown;
  headers: Record<string, string>;
}

export type Claim =
  | { state: 'new' }
  | { state: 'running' }
  | { state: 'conflict' }
  | { state: 'replay'; answer: StoredAnswer };

export interface IdempotencyStore {
  claim(scope: KeyScope, bodyHash: string): Promise<Claim>;
  complete(scope: KeyScope, answer: StoredAnswer): Promise<void>;
  release(scope: KeyScope): Promise<void>;
}

export interface KeyScope {
  tokenId: number;
  key: string;
  method: string;
  path: string;
}

const KEY = /^[\x21-\x7e]{1,255}$/;
const WAIT_MS = 30_000;
const POLL_MS = 50;

/** JSON with sorted keys: bodies that are equal as JSON hash alike whatever their key order. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.keys(value as object).sort().map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

function render(ctx: Context, problem: Problem) {
  ctx.status = problem.status;
  ctx.set(problem.headers);
  ctx.type = 'application/problem+json';
  ctx.body = problem.body;
}

/**
 * `Idempotency-Key` on a write (decisions §2 "Retries"), per token, method and path: the first
 * request runs and its answer (2xx or 4xx) is kept 24 h; a repeat with an equal JSON body gets that
 * answer without the work being done again; a duplicate arriving while the first runs waits for it;
 * the same key with another body is a 422 before anything else is checked; a 5xx is not kept, so
 * a retry runs.
 */
export async function idempotent(ctx: Context, store: IdempotencyStore | undefined, tokenId: number, body: unknown, write: () => Promise<void>): Promise<void> {
  const key = ctx.get('idempotency-key');
  if (!key || !store) return write();
  if (!KEY.test(key)) throw Problem.parameter('Idempotency-Key', 'must be 1 to 255 visible ASCII characters');
  const scope: KeyScope = { tokenId, key, method: ctx.method, path: ctx.path };
  const hash = createHash('sha256').update(canonical(body)).digest('hex');
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    const claim = await store.claim(scope, hash);
    if (claim.state === 'conflict') {
      throw new Problem(422, 'This Idempotency-Key was used with another body', [{ field: 'Idempotency-Key', message: 'was used with another request body' }]);
    }
    if (claim.state === 'replay') {
      ctx.status = claim.answer.status;
      ctx.set({ ...claim.answer.headers, 'Idempotent-Replayed': 'true' });
      ctx.body = claim.answer.body;
      return;
    }
    if (claim.state === 'new') break;
    if (Date.now() > deadline) throw new Problem(409, 'A request with this Idempotency-Key is still running; retry later');
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  try {
    await write();
  } catch (error) {
    if (!(error instanceof Problem) || error.status >= 500) {
      await store.release(scope);
      throw error;
    }
    render(ctx, error);
  }
  if (ctx.status >= 500) return store.release(scope);
  const headers: Record<string, string> = { 'Content-Type': String(ctx.response.get('Content-Type') || 'application/json') };
  const etag = ctx.response.get('ETag');
  if (etag) headers.ETag = String(etag);
  await store.complete(scope, { status: ctx.status, body: ctx.body, headers });
}
