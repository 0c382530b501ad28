import type { EntityManager } from '@mikro-orm/postgresql';
import { GoneError, ValidationError } from '../domain/errors.js';
import type { EventTypeFilter } from '../domain/event-type-patterns.js';
import { runPrepared } from '../db/prepared-statements.js';
import { rowSql, type Row } from './read-query.js';
import { below, type SelectionTree } from './selection.js';

/**
 * The gap-free event feed (docs/integrations.md#the-event-feed). An event id comes from a
 * sequence when the event is inserted, not when its transaction commits, so id order is not commit
 * order: a reader that saw 12 would never see an 11 committing later. Instead each event keeps the
 * id of the transaction that wrote it (`xid`, column default `pg_current_xact_id()`), and the feed
 *
 * - shows only events whose transaction is older than the oldest transaction still running in the
 *   cluster (`pg_snapshot_xmin(pg_current_snapshot())`): every such transaction has ended, so the
 *   set of those events is final — nothing can ever be added below that horizon;
 * - orders them by (xid, id) and resumes after the cursor event's (xid, id).
 *
 * A reader therefore sees a growing prefix of one fixed order: each committed event exactly once,
 * none skipped, whatever instance wrote it. The events of one transaction come together, in the
 * order they were recorded. The price is latency: an event waits until every transaction that
 * began writing before it has ended (milliseconds for this service's short transactions).
 */
const HORIZON = 'pg_snapshot_xmin(pg_current_snapshot())';

/** The feed's conditions; `?` bound in this order: cursor xid, cursor id, subjects, unfiltered, types, kinds. */
const WHERE = `(r0.xid, r0.id) > (?::xid8, ?::int) and r0.xid < ${HORIZON} and r0.subject = any(?::text[])
  and (?::boolean or r0.type = any(?::text[]) or split_part(r0.type, '.', 1) = any(?::text[]))`;

export interface FeedArgs {
  /** The id of the last event the reader has; none reads from the oldest kept event. */
  after?: number | null;
  size: number;
  /** The subjects (record kinds) the reader may see. */
  subjects: string[];
  types?: EventTypeFilter;
}

export interface FeedPage {
  items: Row[];
  /** Events after the cursor visible now (this page's included), when the selection asks for it. */
  totalCount: number;
  size: number;
  after: number | null;
  /** The cursor of the next page: the last event of this one, or `after` again when it is empty. */
  next: number | null;
}

interface Cursor {
  xid: string;
  id: number;
}

const START: Cursor = { xid: '0', id: 0 };

/**
 * The feed position of event `after`. A cursor naming no event that was ever issued at or below the
 * newest id is gone (purged past retention, or never committed): a 410 naming the oldest event the
 * feed still has. An id above every event is a mistake of the caller's.
 */
async function cursorOf(em: EntityManager, after: number | null | undefined): Promise<Cursor> {
  if (!after) return START;
  const [row] = await runPrepared<{ xid: string | null; oldest: number | null; newest: number | null }>(
    em,
    `select (select xid::text from event where id = ?) as xid,
      (select id from event r0 where r0.xid < ${HORIZON} order by r0.xid, r0.id limit 1) as oldest,
      (select max(id) from event) as newest`,
    [after],
  );
  if (row.xid !== null) return { xid: row.xid, id: after };
  if (row.newest !== null && after > row.newest) {
    const message = `no event has the id ${after} (the newest is ${row.newest})`;
    throw new ValidationError([{ field: 'after', message }]);
  }
  const restart = row.oldest === null ? 'the feed has no event now' : `the oldest event kept is ${row.oldest}`;
  throw new GoneError(
    `Event ${after} is no longer kept (events are kept for a retention period): ${restart}; ` +
      'read from the start of the feed (no after) to continue',
  );
}

/** One page of the feed, as plain rows with what `items` selects, in one statement after the cursor's. */
export async function readEventFeed(em: EntityManager, selection: SelectionTree, args: FeedArgs): Promise<FeedPage> {
  const cursor = await cursorOf(em, args.after);
  const where = [cursor.xid, cursor.id, args.subjects, !args.types, args.types?.types ?? [], args.types?.kinds ?? []];
  const counted = selection.has('totalCount');
  const [row] = await runPrepared<{ items: Row[]; last: number | null; total: string | null }>(
    em,
    `select coalesce(json_agg(p.r order by p.xid, p.id), '[]'::json) as items,
      (array_agg(p.id order by p.xid desc, p.id desc))[1] as last,
      ${counted ? `(select count(*) from event r0 where ${WHERE})` : 'null'} as total
    from (
      select ${rowSql(em, 'StoreEvent', below(selection, 'items'))}, r0.xid, r0.id
      from event r0 where ${WHERE} order by r0.xid, r0.id limit ?
    ) p`,
    [...(counted ? where : []), ...where, args.size],
  );
  const after = args.after || null;
  const totalCount = row.total === null ? Number.NaN : Number(row.total);
  return { items: row.items, totalCount, size: args.size, after, next: row.last ?? after };
}

/** The id of the newest event the feed shows now (in its order), where a subscription without `after` starts. */
export async function feedHead(em: EntityManager, subjects: string[]): Promise<number | null> {
  const [row] = await runPrepared<{ id: number | null }>(
    em,
    `select (select id from event r0 where r0.xid < ${HORIZON} and r0.subject = any(?::text[])
      order by r0.xid desc, r0.id desc limit 1) as id`,
    [subjects],
  );
  return row.id;
}
