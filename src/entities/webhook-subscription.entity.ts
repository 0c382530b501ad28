import { Entity, PrimaryKey, Property } from '@mikro-orm/decorators/legacy';
import { Field, Int, ObjectType } from 'type-graphql';
import { now } from '../clock.js';
import { listFields } from '../schema/list-fields.js';
import { TimestampScalar } from '../schema/scalars/timestamp.scalar.js';
import { TextArrayType } from './text-array.type.js';

/**
 * An endpoint that receives the store's events (docs/decisions.md#webhooks). The signing secret is
 * kept as given to the receiver (`whsec_…`): signing needs the key itself, so it cannot be hashed;
 * it is no GraphQL field and is shown once, by `createWebhookSubscription`.
 */
@ObjectType({ description: 'An endpoint that receives signed events (Standard Webhooks)' })
@Entity()
export class WebhookSubscription {
  @Field(() => Int, { description: 'Webhook subscription id' })
  @PrimaryKey({ type: 'integer' })
  id!: number;

  @Field({
    description: 'An http(s) URL; loopback and private networks are refused unless WEBHOOK_ALLOW_PRIVATE_TARGETS=true',
  })
  @Property({ type: 'text' })
  url!: string;

  @Field(() => [String], { description: 'The event types delivered, e.g. fulfilment.created' })
  @Property({ type: TextArrayType })
  events: string[] = [];

  @Property({ type: 'text' })
  secret!: string;

  @Field(() => TimestampScalar, { description: 'When the subscription was created' })
  @Property({ type: 'timestamptz', onCreate: () => now() })
  createdAt: Date = now();

  @Field(() => Int, { nullable: true, description: 'The token that created it' })
  @Property({ type: 'integer', nullable: true })
  createdByTokenId: number | null = null;

  @Field(() => Int, { description: 'Failed attempts since the last successful delivery' })
  @Property({ type: 'integer', default: 0 })
  consecutiveFailures: number = 0;

  @Field(() => TimestampScalar, {
    nullable: true,
    description: 'Set when deliveries were stopped after repeated failure; nothing is sent while set',
  })
  @Property({ type: 'timestamptz', nullable: true })
  disabledAt: Date | null = null;

  @Field(() => String, { nullable: true, description: 'Why it was disabled' })
  @Property({ type: 'text', nullable: true })
  disabledReason: string | null = null;
}

/** What a list of webhook subscriptions sorts by (src/schema/list-fields.ts). */
export const webhookSubscriptionList = listFields(WebhookSubscription, {
  id: { sort: true },
  createdAt: { sort: true },
});
