import { IsOptional, Max, Min } from 'class-validator';
import type { GraphQLResolveInfo } from 'graphql';
import {
  Args,
  ArgsType,
  Authorized,
  Ctx,
  Field,
  Info,
  Int,
  ObjectType,
  Query,
  Resolver,
  UseMiddleware,
} from 'type-graphql';
import { FEED_SCOPES, readableSubjects } from '../domain/event-read-scopes.js';
import { eventTypeFilter } from '../domain/event-type-patterns.js';
import { StoreEvent } from '../entities/store-event.entity.js';
import { readEventFeed } from '../reads/event-feed.js';
import { selectionOf } from '../reads/selection.js';
import { PAGE_SIZE } from '../schema/page-size.js';
import { ANSWER_BOUND } from '../schema/pagination.js';
import type { GraphQLContext } from './context.js';
import { inputGuard } from './input-guard.middleware.js';

@ObjectType({ description: 'A page of the event feed: the events after a cursor, oldest first, in commit order' })
export class EventFeed {
  @Field(() => [StoreEvent], { description: 'The events after `after`, oldest first' })
  items!: StoreEvent[];

  @Field(() => Int, {
    description:
      'Events after the cursor that the feed shows now (this page included), of the asked types and readable kinds',
  })
  totalCount!: number;

  @Field(() => Int, { description: 'Page size asked for' })
  size!: number;

  @Field(() => Int, {
    nullable: true,
    description: 'The cursor this page was read after (null: from the oldest event kept)',
  })
  after!: number | null;

  @Field(() => Int, {
    nullable: true,
    description:
      'The cursor of the next page: the id of the last event of this one, ' +
      'or `after` again when it is empty (poll it later)',
  })
  next!: number | null;
}

const SIZE_MESSAGE = `size must be an integer from ${PAGE_SIZE.min} to ${PAGE_SIZE.max}`;

@ArgsType()
export class EventFeedArgs {
  @Field(() => Int, {
    nullable: true,
    description: 'Id of the last event already read; omit to read from the oldest event kept',
  })
  @Min(0, { message: 'after must be an event id (an integer ≥ 0)' })
  after?: number | null;

  // `size: Int` as docs/decisions.md#event-feed names it: null, like leaving it out, is the default.
  @Field(() => Int, {
    nullable: true,
    defaultValue: PAGE_SIZE.default,
    description:
      `Events per page at most, ${PAGE_SIZE.min}..${PAGE_SIZE.max} (null: ${PAGE_SIZE.default}); a page ends ` +
      `early where its events' JSON reaches the answer bound (${ANSWER_BOUND}): follow \`next\``,
  })
  @IsOptional()
  @Min(PAGE_SIZE.min, { message: SIZE_MESSAGE })
  @Max(PAGE_SIZE.max, { message: SIZE_MESSAGE })
  size?: number | null = PAGE_SIZE.default;

  @Field(() => [String], {
    nullable: true,
    description: 'Only these event types; `kind.*` (e.g. `order.*`) names every type of a kind',
  })
  types?: string[] | null;
}

const EVENTS_DESCRIPTION =
  'Every event of the store after a cursor, oldest first, in commit order, gap-free: follow `next`. ' +
  'Shows the events of the records the token may read (orders with their fulfilments, shipments and restocks: ' +
  'read_orders; products: read_products; customers: read_customers; collections: read_collections; ' +
  "stock adjustments: read_inventory), and the token's own bulk operations (bulk_operation.finished)";

/**
 * The store's event feed (docs/decisions.md#event-feed): every event of the records the token may
 * read, in commit order, gap-free across instances (src/reads/event-feed.ts says how).
 */
@Resolver(() => EventFeed)
@UseMiddleware(inputGuard)
export class EventFeedResolver {
  @Authorized(...FEED_SCOPES)
  @Query(() => EventFeed, { description: EVENTS_DESCRIPTION })
  events(
    @Args(() => EventFeedArgs) args: EventFeedArgs,
    @Ctx() { em, principal }: GraphQLContext,
    @Info() info: GraphQLResolveInfo,
  ) {
    const types = eventTypeFilter(args.types ?? undefined);
    const subjects = readableSubjects(principal.scopes);
    const readerTokenId = principal.tokenId;
    return readEventFeed(em, selectionOf(info), {
      after: args.after,
      size: args.size ?? PAGE_SIZE.default,
      subjects,
      readerTokenId,
      types,
    });
  }
}
