import { Migration } from '@mikro-orm/migrations';

/**
 * A bulk operation keeps the `traceparent` of the traced request that made it (REST
 * `POST /bulk-operations`, GraphQL `bulkOperationRunMutation`; docs/operations.md#traces): each of
 * its lines, run later by the runner, is a span of that trace. Written only when tracing is on, so
 * without tracing it is null and costs nothing. A nullable column without a default: no rewrite.
 */
export class Migration20261202090000_bulk_trace_parent extends Migration {
  override name = 'Migration20261202090000_bulk_trace_parent';

  override up(): void | Promise<void> {
    this.addSql(`alter table "bulk_operation" add column "trace_parent" text null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "bulk_operation" drop column "trace_parent";`);
  }
}
