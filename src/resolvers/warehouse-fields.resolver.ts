import { FieldResolver, Int, Resolver, Root } from 'type-graphql';
import { InventoryLevel } from '../entities/inventory-level.entity.js';
import { Projects } from '../reads/field-reads.js';
import { projectRow } from '../reads/projection.js';
import type { ReadRow } from '../reads/read-row.js';

// The references' ids, declared (`@Projects`) so that PostgreSQL can write a page of levels itself
// (src/graphql/answer-passthrough.ts): GET /inventory-levels and a warehouse's `expand=stock`.
@Resolver(() => InventoryLevel)
export class InventoryLevelFieldsResolver {
  @Projects('variant')
  @FieldResolver(() => Int, { description: 'Product variant id' })
  variantId(@Root() level: ReadRow<InventoryLevel>): number {
    return projectRow(level, 'variant');
  }

  @Projects('warehouse')
  @FieldResolver(() => Int, { description: 'Warehouse id' })
  warehouseId(@Root() level: ReadRow<InventoryLevel>): number {
    return projectRow(level, 'warehouse');
  }
}
