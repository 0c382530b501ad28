import { Migration } from '@mikro-orm/migrations';

/**
 * An Idempotency-Key claim names its holder: a holder whose lease lapsed while it was still alive
 * (a write waiting on a lock, a stalled process) was taken over by a retry, and both then stored
 * their answers, the write done twice. Renewing, completing and releasing now match the holder.
 */
export class Migration20261205090000_idempotency_holder extends Migration {
  override name = 'Migration20261205090000_idempotency_holder';

  override up(): void | Promise<void> {
    this.addSql(`alter table "idempotency_key" add column "holder" uuid null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "idempotency_key" drop column "holder";`);
  }
}
