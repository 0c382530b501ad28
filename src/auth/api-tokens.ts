import { hash, randomBytes } from 'node:crypto';
import { type EntityManager, UniqueConstraintViolationException } from '@mikro-orm/postgresql';
import { setBounded } from '../bounded-map.js';
import { SQL_NOW } from '../clock.js';
import { runPrepared } from '../db/prepared-statements.js';
import { ValidationError } from '../domain/errors.js';
import { ApiToken } from '../entities/api-token.entity.js';
import { chargeCte, type RateLimiter, type RateLimitState } from './rate-limit.js';
import { isScope, SCOPES, type Scope } from './scopes.js';

export interface Principal {
  tokenId: number;
  name: string;
  scopes: ReadonlySet<Scope>;
}

const PREFIX = 'sk_';

/** A secret's SHA-256 in hex: what is stored and looked up. Every request hashes its token, so the one-shot form. */
export function hashSecret(secret: string): string {
  return hash('sha256', secret, 'hex');
}

function newSecret(): string {
  return PREFIX + randomBytes(32).toString('base64url');
}

/** A valid caller, and their bucket after the request's charge (when limits are on). */
export interface Authentication {
  principal: Principal;
  limit?: RateLimitState;
  /** The primary's WAL position a replica must have replayed to serve this caller's reads (its recent write). */
  waitLsn?: string;
}

/**
 * The token lookup. `fresh_for`: seconds until `last_used_at` is a minute old (null: never used),
 * which tells the process when the token's next check must carry the touch again (TOUCH_CTE).
 */
const TOKEN_CTE = `
token as (select id, name, scopes, last_used_at, last_write_at,
    extract(epoch from last_used_at + interval '1 minute' - now())::float8 as fresh_for
    from api_token where secret_hash = ? and revoked_at is null)`;

/**
 * `last_used_at` in the same statement as the lookup: the UPDATE runs only when the stored value is
 * over a minute old, so a busy token is written once a minute, not on every request, and no
 * request pays a second round trip. `skip locked`: a request never waits for the row (another
 * request touching it, a revocation in progress); it just leaves the touch to that one. A check
 * leaves this CTE out while the process knows the touch is not due (`fresh_for`): even when it
 * updates nothing, it is a sizeable part of a small read's statement (docs/performance.md).
 */
const TOUCH_CTE = `
touched as (
  update api_token a set last_used_at = ${SQL_NOW}
  where a.id = (
    select x.id from api_token x join token on x.id = token.id
    where token.last_used_at is null or token.last_used_at < now() - interval '1 minute'
    for update of x skip locked
  )
)`;

const TOKEN_AND_TOUCH_CTES = `${TOKEN_CTE}, ${TOUCH_CTE}`;

/** Until when (this process's clock) each token's touch is not due, by secret hash; bounded, oldest first out. */
const touchedUntil = new Map<string, number>();
const TOUCHED_MAX = 10_000;

/** The token CTEs of a read's check: the touch only when it may be due. */
function readingTokenCtes(secretHash: string): string {
  const until = touchedUntil.get(secretHash);
  return until !== undefined && until > Date.now() ? TOKEN_CTE : TOKEN_AND_TOUCH_CTES;
}

/** Records when the token's touch falls due, from a check's `fresh_for`. */
function noteTouch(secretHash: string, freshFor: number | null | undefined): void {
  if (freshFor == null || !(freshFor > 0)) touchedUntil.delete(secretHash);
  else setBounded(touchedUntil, secretHash, Date.now() + freshFor * 1000, TOUCHED_MAX);
}

/**
 * With read replicas, a write request also stamps `last_write_at` (it must, so it waits for the
 * row instead of skipping it; the lock lasts this one statement).
 */
const WRITING_TOKEN_CTES = `
token as (select id, name, scopes, 60::float8 as fresh_for from api_token where secret_hash = ? and revoked_at is null),
touched as (update api_token a set last_used_at = ${SQL_NOW}, last_write_at = now() from token where a.id = token.id)`;

/**
 * With read replicas, a read by a token that wrote within the window learns the primary's WAL
 * position now: that write's commit lies before it, so a replica that has replayed this far shows
 * it (src/db/read-replicas.ts). Outside the window any replica within its allowed lag has it.
 */
const WAIT_LSN = `case when token.last_write_at > now() - make_interval(secs => ?)
  then pg_current_wal_lsn()::text end as wait_lsn`;

export type TokenRow = {
  id: number;
  name: string;
  scopes: string[];
  tokens?: number;
  granted?: boolean;
  leased?: number;
  fresh_for?: number | null;
  wait_lsn?: string | null;
};

/** Read-your-writes bookkeeping (only with read replicas): whether this request writes, and the window. */
export interface WriteTracking {
  writes: boolean;
  windowSeconds: number;
}

/** A token check to send: its SQL, and what it charges. */
export interface TokenCheck {
  /** Common table expressions (`token`, and `charged` when it charges the bucket). */
  ctes: string;
  params: unknown[];
  /** A select of the check's one row (none for an unknown or revoked secret). */
  select: string;
  hash: string;
  cost: number;
  /** The bucket after the charge, when this process's lease paid it: the statement charges nothing. */
  paid?: RateLimitState;
}

/**
 * The token check as SQL: common table expressions (`token`, and with a limiter `charged`, the
 * bucket charged `cost` and a lease asked for), their `?` values, and a select of the check's one
 * row with the columns `authenticate` reads. When this process's lease on the bucket covers the
 * cost, it is spent here and the statement only checks the token. A read request's check rides on
 * its read in the same statement (src/auth/carried-token-check.ts): `after` names the read's CTE,
 * which the charge waits for (see `chargeCte`).
 */
export function tokenCheckSql(
  secretHash: string,
  limiter?: RateLimiter,
  cost = 1,
  tracking?: WriteTracking,
  after?: string,
): TokenCheck {
  const ctes = tracking?.writes ? WRITING_TOKEN_CTES : readingTokenCtes(secretHash);
  const waitLsn = tracking && !tracking.writes ? `, ${WAIT_LSN}` : '';
  const waitParams = waitLsn ? [tracking?.windowSeconds] : [];
  const paid = limiter?.spendLeased(secretHash, cost);
  if (!limiter || paid) {
    const select = `select id, name, scopes, fresh_for${waitLsn} from token`;
    return { ctes, params: [secretHash, ...waitParams], select, hash: secretHash, cost, paid };
  }
  const { burst, rps } = limiter.settings;
  return {
    ctes: `${ctes}, ${chargeCte('token', after)}`,
    params: [secretHash, burst, rps, limiter.charged(cost), limiter.leaseSize, ...waitParams],
    select: `select token.id, token.name, token.scopes, token.fresh_for, charged.tokens, charged.granted,
           charged.leased${waitLsn} from token left join charged on true`,
    hash: secretHash,
    cost,
  };
}

/** The caller a token check's row names (none: the secret is unknown or revoked), and their bucket. */
export function authenticationOf(
  row: TokenRow | undefined,
  limiter: RateLimiter | undefined,
  check: TokenCheck,
): Authentication | null {
  if (!row) {
    limiter?.dropLease(check.hash);
    return null;
  }
  noteTouch(check.hash, row.fresh_for);
  const principal = { tokenId: row.id, name: row.name, scopes: new Set(row.scopes.filter(isScope)) };
  const limit = limiter && (check.paid ?? limiter.stateOf(row as Required<TokenRow>, check.cost, check.hash));
  const authentication: Authentication = limit ? { principal, limit } : { principal };
  if (row.wait_lsn) authentication.waitLsn = row.wait_lsn;
  return authentication;
}

/**
 * Looks a bearer secret up by its hash and, with a limiter, charges the token's bucket in the same
 * statement (no second round trip per request). The comparison happens inside a unique-index
 * probe on the hash, so no timing difference reveals how much of a guessed secret was right.
 * Never cached: every request reads the token row, so a revocation holds at once in every process.
 * `tracking` (read replicas): a write is stamped; a read gets the WAL position it must see (`waitLsn`).
 */
export async function authenticate(
  em: EntityManager,
  secret: string,
  limiter?: RateLimiter,
  cost = 1,
  tracking?: WriteTracking,
): Promise<Authentication | null> {
  return secret ? checkToken(em, hashSecret(secret), limiter, cost, tracking) : null;
}

/** `authenticate` by the secret's hash. */
export async function checkToken(
  em: EntityManager,
  secretHash: string,
  limiter?: RateLimiter,
  cost = 1,
  tracking?: WriteTracking,
): Promise<Authentication | null> {
  return runTokenCheck(em, tokenCheckSql(secretHash, limiter, cost, tracking), limiter);
}

/** Sends a token check as a statement of its own (it must not wait for a read: no `after`). */
export async function runTokenCheck(
  em: EntityManager,
  check: TokenCheck,
  limiter: RateLimiter | undefined,
): Promise<Authentication | null> {
  const [row] = await runPrepared<TokenRow>(em, `with ${check.ctes} ${check.select}`, check.params);
  return authenticationOf(row, limiter, check);
}

export function validateScopes(scopes: string[], field = 'scopes'): Scope[] {
  const unknown = scopes.filter((s) => !isScope(s));
  if (unknown.length > 0 || scopes.length === 0) {
    throw new ValidationError([
      {
        field,
        message: unknown.length
          ? `unknown scope ${unknown.join(', ')}; valid: ${SCOPES.join(', ')}`
          : 'at least one scope is required',
      },
    ]);
  }
  return [...new Set(scopes)] as Scope[];
}

/** The longest token name, on every road that makes one (GraphQL, the CLI). */
const NAME_LIMIT = 200;

/**
 * Creates a token and returns its secret, which is shown this once and never stored. Its name is
 * kept trimmed, and held to NAME_LIMIT, whichever road made it.
 */
export async function createApiToken(
  em: EntityManager,
  given: string,
  scopes: string[],
  secret: string = newSecret(),
): Promise<{ token: ApiToken; secret: string }> {
  const name = given.trim();
  if (!name) throw new ValidationError([{ field: 'name', message: 'must not be empty' }]);
  if (given.length > NAME_LIMIT)
    throw new ValidationError([{ field: 'name', message: `must be at most ${NAME_LIMIT} characters` }]);
  const token = Object.assign(new ApiToken(), { name, secretHash: hashSecret(secret), scopes: validateScopes(scopes) });
  await em.persist(token).flush();
  return { token, secret };
}

/**
 * Start-up contract (docs/decisions.md#start-up-contract): `ADMIN_TOKEN` set → a token with that
 * secret and every scope exists; otherwise, when no token exists at all, one is created and its
 * secret returned to be printed once.
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
  // Several processes starting at once on an empty database: one creates the token, the others
  // wait for it under the lock and then find it (each would otherwise print a token of its own).
  return em.transactional(async (tx) => {
    await runPrepared(tx, 'select pg_advisory_xact_lock(hashtext(?))', ['first token']);
    if ((await tx.count(ApiToken, {})) > 0) return null;
    const { secret } = await createApiToken(tx, 'first token', [...SCOPES]);
    return secret;
  });
}
