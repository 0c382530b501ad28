import type { Rel } from '@mikro-orm/core';
import { Entity, ManyToOne, PrimaryKey, Property } from '@mikro-orm/decorators/legacy';
import { ApiToken } from './api-token.entity.js';

/**
 * One open GraphQL-subscription WebSocket connection of some instance (docs/decisions.md#instances):
 * the token's per-token limits are counted over these rows. Written only by the statements in
 * src/auth/connection-slots.ts; never loaded through the ORM. A row counts while `expiresAt` is
 * ahead, which its instance's heartbeat keeps pushing forward. The table is unlogged (its migration).
 */
@Entity()
export class SubscriptionConnection {
  @PrimaryKey({ type: 'uuid' })
  id!: string;

  @ManyToOne({ entity: () => ApiToken, deleteRule: 'cascade' })
  token!: Rel<ApiToken>;

  /** The process holding the socket (a random id per process start). */
  @Property({ type: 'text' })
  instance!: string;

  @Property({ type: 'integer', default: 0 })
  subscriptions!: number;

  @Property({ type: 'timestamptz', defaultRaw: 'now()' })
  openedAt!: Date;

  @Property({ type: 'timestamptz' })
  expiresAt!: Date;
}
