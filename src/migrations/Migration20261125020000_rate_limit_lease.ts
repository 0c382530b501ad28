import { Migration } from '@mikro-orm/migrations';

/**
 * What a bucket charge took ahead for the charging process (src/auth/rate-limit.ts, leases), so the
 * charge's statement can return it.
 */
export class Migration20261125020000_rate_limit_lease extends Migration {
  override name = 'Migration20261125020000_rate_limit_lease';

  override up(): void | Promise<void> {
    this.addSql(`alter table "rate_limit_bucket" add column "leased" double precision not null default 0;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "rate_limit_bucket" drop column "leased";`);
  }
}
