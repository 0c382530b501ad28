import { Entity, Index, PrimaryKey, Property } from '@mikro-orm/decorators/legacy';
import { now } from '../clock.js';

/**
 * A notification written in the same transaction as the change it announces, and delivered
 * later by the outbox worker (claimed with FOR UPDATE SKIP LOCKED, retried with back-off).
 */
@Entity()
@Index({
  name: 'outbox_message_pending_idx',
  expression:
    'create index "outbox_message_pending_idx" on "outbox_message" ("next_attempt_at") where "sent_at" is null',
})
export class OutboxMessage {
  @PrimaryKey({ type: 'integer' })
  id!: number;

  @Property({ type: 'text' })
  kind!: string;

  @Property({ type: 'jsonb' })
  payload!: Record<string, unknown>;

  @Property({ type: 'integer', default: 0 })
  attempts: number = 0;

  @Property({ type: 'timestamptz', defaultRaw: 'now()' })
  nextAttemptAt: Date = now();

  @Property({ type: 'timestamptz', nullable: true })
  sentAt: Date | null = null;

  @Property({ type: 'text', nullable: true })
  lastError: string | null = null;

  @Property({ type: 'timestamptz', onCreate: () => now() })
  createdAt: Date = now();
}
