import { FieldResolver, Int, Resolver, Root } from 'type-graphql';
import { InventoryLevel } from '../entities/inventory-level.entity.js';
import { Warehouse } from '../entities/warehouse.entity.js';
import { loaded, RowProperty, type ReadRow } from '../reads/read-model.js';

@Resolver(() => Warehouse)
export class WarehouseFieldsResolver {
  @RowProperty()
  @FieldResolver(() => [InventoryLevel], { description: 'Units held, per variant' })
  stock(@Root() warehouse: ReadRow<Warehouse>): InventoryLevel[] {
    return loaded(warehouse, 'stock');
  }
}

@Resolver(() => InventoryLevel)
export class InventoryLevelFieldsResolver {
  @FieldResolver(() => Int, { description: 'Product variant id' })
  variantId(@Root() level: ReadRow<InventoryLevel>): number {
    return level.variant.id;
  }

  @FieldResolver(() => Int, { description: 'Warehouse id' })
  warehouseId(@Root() level: ReadRow<InventoryLevel>): number {
    return level.warehouse.id;
  }
}
