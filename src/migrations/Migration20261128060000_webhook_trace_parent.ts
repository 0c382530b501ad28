import { Migration } from '@mikro-orm/migrations';

/**
 * A webhook delivery keeps the `traceparent` of the traced request whose change queued it
 * (docs/operations.md#traces): the trigger reads it from the transaction's `store.traceparent`
 * setting, which a write transaction sets only when tracing is on (src/domain/transaction.ts), so
 * without tracing it is null and costs nothing. A nullable column without a default: no rewrite.
 */
export class Migration20261128060000_webhook_trace_parent extends Migration {
  override name = 'Migration20261128060000_webhook_trace_parent';

  override up(): void | Promise<void> {
    this.addSql(`alter table "webhook_delivery" add column "trace_parent" text null;`);
    this.addSql(`create or replace function queue_webhook_deliveries() returns trigger language plpgsql as $$
begin
  insert into webhook_delivery (subscription_id, event_id, event_type, created_at, next_attempt_at, trace_parent)
  select s.id, new.id, new.type, new.created_at, new.created_at, nullif(current_setting('store.traceparent', true), '')
  from webhook_subscription s
  where s.disabled_at is null and new.type = any (s.events);
  return null;
end $$;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`create or replace function queue_webhook_deliveries() returns trigger language plpgsql as $$
begin
  insert into webhook_delivery (subscription_id, event_id, event_type, created_at, next_attempt_at)
  select s.id, new.id, new.type, new.created_at, new.created_at from webhook_subscription s
  where s.disabled_at is null and new.type = any (s.events);
  return null;
end $$;`);
    this.addSql(`alter table "webhook_delivery" drop column "trace_parent";`);
  }
}
