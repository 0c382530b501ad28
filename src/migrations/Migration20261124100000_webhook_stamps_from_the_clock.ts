import { Migration } from '@mikro-orm/migrations';

/**
 * Webhook deliveries and attempts showed times with microseconds (column defaults of `now()`),
 * unlike every other record (src/clock.ts). A delivery queued by the trigger now takes its
 * event's time, which the service stamped in whole seconds; the worker stamps attempts itself. The
 * defaults go, so a write that forgets its stamp fails instead of storing a fractional one.
 */
export class Migration20261124100000_webhook_stamps_from_the_clock extends Migration {
  override name = 'Migration20261124100000_webhook_stamps_from_the_clock';

  override up(): void | Promise<void> {
    this.addSql(`create or replace function queue_webhook_deliveries() returns trigger language plpgsql as $$
begin
  insert into webhook_delivery (subscription_id, event_id, event_type, created_at, next_attempt_at)
  select s.id, new.id, new.type, new.created_at, new.created_at from webhook_subscription s
  where s.disabled_at is null and new.type = any (s.events);
  return null;
end $$;`);
    this.addSql(`alter table "webhook_delivery" alter column "created_at" drop default,
      alter column "next_attempt_at" drop default;`);
    this.addSql(`alter table "webhook_attempt" alter column "attempted_at" drop default;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "webhook_attempt" alter column "attempted_at" set default now();`);
    this.addSql(`alter table "webhook_delivery" alter column "created_at" set default now(),
      alter column "next_attempt_at" set default now();`);
    this.addSql(`create or replace function queue_webhook_deliveries() returns trigger language plpgsql as $$
begin
  insert into webhook_delivery (subscription_id, event_id, event_type)
  select s.id, new.id, new.type from webhook_subscription s where s.disabled_at is null and new.type = any (s.events);
  return null;
end $$;`);
  }
}
