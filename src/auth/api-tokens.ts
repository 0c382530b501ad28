import { UniqueConstraintViolationException, type EntityManager } from '@mikro-orm/postgresql';
import { createHash, randomBytes } from 'node:crypto';
import { ApiToken } from '../entities/api-token.entity.js';
import { ValidationError } from '../domain/errors.js';
import { isScope, SCOPES, type Scope } from './scopes.js';

export interface Principal {
  tokenId: number;
  name: string;
  scopes: ReadonlySet<Scope>;
}

const PREFIX = 'sk_';

export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

function newSecret(): string {
  return PREFIX + randomBytes(32).toString('base64url');
}

/**
 * The lookup, and `last_used_at` in the same statement: the UPDATE runs only when the stored value
 * is over a minute old, so a busy token is written once a minute, not on every request, and no
 * request pays a second round trip. `skip locked`: a request never waits for the row (another
 * request touching it, a revocation in progress); it just leaves the touch to that one.
 * Never cached: a revocation holds for every process at once.
 */
const AUTHENTICATE_SQL = `
with t as (select id, name, scopes, last_used_at from api_token where secret_hash = ? and revoked_at is null),
touched as (
  update api_token a set last_used_at = date_trunc('second', now())
  where a.id = (
    select x.id from api_token x join t on x.id = t.id
    where t.last_used_at is null or t.last_used_at < now() - interval '1 minute'
    for update of x skip locked
  )
)
select id, name, scopes from t`;

/**
 * Looks a bearer secret up by its hash. The comparison happens inside a unique-index probe on
 * the hash, so no timing difference reveals how much of a guessed secret was right.
 */
export async function authenticate(em: EntityManager, secret: string): Promise<Principal | null> {
  if (!secret) return null;
  const [token] = await em.getConnection().execute<{ id: number; name: string; scopes: string[] }[]>(AUTHENTICATE_SQL, [hashSecret(secret)]);
  if (!token) return null;
  return { tokenId: token.id, name: token.name, scopes: new Set(token.scopes.filter(isScope)) };
}

export function validateScopes(scopes: string[], field = 'scopes'): Scope[] {
  const unknown = scopes.filter((s) => !isScope(s));
  if (unknown.length > 0 || scopes.length === 0) {
    throw new ValidationError([
      { field, message: unknown.length ? `unknown scope ${unknown.join(', ')}; valid: ${SCOPES.join(', ')}` : 'at least one scope is required' },
    ]);
  }
  return [...new Set(scopes)] as Scope[];
}

/** Creates a token and returns its secret, which is shown this once and never stored. */
export async function createApiToken(
  em: EntityManager,
  name: string,
  scopes: string[],
  secret: string = newSecret(),
): Promise<{ token: ApiToken; secret: string }> {
  if (!name.trim()) throw new ValidationError([{ field: 'name', message: 'must not be empty' }]);
  const token = Object.assign(new ApiToken(), { name, secretHash: hashSecret(secret), scopes: validateScopes(scopes) });
  await em.persist(token).flush();
  return { token, secret };
}

/**
 * Start-up contract (decisions §1): `ADMIN_TOKEN` set → a token with that secret and every scope
 * exists; otherwise, when no token exists at all, one is created and its secret returned to be
 * printed once.
 */
export async function ensureFirstToken(em: EntityManager, adminToken: string | undefined): Promise<string | null> {
  if (adminToken) {
    for (let attempt = 1; ; attempt++) {
      const existing = await em.findOne(ApiToken, { secretHash: hashSecret(adminToken) });
      if (existing) {
        existing.scopes = [...SCOPES];
        existing.revokedAt = null;
        await em.flush();
        return null;
      }
      try {
        await createApiToken(em, 'admin (ADMIN_TOKEN)', [...SCOPES], adminToken);
        return null;
      } catch (error) {
        // Several processes starting at once against one database: another one created it first.
        if (!(error instanceof UniqueConstraintViolationException) || attempt > 1) throw error;
        em.clear();
      }
    }
  }
  if ((await em.count(ApiToken, {})) > 0) return null;
  const { secret } = await createApiToken(em, 'first token', [...SCOPES]);
  return secret;
}
