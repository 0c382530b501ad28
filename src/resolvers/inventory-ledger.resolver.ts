import type { GraphQLResolveInfo } from 'graphql';
import {
  Args,
  ArgsType,
  Authorized,
  Ctx,
  Field,
  Info,
  Int,
  ObjectType,
  Query,
  Resolver,
  UseMiddleware,
} from 'type-graphql';
import { InventoryLevel, inventoryLevelList } from '../entities/inventory-level.entity.js';
import { InventoryMovement, inventoryMovementList } from '../entities/inventory-movement.entity.js';
import { readPage } from '../reads/read-query.js';
import { selectionOf } from '../reads/selection.js';
import { PageArgs, PageOf } from '../schema/pagination.js';
import type { GraphQLContext } from './context.js';
import { inputGuard } from './input-guard.middleware.js';

@ObjectType({ description: 'A page of inventory levels' })
export class InventoryLevelPage extends PageOf(InventoryLevel) {}

@ObjectType({ description: 'A page of inventory movements' })
export class InventoryMovementPage extends PageOf(InventoryMovement) {}

/** The filters both lists take: one variant, one warehouse, or both. */
@ArgsType()
class LedgerFilterArgs extends PageArgs {
  @Field(() => Int, { nullable: true, description: 'Only this product variant' })
  variantId?: number | null;

  @Field(() => Int, { nullable: true, description: 'Only this warehouse' })
  warehouseId?: number | null;
}

@ArgsType()
export class InventoryLevelListArgs extends LedgerFilterArgs {
  @Field(() => [inventoryLevelList.SortInput], {
    nullable: true,
    description: 'Sort terms, applied in order; id always breaks ties (default id descending)',
  })
  sort?: InstanceType<typeof inventoryLevelList.SortInput>[];
}

@ArgsType()
export class InventoryMovementListArgs extends LedgerFilterArgs {
  @Field(() => [inventoryMovementList.SortInput], {
    nullable: true,
    description: 'Sort terms, applied in order; id always breaks ties (default newest first, id descending)',
  })
  sort?: InstanceType<typeof inventoryMovementList.SortInput>[];
}

/** The filter of a ledger list on an entity whose variant and warehouse are `variant` and `warehouse`. */
function ledgerWhere(args: LedgerFilterArgs, variant: string, warehouse: string): Record<string, number> {
  return {
    ...(args.variantId != null ? { [variant]: args.variantId } : {}),
    ...(args.warehouseId != null ? { [warehouse]: args.warehouseId } : {}),
  };
}

/** The inventory ledger (docs/decisions.md#inventory-ledger): the levels, and every movement of them. */
@Resolver()
@UseMiddleware(inputGuard)
export class InventoryLedgerResolver {
  @Authorized('read_inventory')
  @Query(() => InventoryLevelPage, {
    nullable: true,
    description:
      'Inventory levels (the units of each variant in each warehouse), optionally of one variant or warehouse',
  })
  inventoryLevels(
    @Args(() => InventoryLevelListArgs) args: InventoryLevelListArgs,
    @Ctx() { em }: GraphQLContext,
    @Info() info: GraphQLResolveInfo,
  ) {
    const where = ledgerWhere(args, 'variant', 'warehouse');
    return readPage(em, 'InventoryLevel', selectionOf(info), where, args, inventoryLevelList.columns);
  }

  @Authorized('read_inventory')
  @Query(() => InventoryMovementPage, {
    nullable: true,
    description:
      'Every change to the units of a variant in a warehouse, newest first, optionally of one variant or warehouse: ' +
      'for each level its units are the sum of its movements’ deltas',
  })
  inventoryMovements(
    @Args(() => InventoryMovementListArgs) args: InventoryMovementListArgs,
    @Ctx() { em }: GraphQLContext,
    @Info() info: GraphQLResolveInfo,
  ) {
    const where = ledgerWhere(args, 'variantId', 'warehouseId');
    return readPage(em, 'InventoryMovement', selectionOf(info), where, args, inventoryMovementList.columns);
  }
}
