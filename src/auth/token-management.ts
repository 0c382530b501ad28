import type { EntityManager } from '@mikro-orm/postgresql';
import { now } from '../clock.js';
import { ForbiddenError, NotFoundError, ValidationError } from '../domain/errors.js';
import { ApiToken } from '../entities/api-token.entity.js';
import { createApiToken, validateScopes, type Principal } from './api-tokens.js';

const NAME_LIMIT = 200;

/**
 * `createApiToken` over GraphQL (docs/decisions.md#api-tokens). A manager grants only scopes its own token holds,
 * so `manage_tokens` alone cannot mint a token stronger than the one asking.
 */
export async function issueApiToken(em: EntityManager, caller: Principal, name: string, scopes: string[]): Promise<{ token: ApiToken; secret: string }> {
  if (name.length > NAME_LIMIT) throw new ValidationError([{ field: 'name', message: `must be at most ${NAME_LIMIT} characters` }]);
  const wanted = validateScopes(scopes);
  const beyond = wanted.filter((s) => !caller.scopes.has(s));
  if (beyond.length) {
    const error = new ForbiddenError(beyond);
    error.message = `A token can grant only scopes it holds itself; this one lacks ${beyond.join(', ')}`;
    throw error;
  }
  return createApiToken(em, name.trim(), wanted);
}

/**
 * Revokes a token. Every request looks its token up in the database (no cache), so the token is
 * refused by every process from the next request on. Revoking twice keeps the first time.
 */
export async function revokeApiToken(em: EntityManager, id: number): Promise<ApiToken> {
  const token = await em.findOne(ApiToken, { id });
  if (!token) throw new NotFoundError('ApiToken', id);
  token.revokedAt ??= now();
  await em.flush();
  return token;
}
