import { Migration } from '@mikro-orm/migrations';

/**
 * The inventory ledger (docs/decisions.md#inventory-ledger): one row per change to the units of a
 * variant in a warehouse. Every level that exists now starts with one `set` movement of all its
 * units, so that for each level its units are the sum of its movements' deltas from here on. No
 * foreign keys, as events have none: the history outlives a deleted variant, and writing a movement
 * locks no variant or warehouse row.
 */
export class Migration20261128050709_inventory_movements extends Migration {
  override name = 'Migration20261128050709_inventory_movements';

  override up(): void | Promise<void> {
    this.addSql(`create table "inventory_movement" ("id" serial primary key, "variant_id" int not null,
      "warehouse_id" int not null, "delta" int not null, "quantity_after" int not null, "reason" text not null,
      "reference" text null, "actor_token_id" int null, "actor_name" text null, "created_at" timestamptz not null);`);
    this.addSql(
      `create index "inventory_movement_warehouse_id_id_index" on "inventory_movement" ("warehouse_id", "id");`,
    );
    this.addSql(`create index "inventory_movement_variant_id_warehouse_id_id_index"
      on "inventory_movement" ("variant_id", "warehouse_id", "id");`);
    this.addSql(`alter table "inventory_movement" add constraint "inventory_movement_quantity_after_non_negative"
      check (quantity_after >= 0);`);
    this.addSql(`alter table "inventory_movement" add constraint "inventory_movement_reason_valid"
      check (reason in ('fulfilment', 'fulfilment_deleted', 'restock', 'set', 'received', 'correction', 'damaged',
      'cycle_count', 'other'));`);
    // The starting point of every existing level, in the levels' order, stamped with this migration's time.
    this.addSql(`insert into "inventory_movement" ("variant_id", "warehouse_id", "delta", "quantity_after", "reason",
      "created_at")
      select "variant_id", "warehouse_id", "quantity", "quantity", 'set', date_trunc('second', now())
      from "inventory_level" order by "warehouse_id", "variant_id";`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "inventory_movement" cascade;`);
  }
}
