import { Migration } from '@mikro-orm/migrations';

/**
 * GraphQL subscriptions (docs/integrations.md#subscriptions): a statement that inserts events
 * notifies the channel `store_events`. PostgreSQL delivers a notification only when its
 * transaction commits (and folds repeats within one), so listeners on every instance wake when
 * events may have become visible; they then read the feed, which stays the source of truth.
 */
export class Migration20261124191000_event_notify extends Migration {
  override name = 'Migration20261124191000_event_notify';

  override up(): void | Promise<void> {
    this.addSql(`create function notify_store_events() returns trigger language plpgsql as $$
begin
  perform pg_notify('store_events', '');
  return null;
end $$;`);
    this.addSql(
      `create trigger "event_notify" after insert on "event"
        for each statement execute function notify_store_events();`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop trigger if exists "event_notify" on "event";`);
    this.addSql(`drop function if exists notify_store_events();`);
  }
}
