import type { EntityManager } from '@mikro-orm/postgresql';
import { setBounded } from '../bounded-map.js';
import { ACCOMPANIED_READ, type Companion } from '../db/prepared-statements.js';
import {
  type Authentication,
  authenticationOf,
  type Principal,
  runTokenCheck,
  type TokenCheck,
  type TokenRow,
  tokenCheckSql,
} from './api-tokens.js';
import type { RateLimiter, RateLimitState } from './rate-limit.js';

/**
 * A read request's token check, carried by its read: one statement checks the token, charges its
 * bucket and reads, where it took two round trips before (docs/performance.md#one-statement-reads).
 *
 * The request starts with the principal this process last saw for the secret (its scopes decide
 * what the resolvers allow), and the check runs in the same statement as the page or record read
 * that PostgreSQL answers, which names it in its call (`companion()`, carried as the read
 * request's `check`, src/db/prepared-statements.ts `Companion`): its rows reach nobody unless the
 * token still exists, is not revoked, holds the same scopes and its bucket granted the charge. Nothing is trusted from
 * memory: every request is checked against the token row, so a revocation or a scope change holds
 * at once in every process, as before. A request whose read cannot carry the check (anything but a
 * read PostgreSQL answers) settles it first, with the token statement alone.
 */
export class CarriedTokenCheck {
  outcome: 'pending' | 'passed' | 'unauthenticated' | 'refused' | 'changed' = 'pending';
  /** What the request charges: 1, or an operation's measured cost once known. */
  cost = 1;
  /** The bucket after the charge, once checked. */
  limit?: RateLimitState;
  /** The check last handed to a read to carry. */
  private carried?: TokenCheck;

  constructor(
    private readonly hash: string,
    /** The caller as last seen, then as checked (a changed one when `outcome` is `changed`). */
    public principal: Principal,
    private readonly limiter: RateLimiter | undefined,
  ) {}

  /**
   * The check as a companion of the request's read (src/db/prepared-statements.ts `Companion`), for
   * the read PostgreSQL answers to name in its call; undefined once settled.
   */
  companion(): Companion | undefined {
    if (this.outcome !== 'pending') return undefined;
    // The bucket's charge waits for the read, so the bucket's row is locked for the charge alone.
    const check = tokenCheckSql(this.hash, this.limiter, this.cost, undefined, ACCOMPANIED_READ);
    this.carried = check;
    return {
      ctes: check.ctes,
      params: check.params,
      select: check.select,
      settle: (row) => {
        this.settleWith(authenticationOf(row as TokenRow | undefined, this.limiter, check));
        if (this.outcome !== 'passed') throw new TokenCheckFailed(this.outcome);
      },
    };
  }

  /**
   * Settles the check if no statement carried it (with the token statement alone); the outcome. A
   * check this process's lease already paid is sent as it is (it charges nothing, so it waits for
   * no read); one that charges the bucket is built again without waiting for a read.
   */
  async settle(em: EntityManager): Promise<CarriedTokenCheck['outcome']> {
    if (this.outcome === 'pending') {
      const check = this.carried?.paid ? this.carried : tokenCheckSql(this.hash, this.limiter, this.cost);
      this.settleWith(await runTokenCheck(em, check, this.limiter));
    }
    return this.outcome;
  }

  /**
   * The read that carried the check ended without its outcome (the statement cancelled, the
   * database out of reach: a 503 that stands unsettled): the caller is checked first from now on,
   * so a token revoked meanwhile is not carried again by reads that fail the same way.
   */
  forget(): void {
    if (this.outcome === 'pending') knownTokens.delete(this.hash);
  }

  private settleWith(authentication: Authentication | null): void {
    if (!authentication) {
      this.outcome = 'unauthenticated';
      knownTokens.delete(this.hash);
      return;
    }
    this.limit = authentication.limit;
    const same = sameScopes(authentication.principal.scopes, this.principal.scopes);
    this.principal = authentication.principal;
    this.outcome = authentication.limit?.allowed === false ? 'refused' : same ? 'passed' : 'changed';
    rememberToken(this.hash, authentication);
  }
}

/** Thrown by a read that carried a check that failed: its rows are withheld. */
export class TokenCheckFailed extends Error {
  constructor(readonly outcome: CarriedTokenCheck['outcome']) {
    super(`the token check carried by this read did not pass (${outcome})`);
  }
}

const sameScopes = (a: ReadonlySet<string>, b: ReadonlySet<string>) =>
  a.size === b.size && [...a].every((s) => b.has(s));

/**
 * Callers this process has seen, by secret hash: the principal and how many requests their bucket
 * had left. Only a hint of what the check will find (a miss or a stale entry costs the request its
 * second round trip, never a wrong answer); bounded, oldest first out.
 */
const knownTokens = new Map<string, { principal: Principal; remaining: number }>();
const KNOWN_TOKENS_MAX = 10_000;
/**
 * A caller whose bucket was this close to empty is checked before its read runs: a refused charge
 * would otherwise have run the read for nothing.
 */
const HEADROOM = 10;

/** Records a successful check's caller (by secret hash, any road), for their next request to carry its check. */
export function rememberToken(hash: string, authentication: Authentication): void {
  const remaining = authentication.limit ? authentication.limit.remaining : Number.POSITIVE_INFINITY;
  setBounded(knownTokens, hash, { principal: authentication.principal, remaining }, KNOWN_TOKENS_MAX);
}

/** A check to carry, for a caller seen before with room in their bucket; undefined: check first. */
export function carriedCheckFor(hash: string, limiter: RateLimiter | undefined): CarriedTokenCheck | undefined {
  const known = knownTokens.get(hash);
  if (!known || known.remaining < HEADROOM) return undefined;
  return new CarriedTokenCheck(hash, known.principal, limiter);
}
