import type { MikroORM } from '@mikro-orm/postgresql';
import type { ShipmentMail } from '../domain/shipment-mail.js';
import { logger } from '../logger.js';
import { PeriodicTask } from '../periodic-task.js';
import type { Mailer } from './mailer.js';
import { shipmentMail } from './shipment-mail-text.js';

export interface OutboxWorkerOptions {
  /** Pause between polls when the outbox is empty. */
  pollMs?: number;
  /** Messages claimed per round. */
  batchSize?: number;
  /**
   * How long a claim holds a message before another worker may retry it (a crashed worker). It
   * must be longer than one message's send can take (the mailer's timeouts, src/notifications/mailer.ts).
   */
  leaseSeconds?: number;
  /** Attempts before a message is left alone (its last_error says why). */
  maxAttempts?: number;
}

interface Claimed {
  id: number;
  kind: string;
  payload: ShipmentMail;
  attempts: number;
}

/**
 * Delivers outbox messages. A round claims due messages in one statement: `FOR UPDATE SKIP LOCKED`
 * picks rows no other worker is claiming, and the claim pushes `next_attempt_at` past a lease, so
 * several workers (in one process or many) never take the same message. The mail is sent after the
 * claim committed (no lock held across network I/O), then the row is marked sent; a failure
 * schedules a retry with exponential back-off.
 */
export class OutboxWorker {
  private readonly options: Required<OutboxWorkerOptions>;
  private readonly task: PeriodicTask;

  constructor(
    private readonly orm: MikroORM,
    private readonly mailer: Mailer,
    options: OutboxWorkerOptions = {},
  ) {
    this.options = { pollMs: 1000, batchSize: 20, leaseSeconds: 60, maxAttempts: 8, ...options };
    // A full batch may have left more behind: the next round starts at once.
    const round = async () => ((await this.runOnce()) >= this.options.batchSize ? 0 : this.options.pollMs);
    this.task = new PeriodicTask('outbox round', round, this.options.pollMs);
  }

  start(): void {
    this.task.start();
  }

  stop(): Promise<void> {
    return this.task.stop();
  }

  /** One round: claim, send, record. Returns how many messages were delivered. */
  async runOnce(): Promise<number> {
    const claimed = await this.claim();
    let sent = 0;
    for (const message of claimed) {
      // The claim's lease ran from the round's start: each message gets a full one before it is
      // sent, unless another worker has taken it over meanwhile (its lease lapsed while earlier
      // messages of this round were sent), which then sends it.
      const lease = [this.options.leaseSeconds];
      if (!(await this.holding(message, 'next_attempt_at = now() + make_interval(secs => ?)', lease))) continue;
      try {
        await this.deliver(message);
        await this.holding(message, 'sent_at = now(), last_error = null', []);
        sent++;
      } catch (error) {
        const delay = Math.min(3600, 2 ** message.attempts * 5);
        logger.warn(
          { err: error, outboxId: message.id, attempt: message.attempts },
          'outbox delivery failed; will retry',
        );
        await this.holding(message, 'last_error = ?, next_attempt_at = now() + make_interval(secs => ?)', [
          String(error).slice(0, 1000),
          delay,
        ]);
      }
    }
    return sent;
  }

  /**
   * Sets `assignments` on the message while this worker still holds it: no other worker claimed it
   * since (each claim counts an attempt). False when one did.
   */
  private async holding(message: Claimed, assignments: string, params: unknown[]): Promise<boolean> {
    const rows = await this.orm.em
      .getConnection()
      .execute<{ id: number }[]>(
        `update outbox_message set ${assignments} where id = ? and attempts = ? and sent_at is null returning id`,
        [...params, message.id, message.attempts],
      );
    return rows.length > 0;
  }

  private async claim(): Promise<Claimed[]> {
    return this.orm.em.getConnection().execute<Claimed[]>(
      `update outbox_message m set attempts = m.attempts + 1, next_attempt_at = now() + make_interval(secs => ?)
       where m.id in (
         select id from outbox_message
         where sent_at is null and next_attempt_at <= now() and attempts < ?
         order by id limit ? for update skip locked)
       returning m.id, m.kind, m.payload, m.attempts`,
      [this.options.leaseSeconds, this.options.maxAttempts, this.options.batchSize],
    );
  }

  private async deliver(message: Claimed): Promise<void> {
    if (message.kind !== 'shipment_mail') throw new Error(`no delivery for outbox kind ${message.kind}`);
    await this.mailer.send(shipmentMail(message.payload, message.id));
  }
}
