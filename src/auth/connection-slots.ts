import { randomUUID } from 'node:crypto';
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { runPrepared } from '../db/prepared-statements.js';
import { logger } from '../logger.js';

/**
 * Admissions of one token serialise on this advisory lock (two-key form: the first key names the
 * purpose, so it shares no key with the one-key locks elsewhere), not on the `api_token` row,
 * which every request of the token touches.
 */
const LOCK_TOKEN = `select pg_advisory_xact_lock(hashtext('subscription_connection'), ?::int)`;

/** A token's rows that still count: their process renewed them within its bound. */
const LIVE = `subscription_connection where token_id = ?::int and expires_at > now()`;

/**
 * The token's rows of processes that stopped renewing them (crashed, killed, cut off) go in the
 * same statement (the count below never saw them anyway).
 */
const PURGE_EXPIRED = `with purged as (
  delete from subscription_connection where token_id = ?::int and expires_at <= now())`;

const OPEN = `${PURGE_EXPIRED}
insert into subscription_connection (id, token_id, instance, expires_at)
  select ?::uuid, ?::int, ?, now() + make_interval(secs => ?::float8)
  where (select count(*) from ${LIVE}) < ?::int
  returning id`;

/**
 * One more subscription on a live connection. Its own row is never purged here, and made again
 * when it is gone: heartbeats that failed for a while (a failover, a busy pool) let it expire, and
 * a purge then deleted it, after which every later subscribe of the socket was refused as over
 * the limit, for as long as the socket lived.
 */
const SUBSCRIBE = `with purged as (
  delete from subscription_connection where token_id = ?::int and expires_at <= now() and id <> ?::uuid)
insert into subscription_connection (id, token_id, instance, expires_at, subscriptions)
  select ?::uuid, ?::int, ?, now() + make_interval(secs => ?::float8), ?::int + 1
  where (select coalesce(sum(subscriptions), 0) from subscription_connection
    where token_id = ?::int and (expires_at > now() or id = ?::uuid)) < ?::int
on conflict (id) do update set subscriptions = subscription_connection.subscriptions + 1,
  expires_at = excluded.expires_at
returning subscriptions`;

const UNSUBSCRIBE = `update subscription_connection set subscriptions = greatest(subscriptions - 1, 0)
  where id = ?::uuid`;

const CLOSE = `delete from subscription_connection where id = ?::uuid`;

/** One statement per process and beat, whatever the number of its connections. */
const HEARTBEAT = `update subscription_connection set expires_at = now() + make_interval(secs => ?::float8)
  where id = any(?::uuid[])`;

/** How many beats a row outlives its last one: a beat delayed by a busy process does not drop it. */
const BEATS_TO_EXPIRY = 3;

/**
 * The per-token connection and subscription limits of GraphQL subscriptions, counted in
 * PostgreSQL so they hold across every instance and worker on one database
 * (docs/decisions.md#instances). Each open WebSocket connection is a row of
 * `subscription_connection` holding its token and running subscriptions. An admission locks the
 * token (advisory lock, in a transaction), drops the token's expired rows and adds or counts up
 * only while the live rows stay under the limit, so two instances admitting at once cannot both
 * take the last place. Rows live while their process renews them: one statement per process every
 * `heartbeatMs` pushes `expires_at` to 3 beats ahead, so a killed process's places come free
 * within that bound. A closed connection deletes its row at once.
 */
export class ConnectionSlots {
  private readonly instance = randomUUID();
  private readonly open = new Set<string>();
  private timer?: NodeJS.Timeout;
  private beating?: Promise<void>;
  /** Statements under way: stop() waits for them, so none runs on a closed database. */
  private readonly pending = new Set<Promise<unknown>>();

  constructor(
    private readonly orm: MikroORM,
    private readonly heartbeatMs: number,
  ) {}

  start(): void {
    this.timer = setInterval(() => {
      this.beating ??= this.beat().finally(() => (this.beating = undefined));
    }, this.heartbeatMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await Promise.allSettled([this.beating, ...this.pending]);
  }

  private track<T>(work: Promise<T>): Promise<T> {
    this.pending.add(work);
    return work.finally(() => this.pending.delete(work));
  }

  private get ttlSeconds(): number {
    return (BEATS_TO_EXPIRY * this.heartbeatMs) / 1000;
  }

  private async beat(): Promise<void> {
    if (this.open.size === 0) return;
    await runPrepared(this.orm.em.fork(), HEARTBEAT, [this.ttlSeconds, [...this.open]]).catch((error: unknown) =>
      logger.warn({ err: error }, 'subscription connection heartbeat failed'),
    );
  }

  /** Serialised with every other admission of the token, on any instance. */
  private admit<T>(tokenId: number, sql: string, params: readonly unknown[]): Promise<T[]> {
    return this.track(
      this.orm.em.fork().transactional(async (tx: EntityManager) => {
        await runPrepared(tx, LOCK_TOKEN, [tokenId]);
        return runPrepared<T>(tx, sql, [tokenId, ...params]);
      }),
    );
  }

  /**
   * A new connection's place under the token's `limit`: its id, or none when the token already
   * holds `limit` live connections. The caller gives it back with `close`.
   */
  async openConnection(tokenId: number, limit: number): Promise<string | undefined> {
    const id = randomUUID();
    this.open.add(id);
    const rows = await this.admit(tokenId, OPEN, [id, tokenId, this.instance, this.ttlSeconds, tokenId, limit]).catch(
      (error: unknown) => {
        this.open.delete(id);
        throw error;
      },
    );
    if (rows.length > 0) return id;
    this.open.delete(id);
    return undefined;
  }

  /**
   * One more running subscription on the connection (`running`: those it runs already), unless the
   * token runs `limit` already. A connection closed meanwhile takes none (its row is not made again).
   */
  async subscribe(connection: string, tokenId: number, limit: number, running: number): Promise<boolean> {
    if (!this.open.has(connection)) return false;
    const params = [connection, connection, tokenId, this.instance, this.ttlSeconds, running];
    const rows = await this.admit(tokenId, SUBSCRIBE, [...params, tokenId, connection, limit]);
    // Closed while the statement ran: its row (made again, perhaps) goes with it.
    if (!this.open.has(connection)) await this.close(connection);
    return rows.length > 0;
  }

  async unsubscribe(connection: string): Promise<void> {
    await this.track(runPrepared(this.orm.em.fork(), UNSUBSCRIBE, [connection]));
  }

  /** Gives the connection's place and its subscriptions back (no effect when it holds none). */
  async close(connection: string): Promise<void> {
    this.open.delete(connection);
    await this.track(runPrepared(this.orm.em.fork(), CLOSE, [connection]));
  }
}
