import type { MikroORM } from '@mikro-orm/postgresql';
import { setBounded } from '../bounded-map.js';

export interface RateLimitSettings {
  /** Bucket size: requests a token may spend at once (`RATE_LIMIT_BURST`). */
  burst: number;
  /** Refill in requests per second (`RATE_LIMIT_RPS`). */
  rps: number;
}

/** The bucket of one token after one charge, as the response headers tell it. */
export interface RateLimitState {
  allowed: boolean;
  /** `RateLimit-Limit`: the bucket size. */
  limit: number;
  /** `RateLimit-Remaining`: whole requests left now. */
  remaining: number;
  /** `RateLimit-Reset`: seconds until the bucket is full again. */
  reset: number;
  /** `Retry-After` when refused: seconds until this charge would be allowed. */
  retryAfter?: number;
}

/**
 * One atomic token bucket per API token, in PostgreSQL so every server process spends the same
 * bucket. A charge is a single statement: the row is created full on first use, otherwise locked
 * by the upsert, refilled continuously by the database clock (`rps` × seconds since the last
 * charge, never above `burst`) and debited when the level covers the cost. A refused charge
 * debits nothing. Concurrent charges from any number of processes serialise on the row lock.
 *
 * A charge may also take `extra` requests ahead for the charging process (its lease, see
 * RateLimiter): only while the bucket holds at least twice that beyond the cost, so near empty
 * every request is charged to the bucket itself, one at a time. `leased` returns what was taken.
 */
const bucketUpsert = (charges: string) => `
insert into rate_limit_bucket as b (token_id, tokens, granted, leased, refilled_at)
select token_id, burst - cost - l.extra, true, l.extra, at from ${charges}
  cross join lateral (select case when burst >= cost + 2 * extra then extra else 0 end as extra) l
on conflict (token_id) do update set (tokens, granted, leased, refilled_at) = (
  select x.level - t.taken, x.level >= p.cost, greatest(t.taken - p.cost, 0), greatest(b.refilled_at, p.at)
  from ${charges} p cross join lateral (
    select least(p.burst, b.tokens + p.rps * greatest(0, extract(epoch from p.at - b.refilled_at))::float8) as level
  ) x cross join lateral (
    select case when x.level >= p.cost + 2 * p.extra then p.cost + p.extra when x.level >= p.cost then p.cost
      else 0 end as taken
  ) t
)
returning tokens, granted, leased`;

/** `p` holds the charge: the token, the bucket's settings, the cost and the database clock; no lease. */
const CHARGE_SQL = `
with p as (select ?::int as token_id, ?::float8 as burst, ?::float8 as rps, ?::float8 as cost,
    0::float8 as extra, now() as at)
${bucketUpsert('p')}`;

/**
 * The bucket charge as a common table expression over the rows of `tokens` (a CTE with an `id`
 * column): the token check and its charge then take one statement (src/auth/api-tokens.ts).
 * Parameters: burst, rps, cost, extra (the lease asked for). `after`: a CTE read in full before the
 * charge. The charge locks the bucket's row until the statement ends, so a read that shares the
 * statement runs first: the lock is then held for the charge alone, not for the read too, and a
 * token's concurrent requests do not queue behind each other's reads.
 */
export const chargeCte = (tokens: string, after?: string) => `
charge_of as (select ${tokens}.id as token_id, ?::float8 as burst,
    ?::float8 as rps, ?::float8 as cost, ?::float8 as extra, now() as at from ${tokens}${
      after ? ` where (select count(*) from ${after}) >= 0` : ''
    }),
charged as (${bucketUpsert('charge_of')})`;

/** A bucket charge's row: the level it left, whether it was granted, and what it leased ahead. */
export interface ChargeRow {
  tokens: number | string;
  granted: boolean;
  leased?: number | string;
}

/**
 * Requests of one token this process has taken ahead from its bucket: spent here without a charge
 * statement until gone or until `until`. `level` is the bucket as the lease's charge left it.
 */
interface Lease {
  left: number;
  level: number;
  until: number;
}

/**
 * A lease is a hundredth of the bucket, at most LEASE_MAX requests: with the default bucket of 100
 * every second request is charged to the bucket, with a large one every 33rd. Below 100 there is no
 * lease and every request is charged. What a lease holds unspent when another process empties the
 * bucket is at most that many requests, for at most LEASE_MS: the bucket is never overspent.
 */
const LEASE_SHARE = 100;
const LEASE_MAX = 32;
const LEASE_MS = 1000;
const LEASES_MAX = 10_000;

// Levels are fractional (continuous refill); this keeps 2.9999999 from reading as 2 requests left.
const EPSILON = 1e-9;

export class RateLimiter {
  /** This process's leases, by the token's secret hash (bounded, oldest first out). */
  private readonly leases = new Map<string, Lease>();

  constructor(
    private readonly orm: MikroORM,
    readonly settings: RateLimitSettings,
  ) {}

  /** A limiter, or none when either setting is 0 (docs/decisions.md#rate-limits: 0 turns limiting off). */
  static create(orm: MikroORM, settings: RateLimitSettings | undefined): RateLimiter | undefined {
    return settings && settings.burst > 0 && settings.rps > 0 ? new RateLimiter(orm, settings) : undefined;
  }

  /**
   * Spends `cost` from the token's bucket. A cost above the bucket size is charged as the whole
   * bucket (it needs a full bucket), so every operation can run eventually. With the secret's
   * `hash`, this process's lease pays it when it covers it, and the bucket shown counts the lease.
   */
  async charge(tokenId: number, cost = 1, hash?: string, retryFor = this.charged(cost)): Promise<RateLimitState> {
    const paid = hash === undefined ? undefined : this.spendLeased(hash, cost);
    if (paid) return paid;
    const { burst, rps } = this.settings;
    const [row] = await this.orm.em
      .getConnection()
      .execute<ChargeRow[]>(CHARGE_SQL, [tokenId, burst, rps, this.charged(cost)], 'all');
    return this.stateOf(row, cost, hash, retryFor);
  }

  /**
   * The rest of an operation costing `cost` whose first request its token check took already:
   * together at most the bucket (one costing more waits for a full bucket, never refused for ever),
   * and a refusal's Retry-After is when the bucket holds all of it, the retry's own check included.
   * Undefined when nothing is left to charge.
   */
  async chargeRest(tokenId: number, cost: number, hash?: string): Promise<RateLimitState | undefined> {
    const whole = this.charged(cost);
    if (whole <= 1) return undefined;
    const rest = whole - 1;
    // What this process leased ahead for the token pays its share first: the check that took the
    // first request may have leased from the bucket what the rest then needs.
    const lease = hash === undefined ? undefined : this.liveLease(hash);
    const fromLease = Math.min(lease?.left ?? 0, rest);
    if (fromLease === rest) return this.charge(tokenId, rest, hash, whole);
    // Taken from the lease before the statement (another request of the token may spend it
    // meanwhile), given back when the bucket refuses the rest.
    if (lease) lease.left -= fromLease;
    const state = await this.charge(tokenId, rest - fromLease, undefined, whole);
    if (!state.allowed && lease) lease.left += fromLease;
    return state;
  }

  /** This process's lease for the token, unless it ran out. */
  private liveLease(hash: string): Lease | undefined {
    const lease = this.leases.get(hash);
    return lease && lease.until > Date.now() ? lease : undefined;
  }

  /** What a cost takes from the bucket: a whole number of requests, at least 1, at most the bucket. */
  charged(cost: number): number {
    return Math.min(Math.max(1, Math.ceil(cost)), this.settings.burst);
  }

  /** Requests a charge to the bucket asks to take ahead for this process (see LEASE_SHARE). */
  get leaseSize(): number {
    return Math.min(LEASE_MAX, Math.floor(this.settings.burst / LEASE_SHARE));
  }

  /**
   * The bucket after `cost` is spent from this process's lease for the token (`hash`), or undefined
   * when the lease does not cover it: the request's check then charges the bucket.
   */
  spendLeased(hash: string, cost: number): RateLimitState | undefined {
    const lease = this.leases.get(hash);
    if (!lease) return undefined;
    const charged = this.charged(cost);
    if (lease.until <= Date.now()) {
      this.leases.delete(hash);
      return undefined;
    }
    if (lease.left < charged) return undefined;
    lease.left -= charged;
    return this.stateAt(lease.level + lease.left, true, charged);
  }

  /** Forgets the token's lease (its check found it revoked or unknown). */
  dropLease(hash: string): void {
    this.leases.delete(hash);
  }

  /**
   * The bucket after a charge of `cost`, from what the charge statement returned; with the token's
   * `hash`, what it leased is added to this process's lease, and the level shown counts the lease.
   */
  stateOf(row: ChargeRow, cost: number, hash?: string, retryFor = this.charged(cost)): RateLimitState {
    const level = Number(row.tokens);
    const left = hash === undefined ? 0 : this.leaseAfterCharge(hash, level, Number(row.leased ?? 0));
    return this.stateAt(level + left, row.granted, retryFor);
  }

  /** Adds what a charge `leased` to the token's lease (a live one, else a new one); what it holds now. */
  private leaseAfterCharge(hash: string, level: number, leased: number): number {
    let lease = this.leases.get(hash);
    if (lease && lease.until <= Date.now()) lease = undefined;
    if (leased > 0) {
      lease = { left: (lease?.left ?? 0) + leased, level, until: Date.now() + LEASE_MS };
      setBounded(this.leases, hash, lease, LEASES_MAX);
    }
    if (!lease) return 0;
    lease.level = level;
    return lease.left;
  }

  /**
   * The headers' view of a bucket at `level` (its lease included) after a charge; a refused one's
   * Retry-After is when the bucket holds `charged`.
   */
  private stateAt(level: number, allowed: boolean, charged: number): RateLimitState {
    const { burst, rps } = this.settings;
    const state: RateLimitState = {
      allowed,
      limit: burst,
      remaining: Math.max(0, Math.floor(level + EPSILON)),
      reset: Math.max(0, Math.ceil((burst - level) / rps - EPSILON)),
    };
    if (!allowed) state.retryAfter = Math.max(1, Math.ceil((charged - level) / rps - EPSILON));
    return state;
  }
}

/** The response headers of a charge (docs/decisions.md#rate-limits), `Retry-After` on a refusal. */
export function rateLimitHeaders(state: RateLimitState): Record<string, string> {
  return {
    'RateLimit-Limit': String(state.limit),
    'RateLimit-Remaining': String(state.remaining),
    'RateLimit-Reset': String(state.reset),
    ...(state.retryAfter !== undefined ? { 'Retry-After': String(state.retryAfter) } : {}),
  };
}

export const RATE_LIMITED = 'RATE_LIMITED';

export function rateLimitedMessage(state: RateLimitState): string {
  return (
    `Rate limit exceeded: this token's bucket holds ${state.limit} requests and ` +
    `refills continuously; retry after ${state.retryAfter ?? 1} s`
  );
}
