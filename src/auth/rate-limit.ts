import type { MikroORM } from '@mikro-orm/postgresql';

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
 */
const bucketUpsert = (charges: string) => `
insert into rate_limit_bucket as b (token_id, tokens, granted, refilled_at)
select token_id, burst - cost, true, at from ${charges}
on conflict (token_id) do update set (tokens, granted, refilled_at) = (
  select case when x.level >= p.cost then x.level - p.cost else x.level end,
      x.level >= p.cost, greatest(b.refilled_at, p.at)
  from ${charges} p cross join lateral (
    select least(p.burst, b.tokens + p.rps * greatest(0, extract(epoch from p.at - b.refilled_at))::float8) as level
  ) x
)
returning tokens, granted`;

/** `p` holds the charge: the token, the bucket's settings, the cost and the database clock. */
const CHARGE_SQL = `
with p as (select ?::int as token_id, ?::float8 as burst, ?::float8 as rps, ?::float8 as cost, now() as at)
${bucketUpsert('p')}`;

/**
 * The bucket charge as a common table expression over the rows of `tokens` (a CTE with an `id`
 * column): the token check and its charge then take one statement (src/auth/api-tokens.ts).
 * Parameters: burst, rps, cost. `after`: a CTE read in full before the charge. The charge locks the
 * bucket's row until the statement ends, so a read that shares the statement runs first: the lock
 * is then held for the charge alone, not for the read too, and a token's concurrent requests do not
 * queue behind each other's reads.
 */
export const chargeCte = (tokens: string, after?: string) => `
charge_of as (select ${tokens}.id as token_id, ?::float8 as burst,
    ?::float8 as rps, ?::float8 as cost, now() as at from ${tokens}${
      after ? ` where (select count(*) from ${after}) >= 0` : ''
    }),
charged as (${bucketUpsert('charge_of')})`;

// Levels are fractional (continuous refill); this keeps 2.9999999 from reading as 2 requests left.
const EPSILON = 1e-9;

export class RateLimiter {
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
   * bucket (it needs a full bucket), so every operation can run eventually.
   */
  async charge(tokenId: number, cost = 1): Promise<RateLimitState> {
    const { burst, rps } = this.settings;
    const [row] = await this.orm.em
      .getConnection()
      .execute<{ tokens: number; granted: boolean }[]>(CHARGE_SQL, [tokenId, burst, rps, this.charged(cost)], 'all');
    return this.stateOf(row, cost);
  }

  /** What a cost takes from the bucket: a whole number of requests, at least 1, at most the bucket. */
  charged(cost: number): number {
    return Math.min(Math.max(1, Math.ceil(cost)), this.settings.burst);
  }

  /** The bucket after a charge of `cost`, from what the charge statement returned. */
  stateOf(row: { tokens: number | string; granted: boolean }, cost: number): RateLimitState {
    const { burst, rps } = this.settings;
    const charged = this.charged(cost);
    const level = Number(row.tokens);
    const state: RateLimitState = {
      allowed: row.granted,
      limit: burst,
      remaining: Math.max(0, Math.floor(level + EPSILON)),
      reset: Math.max(0, Math.ceil((burst - level) / rps - EPSILON)),
    };
    if (!row.granted) state.retryAfter = Math.max(1, Math.ceil((charged - level) / rps - EPSILON));
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
