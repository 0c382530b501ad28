import { Entity, Index, PrimaryKey, Property } from '@mikro-orm/decorators/legacy';
import { Field, Int, ObjectType, registerEnumType } from 'type-graphql';
import { now } from '../clock.js';
import { listFields } from '../schema/list-fields.js';
import { TimestampScalar } from '../schema/scalars/timestamp.scalar.js';

export enum DeliveryStatus {
  PENDING = 'pending',
  DELIVERED = 'delivered',
  FAILED = 'failed',
}
registerEnumType(DeliveryStatus, {
  name: 'WebhookDeliveryStatus',
  description: 'State of a webhook delivery',
  valuesConfig: {
    PENDING: { description: 'Waiting for its next attempt (see nextAttemptAt)' },
    DELIVERED: { description: 'A 2xx answer was received' },
    FAILED: { description: 'Every attempt failed, or its event was purged (EVENT_RETENTION_DAYS) before it was sent' },
  },
});

/**
 * One event for one subscription: the durable queue of webhooks. Rows are queued by a trigger on
 * `event` in the change's transaction, claimed by workers with FOR UPDATE SKIP LOCKED (each claim
 * is one numbered attempt), and retried with back-off.
 */
@ObjectType({ description: 'One event sent (or to be sent) to one subscription' })
@Entity()
@Index({
  name: 'webhook_delivery_due_index',
  expression:
    `create index "webhook_delivery_due_index" on "webhook_delivery" ` +
    `("next_attempt_at", "id") where "status" = 'pending'`,
})
@Index({ name: 'webhook_delivery_subscription_index', properties: ['subscriptionId', 'id'] })
export class WebhookDelivery {
  @Field(() => Int, { description: 'Webhook delivery id' })
  @PrimaryKey({ type: 'integer' })
  id!: number;

  @Property({ type: 'integer' })
  subscriptionId!: number;

  @Field(() => Int, { description: 'The event; also the webhook-id (`evt_<id>`) receivers de-duplicate by' })
  @Property({ type: 'integer' })
  eventId!: number;

  @Field({ description: 'Type of the event delivered, e.g. `fulfilment.created`' })
  @Property({ type: 'text' })
  eventType!: string;

  @Field(() => DeliveryStatus, { description: 'Where the delivery stands: pending, delivered or failed' })
  @Property({ type: 'text', default: DeliveryStatus.PENDING })
  status: DeliveryStatus = DeliveryStatus.PENDING;

  @Field(() => Int, { description: 'Attempts made so far' })
  @Property({ type: 'integer', default: 0 })
  attempts: number = 0;

  @Field(() => TimestampScalar, {
    nullable: true,
    description: 'When the next attempt is due (null once delivered or failed)',
  })
  @Property({ type: 'timestamptz', nullable: true })
  nextAttemptAt: Date | null = now();

  @Field(() => Int, { nullable: true, description: "The receiver's HTTP status at the last attempt (null: no answer)" })
  @Property({ type: 'integer', nullable: true })
  lastStatusCode: number | null = null;

  @Field(() => String, {
    nullable: true,
    description: 'Why the last attempt failed; null when it succeeded or none was made',
  })
  @Property({ type: 'text', nullable: true })
  lastError: string | null = null;

  @Field(() => TimestampScalar, { nullable: true, description: 'When a 2xx answer was received; null until delivered' })
  @Property({ type: 'timestamptz', nullable: true })
  deliveredAt: Date | null = null;

  @Field(() => TimestampScalar, { description: 'When the delivery was queued' })
  @Property({ type: 'timestamptz' })
  createdAt: Date = now();

  /**
   * The W3C `traceparent` of the request whose change queued it, when that request was traced
   * (docs/operations.md#traces): its attempts are spans of that trace. Set by the queueing trigger
   * from the transaction's `store.traceparent` setting.
   */
  @Property({ type: 'text', nullable: true })
  traceParent: string | null = null;
}

/** What a list of webhook deliveries sorts by (src/schema/list-fields.ts). */
export const webhookDeliveryList = listFields(WebhookDelivery, {
  id: { sort: true },
  createdAt: { sort: true },
  nextAttemptAt: { sort: true },
});
