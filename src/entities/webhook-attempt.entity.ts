import { Entity, PrimaryKey, Property, Unique } from '@mikro-orm/decorators/legacy';
import { Field, Int, ObjectType } from 'type-graphql';
import { now } from '../clock.js';
import { TimestampScalar } from '../schema/scalars/timestamp.scalar.js';

/** The log of one attempt; (delivery, attempt) is unique, so no attempt is ever made twice. */
@ObjectType({ description: 'One attempt to deliver a webhook' })
@Entity()
@Unique({ properties: ['deliveryId', 'attempt'] })
export class WebhookAttempt {
  @PrimaryKey({ type: 'integer' })
  id!: number;

  @Property({ type: 'integer' })
  deliveryId!: number;

  @Field(() => Int, { description: '1 for the first attempt' })
  @Property({ type: 'integer' })
  attempt!: number;

  @Field(() => TimestampScalar, { description: 'When the attempt was made' })
  @Property({ type: 'timestamptz' })
  attemptedAt: Date = now();

  @Field(() => Int, {
    nullable: true,
    description: 'HTTP status answered; null when there was no answer (timeout, refused)',
  })
  @Property({ type: 'integer', nullable: true })
  statusCode: number | null = null;

  @Field(() => String, {
    nullable: true,
    description: 'Why the attempt failed (timeout, refused, non-2xx answer); null when it succeeded',
  })
  @Property({ type: 'text', nullable: true })
  error: string | null = null;

  @Field(() => Int, { description: 'How long the attempt took, in milliseconds' })
  @Property({ type: 'integer' })
  durationMs!: number;
}
