import { Migration } from '@mikro-orm/migrations';

/**
 * Metafields (docs/decisions.md#custom-data-metafields): definitions per kind of record, and the
 * values, each owned by exactly one order, customer, product, variant or collection through a
 * foreign key that deletes it with its record. A record's values are read through the unique index
 * of its owner column; an exact search finds values through (definition, md5 of the value), since a
 * value may be 64 KiB and a b-tree entry holds at most about 2.7 kB.
 */
export class Migration20261201090000_metafields extends Migration {
  override name = 'Migration20261201090000_metafields';

  override up(): void | Promise<void> {
    this.addSql(`create table "metafield_definition" ("id" serial primary key, "owner_type" text not null,
      "namespace" varchar(64) not null, "key" varchar(64) not null, "type" text not null, "name" varchar(255) not null,
      "description" text null, "created_at" timestamptz not null);`);
    this.addSql(`alter table "metafield_definition"
      add constraint "metafield_definition_owner_type_namespace_key_unique"
      unique ("owner_type", "namespace", "key");`);
    this.addSql(`alter table "metafield_definition" add constraint "metafield_definition_owner_type_valid"
      check (owner_type in ('ORDER', 'CUSTOMER', 'PRODUCT', 'PRODUCT_VARIANT', 'COLLECTION'));`);
    this.addSql(`alter table "metafield_definition" add constraint "metafield_definition_type_valid"
      check (type in ('single_line_text_field', 'multi_line_text_field', 'number_integer', 'number_decimal',
      'boolean', 'date', 'date_time', 'url', 'json'));`);

    this.addSql(`create table "metafield" ("id" serial primary key, "definition_id" int not null,
      "namespace" varchar(64) not null, "key" varchar(64) not null, "type" text not null, "value" text not null,
      "value_hash" uuid generated always as (md5(value)::uuid) stored not null, "order_id" int null,
      "customer_id" int null, "product_id" int null, "product_variant_id" int null, "collection_id" int null,
      "created_at" timestamptz not null, "updated_at" timestamptz not null);`);
    for (const owner of ['order', 'customer', 'product', 'product_variant', 'collection']) {
      this.addSql(`create unique index "metafield_${owner}_index" on "metafield" ("${owner}_id", "definition_id")
        where "${owner}_id" is not null;`);
    }
    this.addSql(`create index "metafield_search_index" on "metafield" ("definition_id", "value_hash");`);
    this.addSql(`alter table "metafield" add constraint "metafield_one_owner"
      check (num_nonnulls(order_id, customer_id, product_id, product_variant_id, collection_id) = 1);`);
    this.addSql(`alter table "metafield" add constraint "metafield_definition_id_foreign" foreign key ("definition_id")
      references "metafield_definition" ("id") on delete cascade;`);
    const owners = { order: 'orders', customer: 'customer', product: 'product', product_variant: 'product_variant' };
    for (const [owner, table] of Object.entries({ ...owners, collection: 'collection' })) {
      this.addSql(`alter table "metafield" add constraint "metafield_${owner}_id_foreign" foreign key ("${owner}_id")
        references "${table}" ("id") on delete cascade;`);
    }
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "metafield" cascade;`);
    this.addSql(`drop table if exists "metafield_definition" cascade;`);
  }
}
