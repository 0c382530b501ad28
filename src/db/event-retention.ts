import type { MikroORM } from '@mikro-orm/postgresql';
import { logger } from '../logger.js';
import { PeriodicTask } from '../periodic-task.js';

export interface EventRetentionOptions {
  /** EVENT_RETENTION_DAYS: events older than this many days are deleted. */
  days: number;
  /** Pause between purges. */
  intervalMs?: number;
  /** Events deleted per statement (short transactions; the feed's horizon never waits long on one). */
  batchSize?: number;
}

/**
 * Deletes events past retention (docs/operations.md#event-retention), from the front of the feed's
 * order: everything before the first event (in (xid, id) order) that is younger than the cut-off,
 * and never the newest event: after a quiet spell longer than the retention, a reader whose cursor
 * is the head (the feed's `next`) has missed nothing, and reads on instead of being told (410) to
 * start over.
 * A prefix of the feed, never a hole in it: a reader whose cursor event is still kept continues
 * without loss; one whose cursor is gone gets a 410 and restarts from the oldest event kept.
 * Several processes may purge at once (each batch deletes what is there; repeats are no-ops). A
 * webhook delivery still pending for a purged event fails with it (its log says why): its claim
 * reads the event, and would otherwise find nothing to send, attempt after attempt. Finished
 * deliveries older than the cut-off go too (purgeFinishedDeliveries).
 */
export async function purgeExpiredEvents(
  orm: MikroORM,
  days: number,
  batchSize = 5000,
  at: Date = new Date(),
): Promise<number> {
  const cutoff = new Date(at.getTime() - days * 86_400_000);
  let total = 0;
  for (;;) {
    const rows = await orm.em.getConnection().execute<{ n: number }[]>(
      `with kept as (
          (select xid, id from event where created_at >= ? order by xid, id limit 1)
          union all (select xid, id from event order by xid desc, id desc limit 1)
        ),
        boundary as (select xid, id from kept order by xid, id limit 1),
        doomed as (
          select e.id from event e where (e.xid, e.id) < (select xid, id from boundary)
          order by e.xid, e.id limit ?
        ),
        deleted as (delete from event where id in (select id from doomed) returning 1),
        -- A webhook delivery of a purged event can no longer be sent: failed, not claimed forever.
        undeliverable as (
          update webhook_delivery set status = 'failed', next_attempt_at = null,
            last_error = 'the event was purged (EVENT_RETENTION_DAYS) before it was delivered'
          where event_id in (select id from doomed) and status = 'pending'
        )
      select count(*)::int as n from deleted`,
      [cutoff, batchSize],
    );
    total += rows[0].n;
    if (rows[0].n < batchSize) break;
  }
  await purgeFinishedDeliveries(orm, cutoff, batchSize);
  return total;
}

/**
 * The webhook delivery log is kept as long as the events: a delivery delivered or failed before the
 * cut-off goes, its attempts with it (by cascade). Pending ones stay (a disabled subscription's, or
 * a receiver's still retried); one whose event was purged failed with it above, and goes in the next
 * purge. In id order, which is the order they were made, so each batch reads from the front.
 */
async function purgeFinishedDeliveries(orm: MikroORM, cutoff: Date, batchSize: number): Promise<void> {
  for (;;) {
    const [{ n }] = await orm.em.getConnection().execute<{ n: number }[]>(
      `with doomed as (
          select id from webhook_delivery where status <> 'pending' and created_at < ? order by id limit ?
        ), gone as (delete from webhook_delivery where id in (select id from doomed) returning 1)
      select count(*)::int as n from gone`,
      [cutoff, batchSize],
    );
    if (n < batchSize) return;
  }
}

/** Runs the purge on start and then every `intervalMs` (hourly by default) until stopped. */
export class EventRetention extends PeriodicTask {
  constructor(orm: MikroORM, options: EventRetentionOptions) {
    const intervalMs = options.intervalMs ?? 3_600_000;
    super(
      'event purge',
      async () => {
        const deleted = await purgeExpiredEvents(orm, options.days, options.batchSize);
        if (deleted) logger.info({ deleted, retentionDays: options.days }, 'purged events past retention');
        return intervalMs;
      },
      intervalMs,
    );
  }
}
