import { Migration } from '@mikro-orm/migrations';

/**
 * When a customer's personal data was erased on request (docs/decisions.md#erasing-a-customer):
 * null while it was not. An erased customer shows only the anonymous values and refuses updates.
 */
export class Migration20261128051938_customer_erasure extends Migration {
  override name = 'Migration20261128051938_customer_erasure';

  override up(): void | Promise<void> {
    this.addSql(`alter table "customer" add "erased_at" timestamptz null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "customer" drop column "erased_at";`);
  }
}
