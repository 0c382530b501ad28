import { Ctx, FieldResolver, Int, Resolver, Root } from 'type-graphql';
import { InventoryLevel } from '../entities/inventory-level.entity.js';
import { Warehouse } from '../entities/warehouse.entity.js';
import type { GraphQLContext } from '../schema/context.js';

@Resolver(() => Warehouse)
export class WarehouseFieldsResolver {
  @FieldResolver(() => [InventoryLevel], { description: 'units held, per variant' })
  stock(@Root() warehouse: Warehouse, @Ctx() { loaders }: GraphQLContext) {
    return loaders
      .children(
        'warehouse.stock',
        (em, ids) => em.find(InventoryLevel, { warehouse: { $in: ids } }, { orderBy: [{ warehouse: 'asc' }, { variant: 'asc' }] }),
        (level) => level.warehouse.id,
      )
      .load(warehouse.id);
  }
}

@Resolver(() => InventoryLevel)
export class InventoryLevelFieldsResolver {
  @FieldResolver(() => Int)
  variantId(@Root() level: InventoryLevel): number {
    return level.variant.id;
  }

  @FieldResolver(() => Int)
  warehouseId(@Root() level: InventoryLevel): number {
    return level.warehouse.id;
  }
}
