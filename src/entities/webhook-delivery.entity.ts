import { Entity, Index, PrimaryKey, Property } from '@mikro-orm/decorators/legacy';
import { Field, Int, ObjectType, registerEnumType } from 'type-graphql';
import { now } from '../domain/clock.js';
import { TimestampScalar } from '../schema/scalars/timestamp.scalar.js';

export enum DeliveryStatus {
  PENDING = 'pending',
  DELIVERED = 'delivered',
  FAILED = 'failed',
}
registerEnumType(DeliveryStatus, {
  name: 'WebhookDeliveryStatus',
  valuesConfig: {
    PENDING: { description: 'waiting for its next attempt (see nextAttemptAt)' },
    DELIVERED: { description: 'a 2xx answer was received' },
    FAILED: { description: 'every attempt failed, or the subscription was disabled' },
  },
});

/**
 * One event for one subscription: the durable queue of webhooks. Rows are queued by a trigger on
 * `event` in the change's transaction, claimed by workers with FOR UPDATE SKIP LOCKED (each claim
 * is one numbered attempt), and retried with back-off.
 */
@ObjectType({ description: 'One event sent (or to be sent) to one subscription' })
@Entity()
@Index({ name: 'webhook_delivery_due_index', expression: `create index "webhook_delivery_due_index" on "webhook_delivery" ("next_attempt_at", "id") where "status" = 'pending'` })
@Index({ name: 'webhook_delivery_subscription_index', properties: ['subscriptionId', 'id'] })
export class WebhookDelivery {
  @Field(() => Int)
  @PrimaryKey({ type: 'integer' })
  id!: number;

  @Property({ type: 'integer' })
  subscriptionId!: number;

  @Field(() => Int, { description: 'the event; also the webhook-id (`evt_<id>`) receivers de-duplicate by' })
  @Property({ type: 'integer' })
  eventId!: number;

  @Field()
  @Property({ type: 'text' })
  eventType!: string;

  @Field(() => DeliveryStatus)
  @Property({ type: 'text', default: DeliveryStatus.PENDING })
  status: DeliveryStatus = DeliveryStatus.PENDING;

  @Field(() => Int, { description: 'attempts made so far' })
  @Property({ type: 'integer', default: 0 })
  attempts: number = 0;

  @Field(() => TimestampScalar, { nullable: true, description: 'when the next attempt is due (null once delivered or failed)' })
  @Property({ type: 'timestamptz', nullable: true, defaultRaw: 'now()' })
  nextAttemptAt: Date | null = now();

  @Field(() => Int, { nullable: true, description: "the receiver's HTTP status at the last attempt (null: no answer)" })
  @Property({ type: 'integer', nullable: true })
  lastStatusCode: number | null = null;

  @Field(() => String, { nullable: true })
  @Property({ type: 'text', nullable: true })
  lastError: string | null = null;

  @Field(() => TimestampScalar, { nullable: true })
  @Property({ type: 'timestamptz', nullable: true })
  deliveredAt: Date | null = null;

  @Field(() => TimestampScalar)
  @Property({ type: 'timestamptz', defaultRaw: 'now()' })
  createdAt: Date = now();
}
