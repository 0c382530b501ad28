import type { MikroORM } from '@mikro-orm/postgresql';
import { authenticate, checkToken, hashSecret } from '../auth/api-tokens.js';
import { carriedCheckFor, rememberToken } from '../auth/carried-token-check.js';
import type { RateLimiter } from '../auth/rate-limit.js';
import type { Scope } from '../auth/scopes.js';
import { UnauthenticatedError } from '../domain/errors.js';
import type { GraphQLContext } from '../resolvers/context.js';
import { Loaders } from '../resolvers/loaders.js';
import type { ReplicaRouter, ReplicaRouting } from './replica-routing.js';

export function bearerOf(header: string | undefined): string | null {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
  return match ? match[1] : null;
}

/**
 * The caller of a request, from its `Authorization` header: `contextFor` authenticates the bearer
 * token once per request and gives resolvers a fresh EntityManager, routed by `router`.
 */
export function createRequestContexts(
  orm: MikroORM,
  router: ReplicaRouter,
  limiter: RateLimiter | undefined,
  replicas: ReplicaRouting | undefined,
) {
  /**
   * The caller's context, one statement: the token is checked and its bucket charged one request
   * together (every request, REST or GraphQL, costs at least one; a GraphQL operation that costs
   * more is charged the rest once it is measured). A refused charge is in `limit.allowed`.
   */
  async function contextFor(authorization: string | undefined, writes = true, carry = false): Promise<GraphQLContext> {
    const secret = bearerOf(authorization);
    if (!secret) throw new UnauthenticatedError();
    const hash = hashSecret(secret);
    // `carry`: a `/graphql` read by a caller seen before checks its token in the statement of its read.
    const carried = carry && !writes ? carriedContextOf(hash) : undefined;
    if (carried) return carried;
    const em = orm.em.fork();
    const tracking = replicas ? { writes, windowSeconds: replicas.windowSeconds } : undefined;
    const authentication = await checkToken(em, hash, limiter, 1, tracking);
    if (!authentication) throw new UnauthenticatedError();
    rememberToken(hash, authentication);
    const { principal, limit } = authentication;
    const context = { em, principal, loaders: new Loaders(em), limit, secretHash: hash };
    router.route(em, writes, authentication.waitLsn);
    return context;
  }

  /**
   * A `/graphql` read's context whose token check rides on the statement of its read (by a caller
   * seen before, src/auth/carried-token-check.ts; `answer` settles it), else undefined: the token is
   * checked first. Never with replicas: the check writes, so it runs on the primary, where such a
   * read may not.
   */
  function carriedContextOf(hash: string): GraphQLContext | undefined {
    const check = replicas ? undefined : carriedCheckFor(hash, limiter);
    if (!check) return undefined;
    const em = orm.em.fork();
    return { em, principal: check.principal, loaders: new Loaders(em), check, secretHash: hash };
  }

  /** Whether the bearer token holds the scope (for endpoints outside GraphQL, e.g. /metrics). */
  async function hasScope(
    authorization: string | undefined,
    scope: Scope,
  ): Promise<'ok' | 'unauthenticated' | 'forbidden'> {
    const secret = bearerOf(authorization);
    const authentication = secret ? await authenticate(orm.em.fork(), secret) : null;
    if (!authentication) return 'unauthenticated';
    return authentication.principal.scopes.has(scope) ? 'ok' : 'forbidden';
  }

  return { contextFor, hasScope };
}
