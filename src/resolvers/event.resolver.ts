import type { GraphQLResolveInfo } from 'graphql';
import { GraphQLJSONObject } from 'graphql-scalars';
import {
  Args,
  ArgsType,
  Authorized,
  Ctx,
  Field,
  FieldResolver,
  Info,
  Int,
  ObjectType,
  Query,
  Resolver,
  Root,
  UseMiddleware,
} from 'type-graphql';
import { NotFoundError } from '../domain/errors.js';
import { eventDataShownTo } from '../domain/event-visibility.js';
import { Order } from '../entities/order.entity.js';
import { eventList, StoreEvent } from '../entities/store-event.entity.js';
import { Computed, Projects, Reads } from '../reads/field-reads.js';
import { type Projection, projectRow } from '../reads/projection.js';
import { readPage } from '../reads/read-query.js';
import type { ReadRow } from '../reads/read-row.js';
import { selectionOf } from '../reads/selection.js';
import { PageArgs, PageOf } from '../schema/pagination.js';
import type { GraphQLContext } from './context.js';
import { inputGuard } from './input-guard.middleware.js';

@ObjectType({ description: 'A page of events' })
export class EventPage extends PageOf(StoreEvent) {}

@ObjectType({ description: 'Who made a change: the API token, by id and by its name at the time' })
export class EventActor {
  @Field(() => Int, { description: 'Id of the API token' })
  tokenId!: number;

  @Field({ description: 'Name of the API token when the change was made' })
  name!: string;
}

/** Who made a change, from the actor columns an event or a stock movement keeps; null for the service. */
export const ACTOR = {
  fields: { tokenId: 'actorTokenId', name: ['actorName', { constant: '' }] },
  when: 'actorTokenId',
} satisfies Projection;

@ArgsType()
export class OrderEventListArgs extends PageArgs {
  @Field(() => Int, { description: 'Order id' }) orderId!: number;

  @Field(() => [eventList.SortInput], {
    nullable: true,
    description:
      'Sort terms, applied in order; default newest first (id descending), as every list; sort ' +
      'by id ascending to read the timeline in order',
  })
  sort?: InstanceType<typeof eventList.SortInput>[];
}

/** The order timeline (docs/decisions.md#order-timeline): events of one order, paged like every list. */
@Resolver(() => StoreEvent)
@UseMiddleware(inputGuard)
export class EventResolver {
  @Authorized('read_orders')
  @Query(() => EventPage, {
    nullable: true,
    description: 'The timeline of one order: every change to it, with who made it',
  })
  async orderEvents(
    @Args(() => OrderEventListArgs) args: OrderEventListArgs,
    @Ctx() { em }: GraphQLContext,
    @Info() info: GraphQLResolveInfo,
  ) {
    if (!(await em.count(Order, { id: args.orderId }))) throw new NotFoundError('Order', args.orderId);
    return readPage(em, 'StoreEvent', selectionOf(info), { orderId: args.orderId }, args, eventList.columns);
  }
}

@Resolver(() => StoreEvent)
export class EventFieldsResolver {
  // Declared (and described) on the entity; resolved here so every reader of events sees what its scopes allow.
  @Reads('subject', 'data')
  @FieldResolver(() => GraphQLJSONObject)
  data(@Root() event: ReadRow<StoreEvent>, @Ctx() { principal }: GraphQLContext): Record<string, unknown> {
    return eventDataShownTo(event, principal.scopes);
  }

  @Projects(ACTOR)
  @FieldResolver(() => EventActor, {
    nullable: true,
    description: 'The token that made the change; null for the service itself',
  })
  actor(@Root() event: ReadRow<StoreEvent>): EventActor | null {
    return projectRow(event, ACTOR);
  }
}

/**
 * `Order.events`: the whole timeline of an order, oldest first, aggregated into the order's
 * statement (events keep the order's id, not a reference to it: they outlive the order).
 */
@Resolver(() => Order)
export class OrderEventsFieldResolver {
  @Authorized('read_orders')
  @Computed({
    kind: 'many',
    entity: () => StoreEvent,
    where: (e, o) => `${e}.order_id = ${o}.id`,
    orderBy: (e) => `${e}.id`,
  })
  @FieldResolver(() => [StoreEvent], {
    description: 'Every change to this order, oldest first (GET /orders/{id}/events pages them)',
  })
  events(@Root() order: ReadRow<Order, { events: ReadRow<StoreEvent>[] }>): ReadRow<StoreEvent>[] {
    return order.events;
  }
}
