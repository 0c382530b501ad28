import { Migration } from '@mikro-orm/migrations';

/**
 * Order search by e-mail substring (`filter: { email: [...] }`, ILIKE '%…%') through a trigram
 * index, as the customers' searches already are (pg_trgm, created in the big-store migration);
 * without it every search reads every order (bench/analysis.md).
 */
export class Migration20261124220000_orders_email_trgm extends Migration {
  override name = 'Migration20261124220000_orders_email_trgm';

  override up(): void | Promise<void> {
    this.addSql(`create index "orders_email_trgm" on "orders" using gin ("email" gin_trgm_ops);`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index "orders_email_trgm";`);
  }
}
