import { Entity, Index, PrimaryKey, Property, Unique } from '@mikro-orm/decorators/legacy';
import { now } from '../clock.js';

/**
 * The first answer to a write sent with an `Idempotency-Key`, per token, method and path: a retry
 * with the same key and body gets it again instead of doing the work twice. `status` is null while
 * the first request is still running (under a lease, `lockedUntil`). Kept 24 h.
 */
@Entity()
@Unique({ properties: ['tokenId', 'key', 'method', 'path'] })
@Index({ properties: ['createdAt'] })
export class IdempotencyKey {
  @PrimaryKey({ type: 'integer' })
  id!: number;

  @Property({ type: 'integer' })
  tokenId!: number;

  @Property({ type: 'text' })
  key!: string;

  @Property({ type: 'text' })
  method!: string;

  @Property({ type: 'text' })
  path!: string;

  @Property({ type: 'string', columnType: 'char(64)' })
  bodyHash!: string;

  @Property({ type: 'integer', nullable: true })
  status: number | null = null;

  /** The answer as sent, as `json` text (jsonb would reorder its keys). */
  @Property({ type: 'json', columnType: 'json', nullable: true })
  response: Record<string, unknown> | null = null;

  /** While the first request runs: its holder's lease, renewed while it is alive; taken over once expired. */
  @Property({ type: 'timestamptz', nullable: true })
  lockedUntil: Date | null = null;

  /**
   * Who holds the lease: a claim's own random id, set when it is won or taken over. Renewing,
   * storing the answer and releasing are fenced by it, so a holder whose lease lapsed (and was
   * taken over) can no longer keep an answer or free the key: its write rolls back.
   */
  @Property({ type: 'uuid', nullable: true })
  holder: string | null = null;

  @Property({ type: 'timestamptz', onCreate: () => now() })
  createdAt: Date = now();
}
