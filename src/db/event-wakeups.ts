import pg from 'pg';
import { logger } from '../logger.js';

/** The channel the `event_notify` trigger notifies when events commit (migration event_notify). */
const CHANNEL = 'store_events';

/**
 * One LISTEN connection per process, shared by every subscription of the process: a notification
 * (sent by PostgreSQL when a transaction that wrote events commits, on any instance) wakes them
 * all, and each reads the feed after its own cursor. Notifications are only a wake-up: one that is
 * lost (a reconnect) costs latency, not events, since the subscriptions also poll.
 */
export class EventWakeups {
  private client: pg.Client | undefined;
  private readonly waiting = new Set<() => void>();
  private closed = false;
  private retry: NodeJS.Timeout | undefined;

  /**
   * `connectionString`: the service's database; DATABASE_LISTEN_URL (src/config.ts), when set, is
   * where the LISTEN connection goes instead (a pooler in transaction mode cannot carry LISTEN).
   */
  constructor(
    private readonly connectionString: string,
    private readonly listenUrl = process.env.DATABASE_LISTEN_URL || undefined,
  ) {}

  async start(): Promise<void> {
    const client = new pg.Client({ connectionString: this.listenUrl ?? this.connectionString });
    client.on('notification', () => this.wakeAll());
    client.on('error', (error) => this.reconnectLater(error));
    await client.connect();
    await client.query(`listen ${CHANNEL}`);
    this.client = client;
    this.wakeAll(); // whatever committed while no connection listened
  }

  /** Resolves at the next notification, after `ms` at the latest, or at once when `signal` aborts. */
  wait(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.waiting.delete(done);
        signal?.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.waiting.add(done);
      if (signal?.aborted) done();
      else signal?.addEventListener('abort', done, { once: true });
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retry);
    this.wakeAll();
    await this.client?.end().catch(() => undefined);
  }

  private wakeAll(): void {
    for (const wake of [...this.waiting]) wake();
  }

  /**
   * Reconnects a second after the connection was lost (or a reconnect failed). The loss is logged
   * then, not when it happens, and only if the service is not stopping by then: Ctrl-C reaches the
   * embedded PostgreSQL too (one process group), which ends this connection (57P01) a moment before
   * the service's own stop closes it, and a clean stop is quiet.
   */
  private reconnectLater(lostWith?: Error): void {
    const lost = this.client;
    this.client = undefined;
    lost?.end().catch(() => undefined);
    if (this.closed) return;
    clearTimeout(this.retry);
    this.retry = setTimeout(() => {
      if (this.closed) return;
      if (lostWith) {
        const { code, message } = lostWith as Error & { code?: string };
        logger.warn({ code, reason: message }, 'event listener connection lost; reconnecting');
      }
      this.start().catch(() => this.reconnectLater());
    }, 1000);
  }
}
