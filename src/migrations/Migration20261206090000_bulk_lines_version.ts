import { Migration } from '@mikro-orm/migrations';

/**
 * A running bulk operation's lines can be rewritten under it (an erasure takes a person's data out
 * of them): the runner reads its lines a chunk ahead, so it ran the old text after the erasure (a
 * customer made again from the erased person's e-mail). An erasure moves `lines_version`, and a
 * runner whose chunk was read at another version reads it again.
 */
export class Migration20261206090000_bulk_lines_version extends Migration {
  override name = 'Migration20261206090000_bulk_lines_version';

  override up(): void | Promise<void> {
    this.addSql(`alter table "bulk_operation" add column "lines_version" integer not null default 0;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "bulk_operation" drop column "lines_version";`);
  }
}
