import type { EntityManager } from '@mikro-orm/postgresql';
import { now } from '../clock.js';
import { ForbiddenError, NotFoundError } from '../domain/errors.js';
import { ApiToken } from '../entities/api-token.entity.js';
import { createApiToken, type Principal, validateScopes } from './api-tokens.js';

/**
 * `createApiToken` over GraphQL (docs/decisions.md#api-tokens). A manager grants only scopes its own token holds,
 * so `manage_tokens` alone cannot mint a token stronger than the one asking.
 */
export async function issueApiToken(
  em: EntityManager,
  caller: Principal,
  name: string,
  scopes: string[],
): Promise<{ token: ApiToken; secret: string }> {
  const wanted = validateScopes(scopes);
  refuseBeyondCaller(caller, wanted, 'grant only scopes it holds itself');
  return createApiToken(em, name, wanted);
}

/** A manager acts only on scopes its own token holds (granting them, or revoking a token that holds them). */
function refuseBeyondCaller(caller: Principal, scopes: readonly string[], what: string): void {
  const beyond = scopes.filter((s) => !caller.scopes.has(s as never));
  if (!beyond.length) return;
  const error = new ForbiddenError(beyond);
  error.message = `A token can ${what}; this one lacks ${beyond.join(', ')}`;
  throw error;
}

/**
 * Revokes a token. Every request looks its token up in the database (no cache), so the token is
 * refused by every process from the next request on. Revoking twice keeps the first time.
 *
 * A calling token revokes only tokens whose scopes are all its own
 * (docs/integrations.md#api-tokens-over-graphql): otherwise `manage_tokens` alone could cut off
 * every integration stronger than itself, the admin's included. It may always revoke itself.
 * `caller` null is the operator at the machine (`npm run token -- revoke`), who holds the database.
 */
export async function revokeApiToken(em: EntityManager, caller: Principal | null, id: number): Promise<ApiToken> {
  const token = await em.findOne(ApiToken, { id });
  if (!token) throw new NotFoundError('ApiToken', id);
  if (caller) refuseBeyondCaller(caller, token.scopes, 'revoke only tokens whose scopes it holds itself');
  token.revokedAt ??= now();
  await em.flush();
  return token;
}
