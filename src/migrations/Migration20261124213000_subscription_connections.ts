import { Migration } from '@mikro-orm/migrations';

/**
 * The live WebSocket connections of every instance (docs/decisions.md#instances), so the
 * per-token connection and subscription limits hold across processes (src/auth/connection-slots.ts).
 * A row counts while `expires_at` is ahead: its process pushes that forward on each heartbeat, so
 * the rows of a process that died stop counting on their own. Unlogged like the rate-limit
 * buckets: a connection row is worth nothing after a database crash (its socket is gone or will
 * reconnect), and every open, subscribe and close would otherwise wait for a WAL flush.
 */
export class Migration20261124213000_subscription_connections extends Migration {
  override name = 'Migration20261124213000_subscription_connections';

  override up(): void | Promise<void> {
    this.addSql(`create unlogged table "subscription_connection" ("id" uuid not null,
      "token_id" int not null, "instance" text not null,
      "subscriptions" int not null default 0 check ("subscriptions" >= 0),
      "opened_at" timestamptz not null default now(), "expires_at" timestamptz not null,
      primary key ("id"));`);
    this.addSql(`create index "subscription_connection_token_id_index" on "subscription_connection" ("token_id");`);
    this.addSql(`alter table "subscription_connection" add constraint "subscription_connection_token_id_foreign"
      foreign key ("token_id") references "api_token" ("id") on delete cascade;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "subscription_connection" cascade;`);
  }
}
