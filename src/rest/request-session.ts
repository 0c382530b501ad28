import type { Context } from 'koa';
import type { Session } from '../graphql/gateway.js';
import { Problem } from './problem.js';
import { type RouteSpec, routeScopes } from './route-spec.js';
import type { RestOptions } from './router.js';

/*
 * Who a REST request runs as, settled before anything else of it is read: the token authenticated
 * and charged (`sessionOf`), then the route's scope required of it (`requireScope`). Single
 * requests, bulk uploads (src/bulk/bulk-http.ts) and bulk lines (src/rest/bulk-lines.ts) share them.
 */

/**
 * The route's scope is checked right after authentication, before the body is read: a token
 * that may not write gets 403 whatever it sent (the resolver's @Authorized checks it again).
 */
export function requireScope(session: Pick<Session, 'scopes'>, route: Pick<RouteSpec, 'scope'>): void {
  const scopes = routeScopes(route);
  if (scopes.length && !scopes.some((scope) => session.scopes.has(scope))) {
    throw new Problem(403, `This token lacks the scope ${scopes.join(' or ')}`);
  }
}

/** A longer query string is a 414, refused before the token is even looked up (links echo the list's parameters). */
export const MAX_QUERY = 4096;

/**
 * Authentication comes first: without a valid token nothing else is checked or revealed (only an
 * over-long query string is refused before it). A valid token spends one request of its rate
 * limit; every answer from here on (problems included) carries the `RateLimit-*` headers, and an
 * empty bucket is a 429 with `Retry-After`.
 */
export async function sessionOf(ctx: Context, options: RestOptions, writes = false, carry = false): Promise<Session> {
  if (ctx.querystring.length > MAX_QUERY)
    throw new Problem(414, `The query string is longer than ${MAX_QUERY} characters`);
  const session = await options.gateway.session(ctx.get('authorization') || undefined, writes, carry);
  if (session.headers) ctx.set(session.headers);
  if ('errors' in session) throw Problem.fromGraphQL(session.errors);
  return session;
}

/**
 * A read handled as its caller, whose token check rides on the page's statement when the caller
 * was seen before (src/auth/carried-token-check.ts): one statement for the page where there were
 * two. Nothing the handler did stands until the check has come out: a token revoked or emptied
 * meanwhile gets its 401 or 429 instead of the page or of any 4xx (authentication comes first, as
 * above), and a caller whose scopes changed is handled again as they are now (already charged).
 */
export async function asCaller(ctx: Context, options: RestOptions, handle: (session: Session) => Promise<void>) {
  const session = await sessionOf(ctx, options, false, true);
  if (!session.settle) return handle(session);
  const before = new Set(Object.keys(ctx.response.headers));
  let failure: { error: unknown } | undefined;
  try {
    await handle(session);
  } catch (error) {
    // The database out of reach or too busy (a 503) reveals nothing, and settling would wait for
    // it again: the answer stands as it is, uncharged. Anything else waits for the check.
    if (error instanceof Problem && error.status === 503) throw error;
    failure = { error };
  }
  const { headers, errors, changed } = await session.settle();
  if (errors || changed) {
    // What the handler answered does not stand: neither do the headers it set (a page's links).
    for (const name of Object.keys(ctx.response.headers)) if (!before.has(name)) ctx.remove(name);
  }
  if (headers) ctx.set(headers);
  if (errors) throw Problem.fromGraphQL(errors);
  if (changed) return handle(changed);
  if (failure) throw failure.error;
}
