import { Migration } from '@mikro-orm/migrations';

/**
 * A product PATCH giving its options in another order reorders its variants' stored values
 * (product-variants.ts): variants whose values swap places (Top [Red, Blue] / Bottom [Red, Blue])
 * met the unique (product_id, option_values) row by row, and a removed variant still held its
 * combination until the deletes after the updates: a 409. The constraint is now deferrable
 * (immediate unless a write defers it), and a reordering write checks it at its commit.
 */
export class Migration20261207090000_variant_values_deferrable extends Migration {
  override name = 'Migration20261207090000_variant_values_deferrable';

  override up(): void | Promise<void> {
    this.addSql(`alter table "product_variant" drop constraint "product_variant_product_id_option_values_unique",
      add constraint "product_variant_product_id_option_values_unique" unique ("product_id", "option_values")
      deferrable initially immediate;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "product_variant" drop constraint "product_variant_product_id_option_values_unique",
      add constraint "product_variant_product_id_option_values_unique" unique ("product_id", "option_values");`);
  }
}
