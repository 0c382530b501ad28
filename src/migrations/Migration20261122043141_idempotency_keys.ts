import { Migration } from '@mikro-orm/migrations';

/** Idempotency keys of REST writes (docs/decisions.md#retries). */
export class Migration20261122043141_idempotency_keys extends Migration {
  override name = 'Migration20261122043141_idempotency_keys';

  override up(): void | Promise<void> {
    this.addSql(`create table "idempotency_key" ("id" serial primary key, "token_id" int not null,
      "key" text not null, "method" text not null, "path" text not null,
      "body_hash" char(64) not null, "status" int null, "response" jsonb null,
      "created_at" timestamptz not null);`);
    this.addSql(`create index "idempotency_key_created_at_index" on "idempotency_key" ("created_at");`);
    this.addSql(`alter table "idempotency_key" add constraint
      "idempotency_key_token_id_key_method_path_unique" unique ("token_id", "key", "method", "path");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "idempotency_key" cascade;`);
  }
}
