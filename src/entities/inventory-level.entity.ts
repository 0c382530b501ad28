import type { Rel } from '@mikro-orm/core';
import { Check, Entity, Index, ManyToOne, PrimaryKey, Property, Unique } from '@mikro-orm/decorators/legacy';
import { Field, Int, ObjectType } from 'type-graphql';
import { listFields } from '../schema/list-fields.js';
import { ProductVariant } from './product-variant.entity.js';
import { Warehouse } from './warehouse.entity.js';

/**
 * Units of one variant held in one warehouse; the database refuses a negative level. Every change
 * of its units is an InventoryMovement written in the same transaction.
 */
@ObjectType({ description: 'Stock of one variant in one warehouse' })
@Entity()
@Unique({ properties: ['warehouse', 'variant'] })
@Index({ properties: ['variant'] })
@Check({ name: 'inventory_level_quantity_non_negative', expression: 'quantity >= 0' })
export class InventoryLevel {
  @Field(() => Int, { description: 'Inventory level id' })
  @PrimaryKey({ type: 'integer' })
  id!: number;

  @ManyToOne({ entity: () => Warehouse, deleteRule: 'cascade' })
  warehouse!: Rel<Warehouse>;

  @ManyToOne({ entity: () => ProductVariant, deleteRule: 'cascade' })
  variant!: Rel<ProductVariant>;

  @Field(() => Int, { description: 'Units in stock' })
  @Property({ type: 'integer', default: 0 })
  quantity: number = 0;
}

/** What a list of inventory levels sorts by (src/schema/list-fields.ts). */
export const inventoryLevelList = listFields(InventoryLevel, {
  id: { sort: true },
  variantId: { column: 'variant', sort: true },
  warehouseId: { column: 'warehouse', sort: true },
  quantity: { sort: true },
});
