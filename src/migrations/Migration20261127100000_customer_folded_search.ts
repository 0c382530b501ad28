import { Migration } from '@mikro-orm/migrations';

/**
 * Lower-case copies of the customer's searched text columns, kept by PostgreSQL, each with a
 * trigram index: a case-insensitive substring search is then LIKE on the copy instead of ILIKE,
 * which lowers every row it rechecks (domain/text-fold.ts; bench/analysis.md, "Case-folded
 * columns"). The trigram indexes on the original columns stay: ILIKE still serves patterns
 * JavaScript cannot lower exactly as PostgreSQL does, and the e-mail clash check.
 */
export class Migration20261127100000_customer_folded_search extends Migration {
  override name = 'Migration20261127100000_customer_folded_search';

  override up(): void | Promise<void> {
    this.addSql(`alter table "customer"
      add column "email_folded" text generated always as (lower(email)) stored,
      add column "first_name_folded" text generated always as (lower(first_name)) stored,
      add column "last_name_folded" text generated always as (lower(last_name)) stored;`);
    for (const column of ['email', 'first_name', 'last_name']) {
      this.addSql(
        `create index "customer_${column}_folded_trgm" on "customer" using gin ("${column}_folded" gin_trgm_ops);`,
      );
    }
  }

  override down(): void | Promise<void> {
    for (const column of ['email', 'first_name', 'last_name']) {
      this.addSql(`drop index "customer_${column}_folded_trgm";`);
    }
    this.addSql(`alter table "customer" drop column "email_folded", drop column "first_name_folded",
      drop column "last_name_folded";`);
  }
}
