import type { GraphQLResolveInfo } from 'graphql';
import {
  Arg,
  Args,
  ArgsType,
  Authorized,
  Ctx,
  Field,
  FieldResolver,
  Info,
  Int,
  Mutation,
  ObjectType,
  Query,
  Resolver,
  Root,
  UseMiddleware,
} from 'type-graphql';
import { EVENT_TYPES } from '../domain/events.js';
import { inTransaction } from '../domain/transaction.js';
import { WebhookAttempt } from '../entities/webhook-attempt.entity.js';
import { DeliveryStatus, WebhookDelivery, webhookDeliveryList } from '../entities/webhook-delivery.entity.js';
import { WebhookSubscription, webhookSubscriptionList } from '../entities/webhook-subscription.entity.js';
import { Computed } from '../reads/field-reads.js';
import { readPage } from '../reads/read-query.js';
import type { ReadRow } from '../reads/read-row.js';
import { selectionOf } from '../reads/selection.js';
import { PageArgs, PageOf } from '../schema/pagination.js';
import {
  createWebhookSubscription,
  deleteWebhookSubscription,
  enableWebhookSubscription,
} from '../webhooks/subscriptions.js';
import type { GraphQLContext } from './context.js';
import { inputGuard } from './input-guard.middleware.js';

@ObjectType({ description: 'A page of webhook subscriptions' })
export class WebhookSubscriptionPage extends PageOf(WebhookSubscription) {}

@ObjectType({ description: 'A page of webhook deliveries' })
export class WebhookDeliveryPage extends PageOf(WebhookDelivery) {}

@ArgsType()
export class WebhookSubscriptionListArgs extends PageArgs {
  @Field(() => [webhookSubscriptionList.SortInput], {
    nullable: true,
    description: 'Sort terms, applied in order; id always breaks ties (default id descending)',
  })
  sort?: InstanceType<typeof webhookSubscriptionList.SortInput>[];
}

@ArgsType()
export class WebhookDeliveryListArgs extends PageArgs {
  @Field(() => DeliveryStatus, { nullable: true, description: 'Only deliveries in this state' })
  status?: DeliveryStatus;

  @Field(() => [webhookDeliveryList.SortInput], {
    nullable: true,
    description: 'Sort terms, applied in order; id always breaks ties (default id descending)',
  })
  sort?: InstanceType<typeof webhookDeliveryList.SortInput>[];
}

@ObjectType({ description: 'A new subscription and its signing secret, shown in this answer only' })
export class CreatedWebhookSubscription {
  @Field(() => WebhookSubscription, { description: 'The subscription created' })
  subscription!: WebhookSubscription;

  @Field({ description: 'The Standard Webhooks signing secret (`whsec_…`): verify `webhook-signature` with it' })
  secret!: string;
}

/** Webhook subscriptions and their delivery logs (docs/decisions.md#webhooks), under `manage_webhooks`. */
@Resolver(() => WebhookSubscription)
@UseMiddleware(inputGuard)
export class WebhookResolver {
  @Authorized('manage_webhooks')
  @Query(() => WebhookSubscriptionPage, {
    description: 'Webhook subscriptions, disabled ones included (see disabledAt)',
  })
  webhookSubscriptions(
    @Args(() => WebhookSubscriptionListArgs) args: WebhookSubscriptionListArgs,
    @Ctx() { em }: GraphQLContext,
    @Info() info: GraphQLResolveInfo,
  ) {
    return readPage(em, 'WebhookSubscription', selectionOf(info), {}, args, webhookSubscriptionList.columns);
  }

  @Authorized('manage_webhooks')
  @Mutation(() => CreatedWebhookSubscription, {
    description:
      `Subscribes an http(s) URL to event types (${EVENT_TYPES.join(', ')}). Each event is POSTed as` +
      ' {type, timestamp, data} with Standard Webhooks headers (webhook-id, webhook-timestamp, webhook-signature),' +
      ' retried with back-off until a 2xx.' +
      " Needs the read scope of each event type's records (read_orders for order, fulfilment, shipment and" +
      ' restock; read_products; read_customers; read_collections): FORBIDDEN otherwise. Deliveries stop, and' +
      ' the subscription is disabled, once the creating token is revoked or loses one of those scopes.',
  })
  createWebhookSubscription(
    @Arg('url', () => String, { description: 'The http(s) URL events are POSTed to' }) url: string,
    @Arg('events', () => [String], { description: 'The event types to deliver, e.g. fulfilment.created' })
    events: string[],
    @Ctx() { em, principal }: GraphQLContext,
  ): Promise<CreatedWebhookSubscription> {
    // Its own transaction, opened once the URL is checked (the lookup holds no connection).
    return createWebhookSubscription(em, principal, url, events);
  }

  @Authorized('manage_webhooks')
  @Mutation(() => WebhookSubscription, {
    description:
      'Re-enables a subscription disabled after repeated failure; failed deliveries and events made while it' +
      ' was disabled are not sent. CONFLICT while its creating token is revoked or lacks a read scope of its events',
  })
  enableWebhookSubscription(
    @Arg('id', () => Int, { description: 'Id of the webhook subscription to re-enable' }) id: number,
    @Ctx() { em }: GraphQLContext,
  ) {
    return inTransaction(em, (tx) => enableWebhookSubscription(tx, id));
  }

  @Authorized('manage_webhooks')
  @Mutation(() => Int, { description: 'Deletes a subscription with its pending deliveries and log; answers its id' })
  deleteWebhookSubscription(
    @Arg('id', () => Int, { description: 'Id of the webhook subscription to delete' }) id: number,
    @Ctx() { em }: GraphQLContext,
  ) {
    return inTransaction(em, (tx) => deleteWebhookSubscription(tx, id));
  }
}

@Resolver(() => WebhookSubscription)
export class WebhookSubscriptionFieldsResolver {
  @Authorized('manage_webhooks')
  @FieldResolver(() => WebhookDeliveryPage, {
    description:
      'The delivery log: each event sent or to be sent, its attempts, status codes and next ' +
      'retry (default newest first)',
  })
  deliveries(
    @Root() subscription: ReadRow<WebhookSubscription>,
    @Args(() => WebhookDeliveryListArgs) args: WebhookDeliveryListArgs,
    @Ctx() { em }: GraphQLContext,
    @Info() info: GraphQLResolveInfo,
  ) {
    const where = { subscriptionId: subscription.id, ...(args.status ? { status: args.status } : {}) };
    return readPage(em, 'WebhookDelivery', selectionOf(info), where, args, webhookDeliveryList.columns);
  }
}

type WithAttempts = ReadRow<WebhookDelivery, { attemptLog: ReadRow<WebhookAttempt>[] }>;

@Resolver(() => WebhookDelivery)
export class WebhookDeliveryFieldsResolver {
  @Computed({
    kind: 'many',
    entity: () => WebhookAttempt,
    where: (a, d) => `${a}.delivery_id = ${d}.id`,
    orderBy: (a) => `${a}.attempt`,
  })
  @FieldResolver(() => [WebhookAttempt], { description: 'Every attempt, first to last' })
  attemptLog(@Root() delivery: WithAttempts): ReadRow<WebhookAttempt>[] {
    return delivery.attemptLog;
  }
}
