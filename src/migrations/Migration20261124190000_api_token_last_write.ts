import { Migration } from '@mikro-orm/migrations';

/**
 * When a token last sent a write (docs/operations.md#read-replicas): for a while after it, the
 * token's reads go only to a replica that has replayed the primary's WAL up to where it stood at
 * the read's start, so a client always reads its own writes.
 */
export class Migration20261124190000_api_token_last_write extends Migration {
  override name = 'Migration20261124190000_api_token_last_write';

  override up(): void | Promise<void> {
    this.addSql(`alter table "api_token" add column "last_write_at" timestamptz null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "api_token" drop column "last_write_at";`);
  }
}
