import { Migration } from '@mikro-orm/migrations';

/**
 * Bulk operations (docs/decisions.md#bulk-writes): an upload's lines as they came (a REST request
 * or a GraphQL variables object each), the operation that runs them, and one result per line,
 * written in the transaction of the line's own effects. The primary key of a result is the
 * exactly-once guard: a line that two runners both applied cannot commit twice.
 *
 * `bulk_operation.finished` events reach only the webhook subscriptions made by the token that
 * started the operation (as the feed shows them only to it): the queueing trigger learns that rule.
 */
export class Migration20261130100000_bulk_operations extends Migration {
  override name = 'Migration20261130100000_bulk_operations';

  override up(): void | Promise<void> {
    this.addSql(`create table "bulk_upload" ("id" serial primary key,
      "token_id" int not null references "api_token" ("id") on delete cascade,
      "form" text not null, "lines" int not null, "bytes" bigint not null,
      "created_at" timestamptz not null,
      constraint "bulk_upload_form_valid" check ("form" in ('rest', 'graphql')));`);
    this.addSql(`create index "bulk_upload_created_at_index" on "bulk_upload" ("created_at");`);
    this.addSql(`create table "bulk_line" ("upload_id" int not null references "bulk_upload" ("id") on delete cascade,
      "line" int not null, "input" json not null, primary key ("upload_id", "line"));`);
    this.addSql(`create table "bulk_operation" ("id" serial primary key,
      "token_id" int not null references "api_token" ("id") on delete cascade,
      "upload_id" int not null references "bulk_upload" ("id") on delete cascade,
      "mutation" text null, "status" text not null default 'created',
      "total_lines" int not null, "processed_lines" int not null default 0,
      "failed_lines" int not null default 0, "error" text null,
      "runner" text null, "lease_until" timestamptz null,
      "created_at" timestamptz not null, "started_at" timestamptz null, "completed_at" timestamptz null,
      constraint "bulk_operation_status_valid"
        check ("status" in ('created', 'running', 'completed', 'failed', 'canceled')),
      constraint "bulk_operation_lines_counted"
        check ("processed_lines" between 0 and "total_lines" and "failed_lines" between 0 and "processed_lines"));`);
    this.addSql(`alter table "bulk_operation" add constraint "bulk_operation_upload_id_unique" unique ("upload_id");`);
    this.addSql(`create index "bulk_operation_token_id_id_index" on "bulk_operation" ("token_id", "id");`);
    this.addSql(`create index "bulk_operation_unfinished_index" on "bulk_operation" ("id")
      where "status" in ('created', 'running');`);
    this.addSql(`create index "bulk_operation_completed_at_index" on "bulk_operation" ("completed_at");`);
    this.addSql(`create table "bulk_result" (
      "operation_id" int not null references "bulk_operation" ("id") on delete cascade,
      "line" int not null, "failed" boolean not null, "answer" text not null,
      primary key ("operation_id", "line"));`);
    this.addSql(`create or replace function queue_webhook_deliveries() returns trigger language plpgsql as $$
begin
  insert into webhook_delivery (subscription_id, event_id, event_type, created_at, next_attempt_at, trace_parent)
  select s.id, new.id, new.type, new.created_at, new.created_at, nullif(current_setting('store.traceparent', true), '')
  from webhook_subscription s
  where s.disabled_at is null and new.type = any (s.events)
    and (new.subject <> 'bulk_operation' or s.created_by_token_id = new.actor_token_id);
  return null;
end $$;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`create or replace function queue_webhook_deliveries() returns trigger language plpgsql as $$
begin
  insert into webhook_delivery (subscription_id, event_id, event_type, created_at, next_attempt_at, trace_parent)
  select s.id, new.id, new.type, new.created_at, new.created_at, nullif(current_setting('store.traceparent', true), '')
  from webhook_subscription s
  where s.disabled_at is null and new.type = any (s.events);
  return null;
end $$;`);
    this.addSql(`drop table if exists "bulk_result" cascade;`);
    this.addSql(`drop table if exists "bulk_operation" cascade;`);
    this.addSql(`drop table if exists "bulk_line" cascade;`);
    this.addSql(`drop table if exists "bulk_upload" cascade;`);
  }
}
