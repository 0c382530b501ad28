import { Entity, PrimaryKey, Property, Unique } from '@mikro-orm/decorators/legacy';
import { Field, Int, ObjectType } from 'type-graphql';
import { now } from '../clock.js';
import { listFields } from '../schema/list-fields.js';
import { TimestampScalar } from '../schema/scalars/timestamp.scalar.js';
import { TextArrayType } from './text-array.type.js';

/**
 * An API token. Only the SHA-256 of the secret is stored: secrets are 256-bit random, so a fast
 * hash is enough and lets the lookup be an index probe. The hash is no GraphQL field: nothing
 * that could help find the secret ever leaves the database.
 */
@ObjectType({ description: 'An API token as managers see it: never its secret nor the hash of it' })
@Entity()
export class ApiToken {
  @Field(() => Int, { description: 'API token id' })
  @PrimaryKey({ type: 'integer' })
  id!: number;

  @Field({ description: 'Who or what the token is for' })
  @Property({ type: 'text' })
  name!: string;

  @Unique()
  @Property({ type: 'string', columnType: 'char(64)' })
  secretHash!: string;

  @Field(() => [String], { description: 'The scopes the token holds' })
  @Property({ type: TextArrayType })
  scopes: string[] = [];

  @Field(() => TimestampScalar, { description: 'When the token was created' })
  @Property({ type: 'timestamptz', onCreate: () => now() })
  createdAt: Date = now();

  @Field(() => TimestampScalar, {
    nullable: true,
    description: 'Last authenticated request, to the minute (updated at most once a minute)',
  })
  @Property({ type: 'timestamptz', nullable: true })
  lastUsedAt: Date | null = null;

  /** The token's last write request (read-your-writes with replicas, src/db/read-replicas.ts); not shown. */
  @Property({ type: 'timestamptz', nullable: true })
  lastWriteAt: Date | null = null;

  @Field(() => TimestampScalar, {
    nullable: true,
    description: 'Set once revoked; a revoked token is refused at once (401)',
  })
  @Property({ type: 'timestamptz', nullable: true })
  revokedAt: Date | null = null;
}

/** What a list of API tokens sorts by (src/schema/list-fields.ts). */
export const apiTokenList = listFields(ApiToken, {
  id: { sort: true },
  name: { sort: true },
  createdAt: { sort: true },
  lastUsedAt: { sort: true },
});
