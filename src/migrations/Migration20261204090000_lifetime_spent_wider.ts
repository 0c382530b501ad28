import { Migration } from '@mikro-orm/migrations';

/**
 * A customer's lifetime spent holds the sum of its paid orders' totals, each up to
 * 9,999,999,999.99: numeric(14,2) overflowed at the hundred-and-first such order, and every later
 * write touching the customer's figures failed. numeric(20,2) holds a hundred million of them.
 * Raising a numeric's precision rewrites no row.
 */
export class Migration20261204090000_lifetime_spent_wider extends Migration {
  override name = 'Migration20261204090000_lifetime_spent_wider';

  override up(): void | Promise<void> {
    this.addSql(`alter table "customer" alter column "lifetime_spent" type numeric(20,2);`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "customer" alter column "lifetime_spent" type numeric(14,2);`);
  }
}
