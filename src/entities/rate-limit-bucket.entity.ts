import type { Rel } from '@mikro-orm/core';
import { Entity, OneToOne, Property } from '@mikro-orm/decorators/legacy';
import { ApiToken } from './api-token.entity.js';

/**
 * One API token's request bucket (docs/decisions.md#rate-limits), shared by every server process. Written
 * only by the single atomic statement in src/auth/rate-limit.ts; never loaded through the ORM.
 * `tokens` is the level after the last charge at `refilledAt` (fractional: refill is continuous),
 * `granted` whether that last charge was allowed.
 */
@Entity()
export class RateLimitBucket {
  @OneToOne({ entity: () => ApiToken, primary: true, deleteRule: 'cascade' })
  token!: Rel<ApiToken>;

  @Property({ type: 'double' })
  tokens!: number;

  @Property({ type: 'boolean' })
  granted!: boolean;

  @Property({ type: 'timestamptz' })
  refilledAt!: Date;
}
