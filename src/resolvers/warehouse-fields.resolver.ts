import { FieldResolver, Int, Resolver, Root } from 'type-graphql';
import { InventoryLevel } from '../entities/inventory-level.entity.js';
import { Reads } from '../reads/field-reads.js';
import type { ReadRow } from '../reads/read-row.js';

@Resolver(() => InventoryLevel)
export class InventoryLevelFieldsResolver {
  @Reads('variant')
  @FieldResolver(() => Int, { description: 'Product variant id' })
  variantId(@Root() level: ReadRow<InventoryLevel>): number {
    return level.variant;
  }

  @Reads('warehouse')
  @FieldResolver(() => Int, { description: 'Warehouse id' })
  warehouseId(@Root() level: ReadRow<InventoryLevel>): number {
    return level.warehouse;
  }
}
