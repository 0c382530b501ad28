import { Migration } from '@mikro-orm/migrations';

/**
 * Webhooks (docs/decisions.md#webhooks): subscriptions, the delivery queue and the attempt log. A
 * trigger queues one delivery per matching active subscription when an event is inserted, so a
 * delivery exists exactly when its event committed, with no extra statement from the service.
 */
export class Migration20261123202000_webhooks extends Migration {
  override name = 'Migration20261123202000_webhooks';

  override up(): void | Promise<void> {
    this.addSql(`create table "webhook_subscription" ("id" serial primary key, "url" text not null,
      "events" text[] not null, "secret" text not null,
      "created_at" timestamptz not null, "created_by_token_id" int null,
      "consecutive_failures" int not null default 0, "disabled_at" timestamptz null,
      "disabled_reason" text null);`);
    this.addSql(`create table "webhook_delivery" ("id" serial primary key,
      "subscription_id" int not null references "webhook_subscription" ("id") on delete cascade,
      "event_id" int not null, "event_type" text not null,
      "status" text not null default 'pending', "attempts" int not null default 0,
      "next_attempt_at" timestamptz null default now(), "last_status_code" int null,
      "last_error" text null, "delivered_at" timestamptz null,
      "created_at" timestamptz not null default now(),
      constraint "webhook_delivery_status_valid" check ("status" in ('pending', 'delivered', 'failed')));`);
    this.addSql(`create index "webhook_delivery_due_index" on "webhook_delivery" ("next_attempt_at",
      "id") where "status" = 'pending';`);
    this.addSql(`create index "webhook_delivery_subscription_index" on "webhook_delivery" ("subscription_id", "id");`);
    this.addSql(`create table "webhook_attempt" ("id" serial primary key,
      "delivery_id" int not null references "webhook_delivery" ("id") on delete cascade,
      "attempt" int not null, "attempted_at" timestamptz not null default now(),
      "status_code" int null, "error" text null, "duration_ms" int not null);`);
    this.addSql(`alter table "webhook_attempt" add constraint "webhook_attempt_delivery_id_attempt_unique"
      unique ("delivery_id", "attempt");`);
    this.addSql(`create function queue_webhook_deliveries() returns trigger language plpgsql as $$
begin
  insert into webhook_delivery (subscription_id, event_id, event_type)
  select s.id, new.id, new.type from webhook_subscription s where s.disabled_at is null and new.type = any (s.events);
  return null;
end $$;`);
    this.addSql(`create trigger "event_queue_webhooks" after insert on "event" for each row execute function
      queue_webhook_deliveries();`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop trigger if exists "event_queue_webhooks" on "event";`);
    this.addSql(`drop function if exists queue_webhook_deliveries();`);
    this.addSql(`drop table if exists "webhook_attempt" cascade;`);
    this.addSql(`drop table if exists "webhook_delivery" cascade;`);
    this.addSql(`drop table if exists "webhook_subscription" cascade;`);
  }
}
