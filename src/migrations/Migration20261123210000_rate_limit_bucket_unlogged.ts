import { Migration } from '@mikro-orm/migrations';

/**
 * Rate-limit buckets are unlogged: every API request updates its token's bucket, and as a logged
 * table that made each request a commit waiting for a WAL flush (40 % of a read's throughput in
 * the bench). A bucket is worth nothing after a crash: PostgreSQL empties an unlogged table on
 * crash recovery, and every token starts again with a full bucket.
 */
export class Migration20261123210000_rate_limit_bucket_unlogged extends Migration {
  override name = 'Migration20261123210000_rate_limit_bucket_unlogged';

  override up(): void | Promise<void> {
    this.addSql(`alter table "rate_limit_bucket" set unlogged;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "rate_limit_bucket" set logged;`);
  }
}
