import type { EntityManager } from '@mikro-orm/postgresql';
import { runPrepared } from '../db/prepared-statements.js';
import { expiredCursor, unknownCursor } from '../domain/event-cursor.js';
import { OWN_SUBJECTS } from '../domain/event-read-scopes.js';
import type { EventTypeFilter } from '../domain/event-type-patterns.js';
import { StoreEvent } from '../entities/store-event.entity.js';
import { KEPT, measuredRows, pageBound } from './answer-bytes.js';
import { columnOf, tableOf } from './read-plan.js';
import { type Row, rowSql } from './read-query.js';
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

/** The event's properties the feed's own SQL names; their columns come from the entity's metadata. */
const FEED_PROPERTIES = { id: true, xid: true, subject: true, type: true, actorTokenId: true } satisfies Partial<
  Record<keyof StoreEvent, true>
>;
type FeedSql = Record<keyof typeof FEED_PROPERTIES, string> & { table: string; where: string };

const feedSqlByMetadata = new WeakMap<object, FeedSql>();

/**
 * The event table and columns on alias `r0`, and the feed's conditions; `?` bound in this order:
 * cursor xid, cursor id, then `shownTo` (subjects, own subjects, reader), unfiltered, types, kinds.
 */
function feedSql(em: EntityManager): FeedSql {
  const metadata = em.getMetadata();
  let sql = feedSqlByMetadata.get(metadata);
  if (!sql) {
    const meta = metadata.getByClassName(StoreEvent.name);
    const c = Object.fromEntries(
      Object.keys(FEED_PROPERTIES).map((property) => [property, columnOf(meta, property, 'r0')]),
    ) as Record<keyof typeof FEED_PROPERTIES, string>;
    const where = `(${c.xid}, ${c.id}) > (?::xid8, ?::int) and ${c.xid} < ${HORIZON} and ${shownTo(c)}
  and (?::boolean or ${c.type} = any(?::text[]) or split_part(${c.type}, '.', 1) = any(?::text[]))`;
    feedSqlByMetadata.set(metadata, (sql = { ...c, table: tableOf(meta), where }));
  }
  return sql;
}

/**
 * The events a reader sees: of the kinds its scopes read, and of the kinds only their actor sees
 * (OWN_SUBJECTS: its bulk operations') its own; `?` bound as `shownParams`.
 */
const shownTo = (c: Record<keyof typeof FEED_PROPERTIES, string>) =>
  `(${c.subject} = any(?::text[]) or (${c.subject} = any(?::text[]) and ${c.actorTokenId} = ?::int))`;
const shownParams = (subjects: string[], readerTokenId: number | undefined) => [
  subjects,
  OWN_SUBJECTS,
  readerTokenId ?? 0,
];

export interface FeedArgs {
  /** The id of the last event the reader has; none reads from the oldest kept event. */
  after?: number | null;
  size: number;
  /** The subjects (record kinds) the reader may see. */
  subjects: string[];
  /** The reader's token: it also sees its own events of the OWN_SUBJECTS kinds. */
  readerTokenId?: number;
  types?: EventTypeFilter;
  /** Bytes of JSON the page holds at most, when less than the answer's bound (a subscription's round). */
  maxBytes?: number;
}

export interface FeedPage {
  items: Row[];
  /** Events after the cursor visible now (this page's included), when the selection asks for it. */
  totalCount: number;
  size: number;
  after: number | null;
  /** The cursor of the next page: the last event of this one, or `after` again when it is empty. */
  next: number | null;
  /** The page ended early at the answer's bound: more events follow `next` now. */
  cut: boolean;
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
  const f = feedSql(em);
  const [row] = await runPrepared<{ at: string | null; oldest: number | null; newest: number | null }>(
    em,
    `select (select ${f.xid}::text from ${f.table} r0 where ${f.id} = ?) as at,
      (select ${f.id} from ${f.table} r0 where ${f.xid} < ${HORIZON} order by ${f.xid}, ${f.id} limit 1) as oldest,
      (select max(${f.id}) from ${f.table} r0) as newest`,
    [after],
  );
  if (row.at !== null) return { xid: row.at, id: after };
  if (row.newest !== null && after > row.newest) throw unknownCursor(after, row.newest);
  throw expiredCursor(after, row.oldest);
}

/**
 * One page of the feed, as plain rows with what `items` selects, in one statement after the cursor's.
 * The page ends early at the answer's bound (src/reads/answer-bytes.ts): it keeps its events while
 * their JSON is within it (the first one always), and `next` is the last one kept.
 */
export async function readEventFeed(em: EntityManager, selection: SelectionTree, args: FeedArgs): Promise<FeedPage> {
  const cursor = await cursorOf(em, args.after);
  const where = [
    cursor.xid,
    cursor.id,
    ...shownParams(args.subjects, args.readerTokenId),
    !args.types,
    args.types?.types ?? [],
    args.types?.kinds ?? [],
  ];
  const counted = selection.has('totalCount');
  const f = feedSql(em);
  const bound = Math.min(args.maxBytes ?? Number.POSITIVE_INFINITY, pageBound(em));
  const rows = `select ${rowSql(em, StoreEvent.name, below(selection, 'items'))}, ${f.xid} as pos, ${f.id} as k
      from ${f.table} r0 where ${f.where} order by ${f.xid}, ${f.id} limit ?`;
  const [row] = await runPrepared<{
    items: string;
    count: number;
    last: number | null;
    cut: boolean;
    counted: string | null;
    scanned: number | null;
  }>(
    em,
    `select coalesce('[' || string_agg(b.r, ',' order by b.pos, b.k) ${KEPT} || ']', '[]') as items,
      count(*) ${KEPT}::int as count,
      (array_agg(b.k order by b.pos desc, b.k desc) ${KEPT})[1] as last,
      coalesce(bool_or(not b.kept), false) as cut,
      ${counted ? `(select count(*) from ${f.table} r0 where ${f.where})` : 'null'} as counted,
      (select ${f.id} from ${f.table} r0 where (${f.xid}, ${f.id}) > (?::xid8, ?::int) and ${f.xid} < ${HORIZON}
        order by ${f.xid} desc, ${f.id} desc limit 1) as scanned
    from (${measuredRows(rows, 'q.r', 'm.pos, m.k', bound)}) b`,
    [...(counted ? where : []), cursor.xid, cursor.id, ...where, args.size],
  );
  const after = args.after || null;
  const totalCount = row.counted === null ? Number.NaN : Number(row.counted);
  const items = JSON.parse(row.items) as Row[];
  // A page that reached the horizon (not full, not cut) saw every event up to it, the reader's and
  // the others: the cursor moves past the last of them, so a reader whose events are rare keeps a
  // cursor near the head of the feed, never one that retention purges under it (a 410).
  const reachedHorizon = row.count < args.size && !row.cut;
  const next = (reachedHorizon ? row.scanned : null) ?? row.last ?? after;
  return { items, totalCount, size: args.size, after, next, cut: row.cut };
}

/** The id of the newest event the feed shows now (in its order), where a subscription without `after` starts. */
export async function feedHead(em: EntityManager, subjects: string[], readerTokenId?: number): Promise<number | null> {
  const f = feedSql(em);
  const [row] = await runPrepared<{ head: number | null }>(
    em,
    `select (select ${f.id} from ${f.table} r0 where ${f.xid} < ${HORIZON} and ${shownTo(f)}
      order by ${f.xid} desc, ${f.id} desc limit 1) as head`,
    shownParams(subjects, readerTokenId),
  );
  return row.head;
}
