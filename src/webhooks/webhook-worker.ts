import type { MikroORM } from '@mikro-orm/postgresql';
import { SQL_NOW } from '../clock.js';
import { runPrepared } from '../db/prepared-statements.js';
import { eventDataShownTo } from '../domain/event-visibility.js';
import { logger } from '../logger.js';
import { inSpan } from '../observability/tracing-state.js';
import { type PostResult, postWebhook } from './http-post.js';
import { signWebhook } from './signature.js';
import { ownerRefusal } from './subscription-authority.js';
import { allowPrivateTargets } from './target-policy.js';

/** Seconds before retry n (after attempt n failed), as Svix does: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h. */
export const RETRY_DELAYS_SECONDS = [5, 300, 1800, 7200, 18_000, 36_000, 36_000];

export interface WebhookWorkerOptions {
  /** Pause between polls when nothing is due. */
  pollMs?: number;
  /** Deliveries in flight at once (a slow receiver holds one slot, never the others). */
  concurrency?: number;
  /** A receiver's whole answer must arrive within this. */
  timeoutMs?: number;
  /**
   * Delays before each retry; attempts = this length + 1, after which the delivery fails (and the
   * subscription is disabled when every attempt of the endpoint failed meanwhile, FAILED_SQL).
   */
  retryDelaysSeconds?: number[];
  allowPrivate?: boolean;
}

interface Claimed {
  id: number;
  subscription_id: number;
  attempts: number;
  url: string;
  secret: string;
  event_id: number;
  type: string;
  subject: string;
  created_at: Date | string;
  data: Record<string, unknown>;
  events: string[];
  owner_token_id: number | null;
  /** The creating token's scopes; null once it was revoked. */
  owner_scopes: string[] | null;
  /** The traced request that queued it (docs/operations.md#traces), or null. */
  trace_parent: string | null;
}

/** An attempt's outcome; `disable` stops the subscription, with this reason, whatever the attempt count. */
type Outcome = PostResult & { disable?: string };

/**
 * One statement claims due deliveries: `FOR UPDATE SKIP LOCKED` picks rows no other worker is
 * claiming, the attempt counter moves on and `next_attempt_at` is pushed past a lease (so a crashed
 * worker's attempt is retried, as the next attempt, after the lease), and the attempt is logged
 * under a unique (delivery, attempt) key: two workers can never make the same attempt. The
 * subscription's creating token comes along, since a subscription sends only under its authority.
 * The rows come back in queue order, so deliveries start in the order their events were queued
 * (a join alone promises no order: the event table's plan changed it once). A subscription takes at
 * most half a worker's slots (`place`: its deliveries in flight on this worker, then its due ones
 * in queue order), so a receiver that answers slowly, or never, with a backlog of deliveries holds
 * up only its own: every other subscription's due delivery finds a slot.
 */
const CLAIM_SQL = `
with placed as (
  select d.id, row_number() over (partition by d.subscription_id order by d.next_attempt_at, d.id)
    + coalesce(f.n, 0) as place
  from webhook_delivery d join webhook_subscription s on s.id = d.subscription_id
  left join unnest(?::int[], ?::int[]) f (subscription_id, n) on f.subscription_id = d.subscription_id
  where d.status = 'pending' and d.next_attempt_at <= now() and s.disabled_at is null
), due as (
  select d.id from webhook_delivery d join placed p on p.id = d.id
  where p.place <= ? and d.status = 'pending' and d.next_attempt_at <= now()
  order by d.next_attempt_at, d.id limit ? for update of d skip locked
), claimed as (
  update webhook_delivery d set attempts = d.attempts + 1, next_attempt_at = ${SQL_NOW} + make_interval(secs => ?)
  from due where d.id = due.id returning d.id, d.subscription_id, d.event_id, d.attempts, d.trace_parent
), logged as (
  insert into webhook_attempt (delivery_id, attempt, attempted_at, duration_ms)
    select id, attempts, ${SQL_NOW}, 0 from claimed
)
select c.id, c.subscription_id, c.attempts, s.url, s.secret, e.id as event_id, e.type, e.subject, e.created_at,
  e.data, s.events, s.created_by_token_id as owner_token_id, t.scopes as owner_scopes, c.trace_parent
from claimed c join webhook_subscription s on s.id = c.subscription_id join event e on e.id = c.event_id
left join api_token t on t.id = s.created_by_token_id and t.revoked_at is null
order by c.id`;

/** A 2xx: delivered; the subscription's failure streak ends. */
const SUCCEEDED_SQL = `
with d as (
  update webhook_delivery set status = 'delivered', delivered_at = ${SQL_NOW},
    next_attempt_at = null, last_status_code = ?, last_error = null
  where id = ? returning subscription_id
), a as (
  update webhook_attempt set status_code = ?, duration_ms = ? where delivery_id = ? and attempt = ?
)
update webhook_subscription set consecutive_failures = 0 where id = (select subscription_id from d)`;

/**
 * A failed attempt: retried after the next delay, or, with no retry left, failed. The subscription is
 * disabled (and visible as such) until re-enabled when that delivery failed every attempt and so did
 * the endpoint meanwhile: at least as many attempts in a row as a delivery has, none delivered in
 * between. One event the receiver refuses while it takes the others fails alone (a disabled
 * subscription queues nothing new). With `disable_reason` the subscription is disabled at once
 * (its deliveries stay pending).
 */
const FAILED_SQL = `
with p as (
  select ?::int as id, ?::int as attempt, ?::int as status_code, ?::text as error, ?::int as duration_ms,
    ?::int as max_attempts, ?::int as delay, ?::text as disable_reason
),
d as (
  update webhook_delivery w set last_status_code = p.status_code, last_error = p.error,
    status = case when p.attempt >= p.max_attempts then 'failed' else 'pending' end,
    next_attempt_at = case when p.attempt >= p.max_attempts then null
      else ${SQL_NOW} + make_interval(secs => p.delay) end
  from p where w.id = p.id returning w.subscription_id, w.status
), a as (
  update webhook_attempt t set status_code = p.status_code, error = p.error, duration_ms = p.duration_ms
  from p where t.delivery_id = p.id and t.attempt = p.attempt
)
update webhook_subscription s set consecutive_failures = s.consecutive_failures + 1,
  disabled_at = case when (d.status = 'failed' and s.consecutive_failures + 1 >= p.max_attempts)
      or p.disable_reason is not null
    then coalesce(s.disabled_at, ${SQL_NOW}) else s.disabled_at end,
  disabled_reason = case when s.disabled_at is not null then s.disabled_reason
    when p.disable_reason is not null then p.disable_reason
    when d.status = 'failed' and s.consecutive_failures + 1 >= p.max_attempts
      then 'event ' || (select event_id from webhook_delivery where id = p.id)
      || ' failed ' || p.attempt || ' attempts (last: ' || coalesce(p.status_code::text, p.error) || ')'
    else s.disabled_reason end
from d, p where s.id = d.subscription_id`;

/**
 * Delivers webhooks from the durable queue in PostgreSQL (Standard Webhooks): each delivery is a
 * POST of `{type, timestamp, data}` signed with the subscription's secret, sent after the claim
 * committed (no lock is held during network I/O). Up to `concurrency` deliveries run at once, at
 * most half of them one subscription's, and a freed slot claims the next due one at once, so a slow
 * receiver (bounded by `timeoutMs`) delays only its own deliveries. Any number of workers, in one
 * process or many, share the queue.
 */
export class WebhookWorker {
  private readonly options: Required<WebhookWorkerOptions>;
  private readonly inFlight = new Set<Promise<void>>();
  /** Deliveries in flight on this worker, by subscription (a subscription takes at most half the slots). */
  private readonly bySubscription = new Map<number, number>();
  private timer: NodeJS.Timeout | undefined;
  private pumping: Promise<void> | undefined;
  private stopped = true;

  constructor(
    private readonly orm: MikroORM,
    options: WebhookWorkerOptions = {},
  ) {
    this.options = {
      pollMs: 1000,
      concurrency: 10,
      timeoutMs: 10_000,
      retryDelaysSeconds: RETRY_DELAYS_SECONDS,
      allowPrivate: allowPrivateTargets(),
      ...options,
    };
  }

  start(): void {
    this.stopped = false;
    this.tick();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.pumping;
    await Promise.all(this.inFlight);
  }

  /** Claims what is due (up to `concurrency`) and delivers it; resolves when those are done. */
  async runOnce(): Promise<number> {
    const claimed = await this.claim(this.options.concurrency);
    await Promise.all(claimed.map((c) => this.deliver(c).finally(() => this.release(c.subscription_id))));
    return claimed.length;
  }

  private tick(): void {
    if (this.stopped) return;
    this.pumping ??= this.pump().finally(() => (this.pumping = undefined));
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.tick(), this.options.pollMs);
    this.timer.unref();
  }

  /** Fills the free slots with due deliveries; each finished delivery frees its slot and pumps again. */
  private async pump(): Promise<void> {
    try {
      while (!this.stopped && this.inFlight.size < this.options.concurrency) {
        const claimed = await this.claim(this.options.concurrency - this.inFlight.size);
        if (!claimed.length) return;
        for (const delivery of claimed) {
          const running: Promise<void> = this.deliver(delivery).finally(() => {
            this.inFlight.delete(running);
            this.release(delivery.subscription_id);
            if (!this.stopped) queueMicrotask(() => this.tick());
          });
          this.inFlight.add(running);
        }
      }
    } catch (error) {
      logger.error({ err: error }, 'webhook claim failed');
    }
  }

  private async claim(limit: number): Promise<Claimed[]> {
    const lease = Math.ceil(this.options.timeoutMs / 1000) + 30;
    const share = Math.max(1, Math.floor(this.options.concurrency / 2));
    const busy = [...this.bySubscription];
    // Bound as arrays (runPrepared): MikroORM's own `execute` would spread an array into a list.
    const params = [busy.map(([id]) => id), busy.map(([, n]) => n), share, limit, lease];
    const claimed = await runPrepared<Claimed>(this.orm.em.fork(), CLAIM_SQL, params);
    for (const { subscription_id: id } of claimed) {
      this.bySubscription.set(id, (this.bySubscription.get(id) ?? 0) + 1);
    }
    return claimed;
  }

  /** A delivery of subscription `id` ended: its slot is the subscription's no more. */
  private release(id: number): void {
    const n = (this.bySubscription.get(id) ?? 1) - 1;
    if (n > 0) this.bySubscription.set(id, n);
    else this.bySubscription.delete(id);
  }

  /**
   * One attempt, start to end. Never rejects: an error in building or sending the request is a
   * failed attempt like any other (retried, then disabling), so no delivery can take the process
   * down, and no delivery that would do it again stays pending to crash the next worker after the lease.
   */
  private async deliver(delivery: Claimed): Promise<void> {
    let result: Outcome;
    try {
      result = await this.attempt(delivery);
    } catch (error) {
      logger.error({ err: error, deliveryId: delivery.id }, 'a webhook attempt threw');
      result = { error: `internal error: ${error instanceof Error ? error.message : String(error)}`, durationMs: 0 };
    }
    try {
      await this.record(delivery, result);
    } catch (error) {
      // The lease runs out and the delivery is retried: at least once, never lost.
      logger.error({ err: error, deliveryId: delivery.id }, 'recording a webhook attempt failed');
    }
  }

  private async attempt(delivery: Claimed): Promise<Outcome> {
    const owner = { tokenId: delivery.owner_token_id, scopes: delivery.owner_scopes };
    const refusal = ownerRefusal(owner, delivery.events);
    if (refusal) return { error: `not sent: ${refusal}`, durationMs: 0, disable: refusal };
    const id = `evt_${delivery.event_id}`;
    const timestamp = Math.floor(Date.now() / 1000);
    const created = new Date(delivery.created_at).toISOString();
    // What the creating token may see of the event, as the timeline and the feed show it to that token.
    const data = eventDataShownTo(delivery, new Set(delivery.owner_scopes ?? []));
    const body = JSON.stringify({ type: delivery.type, timestamp: created, data });
    const headers = {
      'webhook-id': id,
      'webhook-timestamp': String(timestamp),
      'webhook-signature': signWebhook(delivery.secret, id, timestamp, body),
    };
    const { timeoutMs, allowPrivate } = this.options;
    // Traced (only then): the attempt is a span of the request's trace that queued it, and its
    // POST (a child span of instrumentation-http's) carries that trace's `traceparent`.
    const attributes = {
      'webhook.delivery.id': delivery.id,
      'webhook.attempt': delivery.attempts,
      'webhook.event.id': delivery.event_id,
      'webhook.event.type': delivery.type,
    };
    return inSpan(
      `webhook ${delivery.type}`,
      attributes,
      async (span) => {
        const result = await postWebhook(delivery.url, headers, body, { timeoutMs, allowPrivate });
        if (result.status !== undefined) span.setAttribute('http.response.status_code', result.status);
        if (result.status === undefined || result.status < 200 || result.status >= 300)
          span.fail(result.error ?? `HTTP ${result.status}`);
        return result;
      },
      delivery.trace_parent,
    );
  }

  private async record(delivery: Claimed, result: Outcome): Promise<void> {
    const connection = this.orm.em.getConnection();
    if (result.status !== undefined && result.status >= 200 && result.status < 300) {
      await connection.execute(
        SUCCEEDED_SQL,
        [result.status, delivery.id, result.status, result.durationMs, delivery.id, delivery.attempts],
        'run',
      );
      return;
    }
    const delays = this.options.retryDelaysSeconds;
    const error = result.error ?? `HTTP ${result.status}`;
    logger.warn(
      { deliveryId: delivery.id, attempt: delivery.attempts, url: delivery.url, error },
      'webhook delivery failed',
    );
    await connection.execute(
      FAILED_SQL,
      [
        delivery.id,
        delivery.attempts,
        result.status ?? null,
        error.slice(0, 1000),
        result.durationMs,
        delays.length + 1,
        delays[Math.min(delivery.attempts, delays.length) - 1] ?? 0,
        result.disable ?? null,
      ],
      'run',
    );
  }
}
