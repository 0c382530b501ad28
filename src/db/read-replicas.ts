import { type EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { ormConfig } from '../../mikro-orm.config.js';
import { logger } from '../logger.js';

/** How often the primary's WAL position and each replica's replay position are sampled. */
const POLL_MS = 100;

/** `X/Y` (pg_lsn as text) as a number that compares. */
export function lsnValue(lsn: string): bigint {
  const [high, low] = lsn.split('/');
  return (BigInt(`0x${high}`) << 32n) + BigInt(`0x${low}`);
}

interface Replica {
  name: string;
  host: string;
  orm: MikroORM;
  up: boolean;
  /** Replay position at the last sample (null before the first, or while down). */
  replayed: bigint | null;
  lagMs: number;
}

export interface ReplicaStatus {
  name: string;
  host: string;
  state: 'streaming' | 'lagging' | 'down';
  lagMs: number | null;
}

/** Why a read went to the primary although replicas are configured. */
export type FallbackReason = 'behind_write' | 'unavailable' | 'read_failed' | 'cursor_ahead';

/**
 * The read replicas of `DATABASE_READ_URL` (docs/operations.md#read-replicas). Reads (queries)
 * go to a replica chosen round-robin among those that are up, no further behind than
 * `REPLICA_MAX_LAG_MS`, and, for a caller that wrote recently, past the primary's WAL position at
 * the caller's read (`waitLsn`, from the token statement on the primary; read-your-writes). Where
 * none qualifies the read goes to the primary at once: waiting for a replica would only add
 * latency the primary does not have.
 *
 * Lag is measured in WAL, not in transaction timestamps (an idle primary would make those look
 * old): every 100 ms the primary's `pg_current_wal_lsn()` is sampled, and a replica's lag is the
 * age of the oldest sample it has not replayed yet.
 */
export class ReadReplicas {
  private readonly history: { at: number; lsn: bigint }[] = [];
  private next = 0;
  private timer: NodeJS.Timeout | undefined;
  private polling = false;

  private constructor(
    private readonly primary: MikroORM,
    private readonly replicas: Replica[],
    private readonly maxLagMs: number,
  ) {}

  static async open(
    primary: MikroORM,
    urls: readonly string[],
    options: { poolMax: number; readTimeoutMs: number; maxLagMs: number },
  ): Promise<ReadReplicas> {
    const replicas = await Promise.all(
      urls.map(async (url, i) => {
        const { hostname, port } = new URL(url);
        // No connection is made here: a replica that is down at start is polled like any other.
        const orm = await MikroORM.init(
          ormConfig(url, { pool: { min: 0, max: options.poolMax } }, options.readTimeoutMs),
        );
        return {
          name: `replica-${i + 1}`,
          host: `${hostname}:${port}`,
          orm,
          up: false,
          replayed: null,
          lagMs: Infinity,
        };
      }),
    );
    const set = new ReadReplicas(primary, replicas, options.maxLagMs);
    await set.poll();
    set.timer = setInterval(() => void set.poll(), POLL_MS);
    set.timer.unref();
    return set;
  }

  /**
   * The EntityManager a read runs on: a fresh fork of a qualifying replica's, or why the primary
   * must serve it.
   */
  forRead(waitLsn: string | undefined): { name: string; em: EntityManager } | FallbackReason {
    const wanted = waitLsn ? lsnValue(waitLsn) : null;
    const fresh = this.replicas.filter((r) => r.up && r.lagMs <= this.maxLagMs);
    const usable = wanted === null ? fresh : fresh.filter((r) => r.replayed !== null && r.replayed >= wanted);
    if (usable.length === 0) return fresh.length > 0 ? 'behind_write' : 'unavailable';
    const replica = usable[this.next++ % usable.length];
    return { name: replica.name, em: replica.orm.em.fork() };
  }

  /** A read on `name` failed for want of the server: it is left out until the next sample finds it again. */
  failed(name: string): void {
    const replica = this.replicas.find((r) => r.name === name);
    if (replica) replica.up = false;
  }

  status(): ReplicaStatus[] {
    return this.replicas.map((r) => ({
      name: r.name,
      host: r.host,
      state: !r.up ? 'down' : r.lagMs > this.maxLagMs ? 'lagging' : 'streaming',
      lagMs: r.up && Number.isFinite(r.lagMs) ? r.lagMs : null,
    }));
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await Promise.all(this.replicas.map((r) => r.orm.close()));
  }

  private async poll(): Promise<void> {
    if (this.polling) return; // a slow sample is not stacked with the next one
    this.polling = true;
    try {
      const now = Date.now();
      try {
        const [row] = await this.primary.em
          .getConnection()
          .execute<{ lsn: string }[]>('select pg_current_wal_lsn()::text as lsn');
        this.history.push({ at: now, lsn: lsnValue(row.lsn) });
      } catch {
        // The primary is away: the replicas' lag cannot be told; they keep their last state.
      }
      while (this.history.length > 1 && this.history[0].at < now - this.maxLagMs * 2 - 1000) this.history.shift();
      await Promise.all(this.replicas.map((replica) => this.sample(replica, now)));
    } finally {
      this.polling = false;
    }
  }

  private async sample(replica: Replica, now: number): Promise<void> {
    try {
      const [row] = await replica.orm.em
        .getConnection()
        .execute<{ lsn: string | null }[]>('select pg_last_wal_replay_lsn()::text as lsn');
      if (row.lsn === null) throw new Error('not a streaming replica (pg_last_wal_replay_lsn() is null)');
      const replayed = lsnValue(row.lsn);
      const behind = this.history.find((sample) => sample.lsn > replayed);
      if (!replica.up) logger.info({ replica: replica.host }, 'read replica available');
      replica.up = true;
      replica.replayed = replayed;
      // Not even the oldest sample replayed: how far behind it is cannot be told, so it is too far.
      replica.lagMs = !behind ? 0 : behind === this.history[0] ? Infinity : now - behind.at;
    } catch (error) {
      if (replica.up)
        logger.warn({ replica: replica.host, err: error }, 'read replica unavailable; reads go elsewhere');
      replica.up = false;
      replica.replayed = null;
    }
  }
}
