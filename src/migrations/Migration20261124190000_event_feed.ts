import { Migration } from '@mikro-orm/migrations';

/**
 * The event feed (docs/integrations.md#the-event-feed): each event keeps the id of the transaction
 * that wrote it (`xid`, a 64-bit xid8 that never wraps), and the feed reads events in (xid, id)
 * order, only those whose transaction is older than every transaction still running. A sequence
 * id alone is not commit order: a reader past id 12 would never see an id 11 that commits later.
 * Rows written before this migration all get the migration's own xid (they are in id order within it).
 */
export class Migration20261124190000_event_feed extends Migration {
  override name = 'Migration20261124190000_event_feed';

  override up(): void | Promise<void> {
    this.addSql(`alter table "event" add column "xid" xid8 not null default pg_current_xact_id();`);
    this.addSql(`create index "event_feed_index" on "event" ("xid", "id");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index if exists "event_feed_index";`);
    this.addSql(`alter table "event" drop column if exists "xid";`);
  }
}
