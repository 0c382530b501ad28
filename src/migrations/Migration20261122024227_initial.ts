import { Migration } from '@mikro-orm/migrations';

export class Migration20261122024227_initial extends Migration {
  override name = 'Migration20261122024227_initial';

  override up(): void | Promise<void> {
    this.addSql(`create table "api_token" ("id" serial primary key, "name" text not null,
      "secret_hash" char(64) not null, "scopes" text[] not null,
      "created_at" timestamptz not null, "revoked_at" timestamptz null);`);
    this.addSql(`alter table "api_token" add constraint "api_token_secret_hash_unique" unique ("secret_hash");`);

    this.addSql(`create table "collection" ("id" serial primary key, "title" text not null,
      "is_draft" boolean not null default false, "description" text not null default '',
      "type" smallint not null, "seo_title" text not null, "seo_url" text not null,
      "seo_meta" text not null default '', "rules_match_condition" smallint null,
      "created_at" timestamptz not null, "updated_at" timestamptz null, "version" int not null default 1);`);
    this.addSql(`alter table "collection" add constraint "collection_seo_url_unique" unique ("seo_url");`);

    this.addSql(`create table "collection_rule" ("id" serial primary key,
      "collection_id" int not null, "position" smallint not null, "field" smallint not null,
      "condition" smallint not null, "value" text not null);`);
    this.addSql(`create index "collection_rule_collection_id_index" on "collection_rule" ("collection_id");`);

    this.addSql(`create table "customer" ("id" serial primary key, "email" text not null,
      "first_name" text not null default '', "last_name" text not null default '',
      "notes" text null, "order_count" int not null default 0,
      "lifetime_spent" numeric(14,2) not null default 0, "last_purchase" timestamptz null,
      "created_at" timestamptz not null, "updated_at" timestamptz null, "version" int not null default 1);`);
    this.addSql(`create index "customer_last_name_index" on "customer" ("last_name");`);

    this.addSql(`create table "customer_address" ("id" serial primary key,
      "customer_id" int not null, "position" smallint not null default 0,
      "shipping_first_name" text null, "shipping_last_name" text null,
      "shipping_company" text null, "shipping_street" text null, "shipping_suite" text null,
      "shipping_city" text null, "shipping_country" varchar(2) null,
      "shipping_state" varchar(3) null, "shipping_zip" text null,
      "billing_first_name" text null, "billing_last_name" text null,
      "billing_company" text null, "billing_street" text null, "billing_suite" text null,
      "billing_city" text null, "billing_country" varchar(2) null,
      "billing_state" varchar(3) null, "billing_zip" text null, "phone" text null);`);
    this.addSql(`create index "customer_address_customer_id_index" on "customer_address" ("customer_id");`);

    this.addSql(`create table "customer_payment_method" ("id" serial primary key,
      "customer_id" int not null, "type" text not null, "last4" varchar(4) null);`);
    this.addSql(`create index "customer_payment_method_customer_id_index" on "customer_payment_method"
      ("customer_id");`);

    this.addSql(`create table "image" ("id" serial primary key, "path" text not null,
      "max_size" int not null, "created_at" timestamptz not null);`);

    this.addSql(`create table "collection_image" ("id" serial primary key,
      "collection_id" int not null, "image_id" int not null, "position" smallint not null);`);
    this.addSql(`alter table "collection_image" add constraint
      "collection_image_collection_id_image_id_unique" unique ("collection_id", "image_id");`);

    this.addSql(`create table "orders" ("id" serial primary key, "customer_id" int not null,
      "email" text not null, "status" smallint not null default 0,
      "paid" smallint not null default 0, "discounts" jsonb not null default '[]',
      "shipping_description" text not null default '',
      "shipping_price" numeric(12,2) not null default 0, "tax" numeric(12,2) not null default 0,
      "cart_price" numeric(12,2) not null default 0, "total" numeric(12,2) not null default 0,
      "ip" text not null default '', "shipping_first_name" text null,
      "shipping_last_name" text null, "shipping_company" text null,
      "shipping_street" text null, "shipping_suite" text null, "shipping_city" text null,
      "shipping_country" varchar(2) null, "shipping_state" varchar(3) null,
      "shipping_zip" text null, "billing_first_name" text null,
      "billing_last_name" text null, "billing_company" text null, "billing_street" text null,
      "billing_suite" text null, "billing_city" text null, "billing_country" varchar(2) null,
      "billing_state" varchar(3) null, "billing_zip" text null, "phone" text null,
      "payment_type" text null, "payment_last4" varchar(4) null,
      "landing_page" text not null default '', "referrer" text not null default '',
      "ip_fail" boolean not null default false, "address_fail" boolean not null default false,
      "zip_fail" boolean not null default false, "cvc_fail" boolean not null default false,
      "refunded" numeric(12,2) not null default 0,
      "refund_possible" boolean not null default true, "order_date" timestamptz not null,
      "updated_at" timestamptz null, "notes" text null, "version" int not null default 1);`);
    this.addSql(`create index "orders_customer_id_index" on "orders" ("customer_id");`);
    this.addSql(`create index "orders_email_index" on "orders" ("email");`);
    this.addSql(`create index "orders_status_index" on "orders" ("status");`);
    this.addSql(`create index "orders_total_index" on "orders" ("total");`);
    this.addSql(`create index "orders_order_date_index" on "orders" ("order_date");`);

    this.addSql(`create table "outbox_message" ("id" serial primary key, "kind" text not null,
      "payload" jsonb not null, "attempts" int not null default 0,
      "next_attempt_at" timestamptz not null default now(), "sent_at" timestamptz null,
      "last_error" text null, "created_at" timestamptz not null);`);
    this.addSql(`create index "outbox_message_pending_idx" on "outbox_message" ("next_attempt_at") where
      "sent_at" is null;`);

    this.addSql(`create table "product" ("id" serial primary key, "title" text not null,
      "is_multi" boolean not null default false, "type" text not null default '',
      "is_giftcard" boolean not null default false, "tags" text[] not null default '{}',
      "shipping_weight" double precision not null default 0,
      "auto_fulfilment" boolean not null default false,
      "track_inventory" boolean not null default false, "vendor" text null,
      "sku" text not null default '', "seo_meta" text not null default '',
      "seo_title" text not null default '', "seo_url" text not null,
      "is_template" boolean not null default false, "is_draft" boolean not null default false,
      "price" numeric(12,2) not null default 0, "compare_price" numeric(12,2) null,
      "created_at" timestamptz not null, "updated_at" timestamptz null, "version" int not null default 1);`);
    this.addSql(`create index "product_title_index" on "product" ("title");`);
    this.addSql(`alter table "product" add constraint "product_seo_url_unique" unique ("seo_url");`);
    this.addSql(`create index "product_price_index" on "product" ("price");`);
    this.addSql(`create index "product_tags_index" on "product" using gin ("tags");`);
    this.addSql(`create index "product_created_at_index" on "product" ("created_at");`);

    this.addSql(`create table "collection_product" ("id" serial primary key,
      "collection_id" int not null, "product_id" int not null, "position" int not null);`);
    this.addSql(`create index "collection_product_product_id_index" on "collection_product" ("product_id");`);
    this.addSql(`alter table "collection_product" add constraint
      "collection_product_collection_id_product_id_unique" unique ("collection_id", "product_id");`);

    this.addSql(`create table "product_image" ("id" serial primary key, "product_id" int not null,
      "image_id" int not null, "position" smallint not null);`);
    this.addSql(`alter table "product_image" add constraint "product_image_product_id_image_id_unique" unique
      ("product_id", "image_id");`);

    this.addSql(`create table "product_option" ("id" serial primary key, "product_id" int not null,
      "position" smallint not null, "title" text not null,
      "changes_look" boolean not null default false, "values" text[] not null);`);
    this.addSql(`alter table "product_option" add constraint "product_option_product_id_title_unique" unique
      ("product_id", "title");`);

    this.addSql(`create table "option_thumbnail" ("id" serial primary key,
      "option_id" int not null, "position" smallint not null, "value" text not null,
      "color" text null, "image_id" int null);`);
    this.addSql(`create index "option_thumbnail_option_id_index" on "option_thumbnail" ("option_id");`);

    this.addSql(`create table "product_textarea" ("id" serial primary key,
      "product_id" int not null, "position" smallint not null, "name" text not null, "text" text not null);`);
    this.addSql(`alter table "product_textarea" add constraint "product_textarea_product_id_name_unique"
      unique ("product_id", "name");`);

    this.addSql(`create table "product_variant" ("id" serial primary key,
      "product_id" int not null, "position" smallint not null, "option_values" text[] not null,
      "price" numeric(12,2) not null, "compare_price" numeric(12,2) null,
      "sku" text not null default '', "is_default" boolean not null default false,
      "ignore" boolean not null default false);`);
    this.addSql(`alter table "product_variant" add constraint
      "product_variant_product_id_option_values_unique" unique ("product_id", "option_values");`);

    this.addSql(`create table "line_item" ("id" serial primary key, "order_id" int not null,
      "product_id" int null, "variant_id" int null, "product_ref" int not null,
      "variant_ref" int not null, "title" text not null, "is_multi" boolean not null default false,
      "type" text not null default '', "is_giftcard" boolean not null default false,
      "shipping_weight" double precision not null default 0, "vendor" text null,
      "auto_fulfilment" boolean not null default false,
      "track_inventory" boolean not null default false, "sku" text not null default '',
      "price" numeric(12,2) not null, "compare_price" numeric(12,2) null, "image" text null,
      "image_max_size" int not null default 0, "variant_values" text[] not null default '{}',
      "quantity" int not null, "not_fulfilled" int not null, "fulfilled" int not null default 0,
      "shipped" int not null default 0, "restocked" int not null default 0);`);
    this.addSql(`create index "line_item_product_id_index" on "line_item" ("product_id");`);
    this.addSql(`create index "line_item_order_id_index" on "line_item" ("order_id");`);

    this.addSql(`create table "shipping_carrier" ("id" serial primary key, "title" text not null,
      "url" text not null, "is_deleted" boolean not null default false);`);

    this.addSql(`create table "store_settings" ("id" int not null default 1,
      "order_number_prefix" text not null default '', "order_number_suffix" text not null default '',
      primary key ("id"));`);

    this.addSql(`create table "textarea_preset" ("id" serial primary key, "name" text not null);`);
    this.addSql(`alter table "textarea_preset" add constraint "textarea_preset_name_unique" unique ("name");`);

    this.addSql(`create table "variant_image" ("id" serial primary key, "variant_id" int not null,
      "image_id" int not null, "position" smallint not null);`);
    this.addSql(`alter table "variant_image" add constraint "variant_image_variant_id_image_id_unique" unique
      ("variant_id", "image_id");`);

    this.addSql(`create table "warehouse" ("id" serial primary key, "title" text not null);`);

    this.addSql(`create table "restock" ("id" serial primary key, "order_id" int not null,
      "warehouse_id" int not null, "created_at" timestamptz not null);`);
    this.addSql(`create index "restock_order_id_index" on "restock" ("order_id");`);

    this.addSql(`create table "restock_item" ("id" serial primary key,
      "restock_id" int not null, "line_item_id" int not null, "quantity" int not null);`);
    this.addSql(`alter table "restock_item" add constraint "restock_item_restock_id_line_item_id_unique"
      unique ("restock_id", "line_item_id");`);

    this.addSql(`create table "inventory_level" ("id" serial primary key,
      "warehouse_id" int not null, "variant_id" int not null, "quantity" int not null default 0);`);
    this.addSql(`create index "inventory_level_variant_id_index" on "inventory_level" ("variant_id");`);
    this.addSql(`alter table "inventory_level" add constraint "inventory_level_warehouse_id_variant_id_unique"
      unique ("warehouse_id", "variant_id");`);

    this.addSql(`create table "fulfilment" ("id" serial primary key, "order_id" int not null,
      "warehouse_id" int null, "created_at" timestamptz not null, "updated_at" timestamptz null);`);
    this.addSql(`create index "fulfilment_order_id_index" on "fulfilment" ("order_id");`);

    this.addSql(`create table "shipment" ("id" serial primary key, "order_id" int not null,
      "fulfilment_id" int not null, "carrier_id" int not null, "tracking_number" text not null,
      "notify" boolean not null default false, "created_at" timestamptz not null,
      "updated_at" timestamptz null);`);
    this.addSql(`create index "shipment_fulfilment_id_index" on "shipment" ("fulfilment_id");`);
    this.addSql(`create index "shipment_order_id_index" on "shipment" ("order_id");`);

    this.addSql(`create table "shipment_item" ("id" serial primary key,
      "shipment_id" int not null, "line_item_id" int not null, "quantity" int not null);`);
    this.addSql(`alter table "shipment_item" add constraint "shipment_item_shipment_id_line_item_id_unique"
      unique ("shipment_id", "line_item_id");`);

    this.addSql(`create table "fulfilment_item" ("id" serial primary key,
      "fulfilment_id" int not null, "line_item_id" int not null, "quantity" int not null);`);
    this.addSql(`alter table "fulfilment_item" add constraint
      "fulfilment_item_fulfilment_id_line_item_id_unique" unique ("fulfilment_id", "line_item_id");`);

    this.addSql(`alter table "collection" add constraint "collection_rules_condition_valid" check
      (rules_match_condition is null or rules_match_condition in (0, 1));`);
    this.addSql(`alter table "collection" add constraint "collection_type_valid" check (type in (0, 1));`);

    this.addSql(`alter table "collection_rule" add constraint "collection_rule_collection_id_foreign" foreign
      key ("collection_id") references "collection" ("id") on delete cascade;`);
    this.addSql(`alter table "collection_rule" add constraint "collection_rule_condition_valid" check
      (condition between 0 and 8);`);
    this.addSql(`alter table "collection_rule" add constraint "collection_rule_field_valid" check (field
      between 0 and 6);`);

    this.addSql(`alter table "customer_address" add constraint "customer_address_customer_id_foreign" foreign
      key ("customer_id") references "customer" ("id") on delete cascade;`);

    this.addSql(`alter table "customer_payment_method" add constraint
      "customer_payment_method_customer_id_foreign" foreign key ("customer_id") references "customer" ("id")
      on delete cascade;`);
    this.addSql(`alter table "customer_payment_method" add constraint "customer_payment_method_type_valid"
      check (type in ('Visa', 'American Express', 'MasterCard', 'Discover', 'JCB', 'Diners Club', 'PayPal'));`);

    this.addSql(`alter table "collection_image" add constraint "collection_image_collection_id_foreign"
      foreign key ("collection_id") references "collection" ("id") on delete cascade;`);
    this.addSql(`alter table "collection_image" add constraint "collection_image_image_id_foreign" foreign key
      ("image_id") references "image" ("id") on delete restrict;`);

    this.addSql(`alter table "orders" add constraint "orders_customer_id_foreign" foreign key ("customer_id")
      references "customer" ("id") on delete restrict;`);
    this.addSql(`alter table "orders" add constraint "orders_paid_valid" check (paid between -2 and 1);`);
    this.addSql(`alter table "orders" add constraint "orders_status_valid" check (status between 0 and 5);`);

    this.addSql(`alter table "collection_product" add constraint "collection_product_collection_id_foreign"
      foreign key ("collection_id") references "collection" ("id") on delete cascade;`);
    this.addSql(`alter table "collection_product" add constraint "collection_product_product_id_foreign"
      foreign key ("product_id") references "product" ("id") on delete cascade;`);

    this.addSql(`alter table "product_image" add constraint "product_image_product_id_foreign" foreign key
      ("product_id") references "product" ("id") on delete cascade;`);
    this.addSql(`alter table "product_image" add constraint "product_image_image_id_foreign" foreign key
      ("image_id") references "image" ("id") on delete restrict;`);

    this.addSql(`alter table "product_option" add constraint "product_option_product_id_foreign" foreign key
      ("product_id") references "product" ("id") on delete cascade;`);

    this.addSql(`alter table "option_thumbnail" add constraint "option_thumbnail_option_id_foreign" foreign
      key ("option_id") references "product_option" ("id") on delete cascade;`);
    this.addSql(`alter table "option_thumbnail" add constraint "option_thumbnail_image_id_foreign" foreign key
      ("image_id") references "image" ("id") on delete restrict;`);
    this.addSql(`alter table "option_thumbnail" add constraint "option_thumbnail_color_xor_image" check
      ((color is null) <> (image_id is null));`);

    this.addSql(`alter table "product_textarea" add constraint "product_textarea_product_id_foreign" foreign
      key ("product_id") references "product" ("id") on delete cascade;`);

    this.addSql(`alter table "product_variant" add constraint "product_variant_product_id_foreign" foreign key
      ("product_id") references "product" ("id") on delete cascade;`);

    this.addSql(`alter table "line_item" add constraint "line_item_order_id_foreign" foreign key ("order_id")
      references "orders" ("id") on delete cascade;`);
    this.addSql(`alter table "line_item" add constraint "line_item_product_id_foreign" foreign key
      ("product_id") references "product" ("id") on delete set null;`);
    this.addSql(`alter table "line_item" add constraint "line_item_variant_id_foreign" foreign key
      ("variant_id") references "product_variant" ("id") on delete set null;`);
    this.addSql(`alter table "line_item" add constraint "line_item_counters_non_negative" check (quantity > 0
      and not_fulfilled >= 0 and fulfilled >= 0 and shipped >= 0 and restocked >= 0);`);
    this.addSql(`alter table "line_item" add constraint "line_item_counters_balance" check (quantity =
      not_fulfilled + fulfilled + shipped + restocked);`);

    this.addSql(`alter table "variant_image" add constraint "variant_image_variant_id_foreign" foreign key
      ("variant_id") references "product_variant" ("id") on delete cascade;`);
    this.addSql(`alter table "variant_image" add constraint "variant_image_image_id_foreign" foreign key
      ("image_id") references "image" ("id") on delete restrict;`);

    this.addSql(`alter table "restock" add constraint "restock_order_id_foreign" foreign key ("order_id")
      references "orders" ("id") on delete cascade;`);
    this.addSql(`alter table "restock" add constraint "restock_warehouse_id_foreign" foreign key
      ("warehouse_id") references "warehouse" ("id") on delete restrict;`);

    this.addSql(`alter table "restock_item" add constraint "restock_item_restock_id_foreign" foreign key
      ("restock_id") references "restock" ("id") on delete cascade;`);
    this.addSql(`alter table "restock_item" add constraint "restock_item_line_item_id_foreign" foreign key
      ("line_item_id") references "line_item" ("id") on delete cascade;`);
    this.addSql(`alter table "restock_item" add constraint "restock_item_quantity_positive" check (quantity > 0);`);

    this.addSql(`alter table "inventory_level" add constraint "inventory_level_warehouse_id_foreign" foreign
      key ("warehouse_id") references "warehouse" ("id") on delete cascade;`);
    this.addSql(`alter table "inventory_level" add constraint "inventory_level_variant_id_foreign" foreign key
      ("variant_id") references "product_variant" ("id") on delete cascade;`);
    this.addSql(`alter table "inventory_level" add constraint "inventory_level_quantity_non_negative" check
      (quantity >= 0);`);

    this.addSql(`alter table "fulfilment" add constraint "fulfilment_order_id_foreign" foreign key
      ("order_id") references "orders" ("id") on delete cascade;`);
    this.addSql(`alter table "fulfilment" add constraint "fulfilment_warehouse_id_foreign" foreign key
      ("warehouse_id") references "warehouse" ("id") on delete restrict;`);

    this.addSql(`alter table "shipment" add constraint "shipment_order_id_foreign" foreign key ("order_id")
      references "orders" ("id") on delete cascade;`);
    this.addSql(`alter table "shipment" add constraint "shipment_fulfilment_id_foreign" foreign key
      ("fulfilment_id") references "fulfilment" ("id") on delete restrict;`);
    this.addSql(`alter table "shipment" add constraint "shipment_carrier_id_foreign" foreign key
      ("carrier_id") references "shipping_carrier" ("id") on delete restrict;`);

    this.addSql(`alter table "shipment_item" add constraint "shipment_item_shipment_id_foreign" foreign key
      ("shipment_id") references "shipment" ("id") on delete cascade;`);
    this.addSql(`alter table "shipment_item" add constraint "shipment_item_line_item_id_foreign" foreign key
      ("line_item_id") references "line_item" ("id") on delete cascade;`);
    this.addSql(`alter table "shipment_item" add constraint "shipment_item_quantity_positive" check (quantity > 0);`);

    this.addSql(`alter table "fulfilment_item" add constraint "fulfilment_item_fulfilment_id_foreign" foreign
      key ("fulfilment_id") references "fulfilment" ("id") on delete cascade;`);
    this.addSql(`alter table "fulfilment_item" add constraint "fulfilment_item_line_item_id_foreign" foreign
      key ("line_item_id") references "line_item" ("id") on delete cascade;`);
    this.addSql(`alter table "fulfilment_item" add constraint "fulfilment_item_quantity_positive" check
      (quantity > 0);`);
    // Hand-written: what entity decorators cannot express.
    this.addSql(`create unique index "customer_email_lower_unique" on "customer" (lower("email"));`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "collection_rule" drop constraint "collection_rule_collection_id_foreign";`);
    this.addSql(`alter table "collection_image" drop constraint "collection_image_collection_id_foreign";`);
    this.addSql(`alter table "collection_product" drop constraint "collection_product_collection_id_foreign";`);
    this.addSql(`alter table "customer_address" drop constraint "customer_address_customer_id_foreign";`);
    this.addSql(`alter table "customer_payment_method" drop constraint "customer_payment_method_customer_id_foreign";`);
    this.addSql(`alter table "orders" drop constraint "orders_customer_id_foreign";`);
    this.addSql(`alter table "collection_image" drop constraint "collection_image_image_id_foreign";`);
    this.addSql(`alter table "product_image" drop constraint "product_image_image_id_foreign";`);
    this.addSql(`alter table "option_thumbnail" drop constraint "option_thumbnail_image_id_foreign";`);
    this.addSql(`alter table "variant_image" drop constraint "variant_image_image_id_foreign";`);
    this.addSql(`alter table "line_item" drop constraint "line_item_order_id_foreign";`);
    this.addSql(`alter table "restock" drop constraint "restock_order_id_foreign";`);
    this.addSql(`alter table "fulfilment" drop constraint "fulfilment_order_id_foreign";`);
    this.addSql(`alter table "shipment" drop constraint "shipment_order_id_foreign";`);
    this.addSql(`alter table "collection_product" drop constraint "collection_product_product_id_foreign";`);
    this.addSql(`alter table "product_image" drop constraint "product_image_product_id_foreign";`);
    this.addSql(`alter table "product_option" drop constraint "product_option_product_id_foreign";`);
    this.addSql(`alter table "product_textarea" drop constraint "product_textarea_product_id_foreign";`);
    this.addSql(`alter table "product_variant" drop constraint "product_variant_product_id_foreign";`);
    this.addSql(`alter table "line_item" drop constraint "line_item_product_id_foreign";`);
    this.addSql(`alter table "option_thumbnail" drop constraint "option_thumbnail_option_id_foreign";`);
    this.addSql(`alter table "line_item" drop constraint "line_item_variant_id_foreign";`);
    this.addSql(`alter table "variant_image" drop constraint "variant_image_variant_id_foreign";`);
    this.addSql(`alter table "inventory_level" drop constraint "inventory_level_variant_id_foreign";`);
    this.addSql(`alter table "restock_item" drop constraint "restock_item_line_item_id_foreign";`);
    this.addSql(`alter table "shipment_item" drop constraint "shipment_item_line_item_id_foreign";`);
    this.addSql(`alter table "fulfilment_item" drop constraint "fulfilment_item_line_item_id_foreign";`);
    this.addSql(`alter table "shipment" drop constraint "shipment_carrier_id_foreign";`);
    this.addSql(`alter table "restock" drop constraint "restock_warehouse_id_foreign";`);
    this.addSql(`alter table "inventory_level" drop constraint "inventory_level_warehouse_id_foreign";`);
    this.addSql(`alter table "fulfilment" drop constraint "fulfilment_warehouse_id_foreign";`);
    this.addSql(`alter table "restock_item" drop constraint "restock_item_restock_id_foreign";`);
    this.addSql(`alter table "shipment" drop constraint "shipment_fulfilment_id_foreign";`);
    this.addSql(`alter table "fulfilment_item" drop constraint "fulfilment_item_fulfilment_id_foreign";`);
    this.addSql(`alter table "shipment_item" drop constraint "shipment_item_shipment_id_foreign";`);

    this.addSql(`drop table if exists "api_token" cascade;`);
    this.addSql(`drop table if exists "collection" cascade;`);
    this.addSql(`drop table if exists "collection_rule" cascade;`);
    this.addSql(`drop table if exists "customer" cascade;`);
    this.addSql(`drop table if exists "customer_address" cascade;`);
    this.addSql(`drop table if exists "customer_payment_method" cascade;`);
    this.addSql(`drop table if exists "image" cascade;`);
    this.addSql(`drop table if exists "collection_image" cascade;`);
    this.addSql(`drop table if exists "orders" cascade;`);
    this.addSql(`drop table if exists "outbox_message" cascade;`);
    this.addSql(`drop table if exists "product" cascade;`);
    this.addSql(`drop table if exists "collection_product" cascade;`);
    this.addSql(`drop table if exists "product_image" cascade;`);
    this.addSql(`drop table if exists "product_option" cascade;`);
    this.addSql(`drop table if exists "option_thumbnail" cascade;`);
    this.addSql(`drop table if exists "product_textarea" cascade;`);
    this.addSql(`drop table if exists "product_variant" cascade;`);
    this.addSql(`drop table if exists "line_item" cascade;`);
    this.addSql(`drop table if exists "shipping_carrier" cascade;`);
    this.addSql(`drop table if exists "store_settings" cascade;`);
    this.addSql(`drop table if exists "textarea_preset" cascade;`);
    this.addSql(`drop table if exists "variant_image" cascade;`);
    this.addSql(`drop table if exists "warehouse" cascade;`);
    this.addSql(`drop table if exists "restock" cascade;`);
    this.addSql(`drop table if exists "restock_item" cascade;`);
    this.addSql(`drop table if exists "inventory_level" cascade;`);
    this.addSql(`drop table if exists "fulfilment" cascade;`);
    this.addSql(`drop table if exists "shipment" cascade;`);
    this.addSql(`drop table if exists "shipment_item" cascade;`);
    this.addSql(`drop table if exists "fulfilment_item" cascade;`);
  }
}
