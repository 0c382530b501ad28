import type { GraphQLResolveInfo } from 'graphql';
import { Args, ArgsType, Authorized, Field, Int, Resolver, Root, Subscription, UseMiddleware } from 'type-graphql';
import { ValidationError } from '../domain/errors.js';
import { FEED_SCOPES, readableSubjects } from '../domain/event-read-scopes.js';
import { eventTypeFilter } from '../domain/event-type-patterns.js';
import { StoreEvent } from '../entities/store-event.entity.js';
import { feedHead, readEventFeed } from '../reads/event-feed.js';
import type { Row } from '../reads/read-query.js';
import type { ReadRow } from '../reads/read-row.js';
import { type SelectionTree, selectionOf } from '../reads/selection.js';
import type { GraphQLContext } from './context.js';
import { inputGuard } from './input-guard.middleware.js';

@ArgsType()
export class EventSubscriptionArgs {
  @Field(() => [String], { nullable: true, description: 'Only these event types; `kind.*` names every type of a kind' })
  types?: string[] | null;

  @Field(() => Int, {
    nullable: true,
    description:
      'Resume after this event id (the last one received): every later event is pushed, none missed; ' +
      'omit to receive only events committed from now on',
  })
  after?: number | null;
}

/**
 * Events read per round at most: a subscriber behind by more catches up over several rounds. A
 * round is also at most ROUND_BYTES of their JSON (src/reads/answer-bytes.ts; the answer's bound if
 * that is smaller), however large the events are: each running subscription holds its round until
 * its client has taken it, and a token may run many. A round is no answer, so a short one costs
 * only a statement: the next follows at once. With rounds of the answer's 4 MiB, 5 subscribers
 * replaying 396 KB events into sockets that never read took a process with `npm start`'s flags
 * past 256 MB resident in 3 of 10 runs (test/page-bytes-crash.test.ts, docs/operations.md#answer-size).
 */
const ROUND = 100;
const ROUND_BYTES = 1024 * 1024;
/** The longest a subscription sleeps without a notification (a held-back event, a lost NOTIFY). */
const POLL_MS = 1000;

/**
 * The feed as a stream: read after the cursor, push each event, sleep until a notification (or
 * the poll), repeat. The feed is the source of truth, so resuming with `after` misses nothing and
 * a notification only says "look again". Each event is pushed only when the client took the
 * previous one (graphql-ws waits for the socket), so a slow client holds one round, not a queue.
 * The arguments are checked before the stream starts, so a refusal is the subscription's error.
 */
async function followFeed(context: GraphQLContext, args: EventSubscriptionArgs, info: GraphQLResolveInfo) {
  const { em, principal, feedWakeups } = context;
  if (!feedWakeups) {
    throw new ValidationError([{ field: 'events', message: 'subscriptions run over WebSocket at /graphql' }]);
  }
  if (args.after != null && args.after < 0) {
    throw new ValidationError([{ field: 'after', message: 'after must be an event id (an integer ≥ 0)' }]);
  }
  const types = eventTypeFilter(args.types ?? undefined);
  const subjects = readableSubjects(principal.scopes);
  const selection: SelectionTree = new Map([['items', selectionOf(info)]]);
  const readerTokenId = principal.tokenId;
  // Rows a round asks for: ROUND, or one more than the last round kept when it ended at its bound
  // (PostgreSQL builds every row asked for, to measure it), doubling back towards ROUND after that.
  let size = ROUND;
  const read = async (after: number | null) => {
    const round = await readEventFeed(em, selection, {
      after,
      size,
      maxBytes: ROUND_BYTES,
      subjects,
      readerTokenId,
      types,
    });
    size = round.cut ? round.items.length + 1 : Math.min(ROUND, size * 2);
    return round;
  };
  // The first round runs here: an expired `after` is a GONE refusal, not a broken stream.
  const first = await read(args.after ?? (await feedHead(em, subjects, readerTokenId)));
  // A hand-written iterator, not a generator: a generator's return() waits for its pending await
  // (the sleep), while this one ends at once when the client completes or the socket closes.
  const stop = new AbortController();
  let page = first;
  let index = 0;
  const iterator: AsyncIterableIterator<Row> = {
    async next() {
      while (!stop.signal.aborted) {
        if (index < page.items.length) return { value: page.items[index++], done: false };
        // A round that is full, or cut short by its bound of bytes, has more at once.
        if (page.items.length < page.size && !page.cut) await feedWakeups.wait(POLL_MS, stop.signal);
        if (stop.signal.aborted) break;
        page = await read(page.next);
        index = 0;
      }
      return { value: undefined, done: true };
    },
    async return() {
      stop.abort();
      return { value: undefined, done: true };
    },
    [Symbol.asyncIterator]() {
      return iterator;
    },
  };
  return iterator;
}

/** `Subscription.events` (docs/decisions.md#event-feed): the feed pushed as events commit, on any instance. */
@Resolver(() => StoreEvent)
@UseMiddleware(inputGuard)
export class EventSubscriptionResolver {
  @Authorized(...FEED_SCOPES)
  @Subscription(() => StoreEvent, {
    description:
      'Every event of the records the token may read, pushed as it commits on any instance, in the ' +
      "feed's order (gap-free); `after` resumes without loss. Over WebSocket (graphql-transport-ws) at /graphql",
    subscribe: ({ args, context, info }) => followFeed(context as GraphQLContext, args as EventSubscriptionArgs, info),
  })
  events(
    @Root() event: ReadRow<StoreEvent>,
    @Args(() => EventSubscriptionArgs) _args: EventSubscriptionArgs,
  ): ReadRow<StoreEvent> {
    return event;
  }
}
