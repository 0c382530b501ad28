import { Migration } from '@mikro-orm/migrations';

/**
 * A token's waiting operations run in the order they were made: a claim takes only the oldest
 * waiting operation of each token (src/bulk/claims.ts), found through this index whatever the
 * token's history of finished operations.
 */
export class Migration20261203090000_bulk_waiting_order extends Migration {
  override name = 'Migration20261203090000_bulk_waiting_order';

  override up(): void | Promise<void> {
    this.addSql(`create index "bulk_operation_waiting_index" on "bulk_operation" ("token_id", "id")
      where "status" = 'created';`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index "bulk_operation_waiting_index";`);
  }
}
