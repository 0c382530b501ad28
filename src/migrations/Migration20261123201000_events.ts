import { Migration } from '@mikro-orm/migrations';

/** The event log (docs/decisions.md#order-timeline): the order timeline and the source of webhooks. */
export class Migration20261123201000_events extends Migration {
  override name = 'Migration20261123201000_events';

  override up(): void | Promise<void> {
    this.addSql(`create table "event" ("id" serial primary key, "type" text not null,
      "created_at" timestamptz not null, "actor_token_id" int null, "actor_name" text null,
      "subject" text not null, "subject_id" int not null, "order_id" int null, "data" jsonb not null);`);
    this.addSql(`create index "event_order_id_id_index" on "event" ("order_id", "id") where "order_id" is not null;`);
    this.addSql(`create index "event_subject_index" on "event" ("subject", "subject_id", "id");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "event" cascade;`);
  }
}
