// The feed scenario of `npm run bench` (docs/performance.md#the-feed-scenario): the write mix driven
// against one service process while, on a second process of the same store, one reader follows
// `GET /api/v1/events?after=…` as fast as it can and one GraphQL subscriber (graphql-ws) receives
// `Subscription.events`. Every event the run committed must reach both exactly once; the figures are
// the events/s the reader followed beside those committed, and the delay from each event's commit
// (PostgreSQL's commit timestamp, `track_commit_timestamp`) to its arrival at each of them.
import os from 'node:os';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { createClient } from 'graphql-ws';
import pg from 'pg';
import WebSocket from 'ws';
import type { DriveLoad } from './report.js';

export interface LagMs {
  p50: number;
  p99: number;
  max: number;
}

/** bench/results/feed-orders-N.json (bench/run.ts adds the command, date, machine and store). */
export interface FeedResult {
  /** The write mix's own drive (against the writing process). */
  writes: DriveLoad;
  /** Seconds of the measured drive. */
  seconds: number;
  /** Events committed from the measured drive's start (those of its last answers in flight included). */
  committed: number;
  /** Events committed between the drive's start and end (their commit timestamps), per second. */
  committedPerSecond: number;
  /** The reader: the measured events ÷ the time from the drive's start to its last one's arrival. */
  followedPerSecond: number;
  /** How long after the drive ended the reader had the last measured event (0: it was never behind). */
  readerCatchUpMs: number;
  /** Feed pages the reader fetched during the measured drive (empty ones included: it polls at once). */
  readerPages: number;
  readerLagMs: LagMs;
  subscriberLagMs: LagMs;
  /** Every event since the scenario began (warm-up included) received by each, once: the run fails otherwise. */
  checkedEvents: number;
  /** The 99th percentile of the bench process's own event-loop delay while measuring: a floor under every lag. */
  benchLoopDelayP99Ms: number;
  /** The machine's 1, 5 and 15 minute load averages when the scenario started (the cores are shared). */
  loadAverage: number[];
}

export interface FeedHarness {
  /** The process the write mix is driven against, and the other one the reader and subscriber follow. */
  writerUrl: string;
  followerUrl: string;
  databaseUrl: string;
  token: string;
  warmup: number;
  duration: number;
  log(line: string): void;
  /** Drives the write mix against `url`; throws (so nothing is reported) when any answer was not a 2xx. */
  driveWrites(what: string, url: string, seconds: number): Promise<DriveLoad>;
  /** The error that fails the run without figures. */
  failure(message: string): Error;
}

/** The wall clock in ms with sub-ms resolution, comparable with PostgreSQL's commit timestamps (same machine). */
const wallMs = () => performance.timeOrigin + performance.now();
const round2 = (x: number) => Math.round(x * 100) / 100;

/** Received ids with their arrival times, and the ids that came more than once. */
class Arrivals {
  readonly at = new Map<number, number>();
  readonly repeated: number[] = [];
  add(id: number, when: number) {
    if (this.at.has(id)) this.repeated.push(id);
    else this.at.set(id, when);
  }
}

/** Reads the feed from `after` until stopped, the next page as soon as one arrives. */
function followFeed(h: FeedHarness, after: number, arrivals: Arrivals) {
  let running = true;
  let failed: Error | undefined;
  let pages = 0;
  let next = new URL(`/api/v1/events?size=250&after=${after}`, h.followerUrl);
  const done = (async () => {
    while (running) {
      const res = await fetch(next, { headers: { authorization: `Bearer ${h.token}` } });
      const text = await res.text();
      if (res.status !== 200) throw h.failure(`the feed reader got ${res.status} from ${next}: ${text.slice(0, 300)}`);
      const when = wallMs();
      const page = JSON.parse(text) as { items: { id: number }[]; _links: { next: { href: string } } };
      pages++;
      for (const event of page.items) arrivals.add(event.id, when);
      next = new URL(page._links.next.href, h.followerUrl);
    }
  })().catch((error: Error) => {
    failed = error;
  });
  return {
    pages: () => pages,
    check() {
      if (failed) throw failed;
    },
    async stop() {
      running = false;
      await done;
    },
  };
}

/** A graphql-ws client subscribed to `Subscription.events(after)` on the following process. */
function subscribe(h: FeedHarness, after: number, arrivals: Arrivals) {
  let failed: Error | undefined;
  const client = createClient({
    url: `${h.followerUrl.replace(/^http/, 'ws')}/graphql`,
    webSocketImpl: WebSocket,
    connectionParams: { Authorization: `Bearer ${h.token}` },
    retryAttempts: 0,
    lazy: false,
    onNonLazyError: (error) => (failed ??= h.failure(`the subscriber's socket failed: ${String(error)}`)),
  });
  client.subscribe<{ events: { id: number } }>(
    { query: 'subscription ($after: Int) { events(after: $after) { id } }', variables: { after } },
    {
      next: (result) => {
        const when = wallMs();
        if (result.errors || !result.data) {
          failed ??= h.failure(`the subscription answered ${JSON.stringify(result.errors).slice(0, 300)}`);
        } else arrivals.add(result.data.events.id, when);
      },
      error: (error) => (failed ??= h.failure(`the subscription ended with ${JSON.stringify(error).slice(0, 300)}`)),
      complete: () => (failed ??= h.failure('the server completed the subscription')),
    },
  );
  return {
    check() {
      if (failed) throw failed;
    },
    stop: () => client.dispose(),
  };
}

/** Until `ready()` holds (checking `check` between looks), or a failure after `ms`. */
async function until(ready: () => boolean, check: () => void, ms: number, what: string, h: FeedHarness) {
  for (const end = Date.now() + ms; !ready(); await new Promise((r) => setTimeout(r, 5))) {
    check();
    if (Date.now() > end) throw h.failure(`${what} within ${ms / 1000} s`);
  }
  check();
}

function lagOf(arrivals: Arrivals, committedMs: Map<number, number>): LagMs {
  const lags = [...committedMs].map(([id, at]) => arrivals.at.get(id)! - at).sort((a, b) => a - b);
  const at = (q: number) => round2(lags[Math.min(lags.length - 1, Math.floor(q * lags.length))]);
  return { p50: at(0.5), p99: at(0.99), max: round2(lags.at(-1)!) };
}

export async function measureFeed(h: FeedHarness): Promise<FeedResult> {
  const loadAverage = os.loadavg().map(round2);
  const db = new pg.Client({ connectionString: h.databaseUrl });
  await db.connect();
  try {
    const setting = await db.query<{ on: boolean }>("select current_setting('track_commit_timestamp') = 'on' as on");
    if (!setting.rows[0].on) throw new Error('the feed scenario needs track_commit_timestamp = on (bench/run.ts)');
    // The newest event id (no write is running): the reader and the subscriber start after it.
    const newest = async () => Number((await db.query('select coalesce(max(id), 0) as m from event')).rows[0].m);
    const start = await newest();
    const read = new Arrivals();
    const pushed = new Arrivals();
    const reader = followFeed(h, start, read);
    const subscriber = subscribe(h, start, pushed);
    const check = () => {
      reader.check();
      subscriber.check();
      for (const [who, a] of [
        ['reader', read],
        ['subscriber', pushed],
      ] as const) {
        if (a.repeated.length) throw h.failure(`the ${who} received events ${a.repeated.slice(0, 10)} twice`);
      }
    };
    // After event `after` in the feed's order, (xid, id), as the reader and the subscriber resume:
    // not in id order, since a write the drive before left in flight may still commit an event with
    // a lower id than `start` and a later transaction id (which both then receive).
    const AFTER_IN_FEED = '($1 = 0 or (xid, id) > (select xid, id from event where id = $1))';
    const since = async () =>
      (await db.query<{ id: number }>(`select id from event where ${AFTER_IN_FEED}`, [start])).rows.map((r) => r.id);
    /**
     * Every event committed since the start, once the writes have settled: autocannon stops at the
     * drive's end without waiting for the answers in flight, whose transactions may still commit.
     */
    const settled = async () => {
      for (let seen = -1; ; await new Promise((r) => setTimeout(r, 250))) {
        const ids = await since();
        if (ids.length === seen) return ids;
        seen = ids.length;
      }
    };
    /** Both have every committed event, or the run fails. */
    const caughtUp = async (what: string) => {
      const ids = await settled();
      const both = () => ids.every((id) => read.at.has(id) && pushed.at.has(id));
      await until(both, check, 20_000, `${what}: the reader and the subscriber did not both get all ${ids.length}`, h);
      return ids;
    };
    try {
      h.log('  write mix warm-up, the reader and the subscriber following…');
      await h.driveWrites('warm-up', h.writerUrl, h.warmup);
      await caughtUp('after the warm-up');
      const measuredAfter = await newest();
      const loop = monitorEventLoopDelay({ resolution: 1 });
      loop.enable();
      const pagesBefore = reader.pages();
      const started = wallMs();
      const writes = await h.driveWrites('measured', h.writerUrl, h.duration);
      const ended = wallMs();
      loop.disable();
      const readerPages = reader.pages() - pagesBefore;
      await caughtUp('after the drive');
      await reader.stop();
      await subscriber.stop();
      // Exactly what was committed, each once (repeats are checked as they arrive).
      const ids = new Set(await since());
      for (const [who, a] of [
        ['reader', read],
        ['subscriber', pushed],
      ] as const) {
        const extra = [...a.at.keys()].filter((id) => !ids.has(id));
        const missed = [...ids].filter((id) => !a.at.has(id));
        if (extra.length || missed.length) {
          throw h.failure(
            `the ${who} received ${extra.length} events the database lacks (${extra.slice(0, 10)}) and ` +
              `missed ${missed.length} it holds (${missed.slice(0, 10)})`,
          );
        }
      }
      const committed = await db.query<{ id: number; ms: number }>(
        `select id, extract(epoch from pg_xact_commit_timestamp(xid::xid)) * 1000 as ms
          from event where ${AFTER_IN_FEED}`,
        [measuredAfter],
      );
      const committedMs = new Map(committed.rows.map((r) => [r.id, Number(r.ms)]));
      if (!committedMs.size) throw h.failure('the measured drive committed no event');
      const lastRead = Math.max(...[...committedMs.keys()].map((id) => read.at.get(id)!));
      const seconds = (ended - started) / 1000;
      return {
        writes,
        seconds: round2(seconds),
        committed: committedMs.size,
        committedPerSecond: Math.round([...committedMs.values()].filter((at) => at <= ended).length / seconds),
        followedPerSecond: Math.round(committedMs.size / ((lastRead - started) / 1000)),
        readerCatchUpMs: Math.max(0, Math.round(lastRead - ended)),
        readerPages,
        readerLagMs: lagOf(read, committedMs),
        subscriberLagMs: lagOf(pushed, committedMs),
        checkedEvents: ids.size,
        benchLoopDelayP99Ms: round2(loop.percentile(99) / 1e6),
        loadAverage,
      };
    } finally {
      await reader.stop();
      await subscriber.stop();
    }
  } finally {
    await db.end();
  }
}
