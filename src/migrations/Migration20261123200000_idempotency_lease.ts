import { Migration } from '@mikro-orm/migrations';

/**
 * Idempotency keys that survive crashes (docs/rest.md#idempotency-across-crashes): a claim holds a
 * lease (`locked_until`) that its holder renews while it runs; a crashed holder's claim is taken
 * over once the lease expires. The kept answer becomes `json` (not `jsonb`), so a replay keeps the
 * JSON key order.
 */
export class Migration20261123200000_idempotency_lease extends Migration {
  override name = 'Migration20261123200000_idempotency_lease';

  override up(): void | Promise<void> {
    this.addSql(`alter table "idempotency_key" add column "locked_until" timestamptz null;`);
    this.addSql(`alter table "idempotency_key" alter column "response" type json using "response"::json;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "idempotency_key" alter column "response" type jsonb using "response"::jsonb;`);
    this.addSql(`alter table "idempotency_key" drop column "locked_until";`);
  }
}
