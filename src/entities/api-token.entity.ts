import { Entity, PrimaryKey, Property, Unique } from '@mikro-orm/decorators/legacy';
import { now } from '../domain/clock.js';
import { TextArrayType } from './text-array.type.js';

/**
 * An API token. Only the SHA-256 of the secret is stored: secrets are 256-bit random, so a fast
 * hash is enough and lets the lookup be an index probe.
 */
@Entity()
export class ApiToken {
  @PrimaryKey({ type: 'integer' })
  id!: number;

  @Property({ type: 'text' })
  name!: string;

  @Unique()
  @Property({ type: 'string', columnType: 'char(64)' })
  secretHash!: string;

  @Property({ type: TextArrayType })
  scopes: string[] = [];

  @Property({ type: 'timestamptz', onCreate: () => now() })
  createdAt: Date = now();

  @Property({ type: 'timestamptz', nullable: true })
  revokedAt: Date | null = null;
}
