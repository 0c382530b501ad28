import { Migration } from '@mikro-orm/migrations';

/** Per-token rate-limit buckets (docs/decisions.md#rate-limits), one row per token that made a request. */
export class Migration20261122040050_rate_limit extends Migration {
  override name = 'Migration20261122040050_rate_limit';

  override up(): void | Promise<void> {
    this.addSql(`create table "rate_limit_bucket" ("token_id" int not null,
      "tokens" double precision not null, "granted" boolean not null,
      "refilled_at" timestamptz not null, primary key ("token_id"));`);
    this.addSql(`alter table "rate_limit_bucket" add constraint "rate_limit_bucket_token_id_foreign" foreign
      key ("token_id") references "api_token" ("id") on update cascade on delete cascade;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "rate_limit_bucket" cascade;`);
  }
}
