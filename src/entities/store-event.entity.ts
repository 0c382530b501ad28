import { Entity, Index, PrimaryKey, Property } from '@mikro-orm/decorators/legacy';
import { GraphQLJSONObject } from 'graphql-scalars';
import { Extensions, Field, Int, ObjectType } from 'type-graphql';
import { now } from '../clock.js';
import { listFields } from '../schema/list-fields.js';
import { TimestampScalar } from '../schema/scalars/timestamp.scalar.js';

/**
 * Who changed what, and when (docs/decisions.md#order-timeline): one row per change, written in the
 * change's own transaction, so a change that rolls back leaves no event and a committed one always
 * has its event. Webhook deliveries are queued from these rows by a trigger (migration
 * events_and_webhooks), in the same transaction again. No foreign keys: the history outlives what
 * it speaks of (a deleted product, fulfilment or token keeps its events).
 */
@ObjectType('Event', { description: 'A change to the store: what changed, when, and through which token' })
// The GraphQL type's entity, for the reads PostgreSQL writes (src/graphql/entity-name.ts).
@Extensions({ entity: 'StoreEvent' })
@Entity({ tableName: 'event' })
// Partial, as its migration wrote it: only order events are read by order.
@Index({
  name: 'event_order_id_id_index',
  expression: 'create index "event_order_id_id_index" on "event" ("order_id", "id") where "order_id" is not null',
})
@Index({ name: 'event_subject_index', properties: ['subject', 'subjectId', 'id'] })
@Index({ name: 'event_feed_index', properties: ['xid', 'id'] })
export class StoreEvent {
  @Field(() => Int, {
    description: 'Increasing with the order of commits within one record; the de-duplication key of webhook deliveries',
  })
  @PrimaryKey({ type: 'integer' })
  id!: number;

  @Field({ description: 'What happened, e.g. `fulfilment.created`, `order.address_changed`, `product.updated`' })
  @Property({ type: 'text' })
  type!: string;

  @Field(() => TimestampScalar, { description: 'When the change was committed' })
  @Property({ type: 'timestamptz', onCreate: () => now() })
  createdAt: Date = now();

  /** The API token that made the change (null for the service itself); GraphQL shows it as `actor`. */
  @Property({ type: 'integer', nullable: true })
  actorTokenId: number | null = null;

  /** That token's name at the time of the change. */
  @Property({ type: 'text', nullable: true })
  actorName: string | null = null;

  /**
   * `order`, `product`, `customer` or `collection`: the record the change belongs to; `inventory`
   * for a stock adjustment, whose subject id is its first movement's; `bulk_operation`.
   */
  @Field({
    description:
      'The kind of record changed: order, product, customer or collection; inventory for a stock adjustment ' +
      '(subjectId: its first movement); bulk_operation for a bulk operation ended',
  })
  @Property({ type: 'text' })
  subject!: string;

  @Field(() => Int, { description: 'Id of the record changed (of the kind in subject)' })
  @Property({ type: 'integer' })
  subjectId!: number;

  /** Set for every change under an order (the order's own, its fulfilments, shipments, restocks). */
  @Field(() => Int, {
    nullable: true,
    description:
      'The order the change belongs to (its own, or of its fulfilments, shipments, restocks); null for other records',
  })
  @Property({ type: 'integer', nullable: true })
  orderId: number | null = null;

  /**
   * The writing transaction (`pg_current_xact_id()`, set by the column default): the feed's order is
   * (xid, id), and an event shows in it only once every older transaction has ended
   * (src/reads/event-feed.ts). Never written or read by the service otherwise.
   */
  @Property({ columnType: 'xid8', type: 'string', defaultRaw: 'pg_current_xact_id()', lazy: true, hidden: true })
  xid?: string;

  @Field(() => GraphQLJSONObject, {
    description:
      'The changed record (or the fields changed) in its REST shape: snake_case keys, Unix seconds. ' +
      "An order event shows the customer's contact details (e-mail, address, the customer's names) " +
      'only to a token with read_customers',
  })
  @Property({ type: 'jsonb' })
  data!: Record<string, unknown>;
}

/** What a list of an order's events sorts by (src/schema/list-fields.ts). */
export const eventList = listFields(StoreEvent, {
  id: { sort: true },
  type: { sort: true },
  createdAt: { sort: true },
});
