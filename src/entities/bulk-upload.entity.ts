import { Entity, Index, PrimaryKey, Property } from '@mikro-orm/decorators/legacy';
import { now } from '../clock.js';

/**
 * An uploaded NDJSON file (docs/decisions.md#bulk-writes): REST requests (`rest`), or GraphQL
 * variables objects (`graphql`) that `bulkOperationRunMutation` runs a mutation with. Written by
 * src/bulk/uploads.ts with COPY, in constant memory; never loaded through the ORM.
 */
@Entity()
@Index({ name: 'bulk_upload_created_at_index', properties: ['createdAt'] })
export class BulkUpload {
  @PrimaryKey({ type: 'integer' })
  id!: number;

  @Property({ type: 'integer' })
  tokenId!: number;

  @Property({ type: 'text' })
  form!: 'rest' | 'graphql';

  @Property({ type: 'integer' })
  lines!: number;

  @Property({ type: 'bigint' })
  bytes!: string;

  @Property({ type: 'timestamptz', onCreate: () => now() })
  createdAt: Date = now();
}
