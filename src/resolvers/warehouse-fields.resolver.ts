import { FieldResolver, Int, Resolver, Root } from 'type-graphql';
import { InventoryLevel } from '../entities/inventory-level.entity.js';
import { Warehouse } from '../entities/warehouse.entity.js';
import { loaded, type ReadRow } from '../reads/read-model.js';

@Resolver(() => Warehouse)
export class WarehouseFieldsResolver {
  @FieldResolver(() => [InventoryLevel], { description: 'units held, per variant' })
  stock(@Root() warehouse: ReadRow<Warehouse>): InventoryLevel[] {
    return loaded(warehouse, 'stock');
  }
}

@Resolver(() => InventoryLevel)
export class InventoryLevelFieldsResolver {
  @FieldResolver(() => Int)
  variantId(@Root() level: ReadRow<InventoryLevel>): number {
    return level.variant.id;
  }

  @FieldResolver(() => Int)
  warehouseId(@Root() level: ReadRow<InventoryLevel>): number {
    return level.warehouse.id;
  }
}
