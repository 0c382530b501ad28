import type { GraphQLResolveInfo } from 'graphql';
import { Arg, Args, ArgsType, Authorized, Ctx, Field, Int, ObjectType, Query, Resolver, UseMiddleware, Info } from 'type-graphql';
import { Warehouse } from '../entities/warehouse.entity.js';
import { readPage, readRecord } from '../reads/read-query.js';
import { selectionOf } from '../reads/selection.js';
import type { GraphQLContext } from '../schema/context.js';
import { PageArgs, PageOf, sortableFields } from '../schema/pagination.js';
import { inputGuard } from '../schema/input-guard.middleware.js';

export const warehouseSort = sortableFields('Warehouse', { id: 'id', title: 'title' });

@ObjectType()
export class WarehousePage extends PageOf(Warehouse) {}

@ArgsType()
export class WarehouseListArgs extends PageArgs {
  @Field(() => [warehouseSort.SortInput], { nullable: true })
  sort?: InstanceType<typeof warehouseSort.SortInput>[];
}

@Resolver(() => Warehouse)
@UseMiddleware(inputGuard)
export class WarehouseResolver {
  @Authorized('read_inventory')
  @Query(() => WarehousePage, { nullable: true })
  warehouses(@Args(() => WarehouseListArgs) args: WarehouseListArgs, @Ctx() { em }: GraphQLContext, @Info() info: GraphQLResolveInfo) {
    return readPage(em, 'Warehouse', selectionOf(info), {}, args, warehouseSort.columns);
  }

  @Authorized('read_inventory')
  @Query(() => Warehouse, { nullable: true })
  warehouse(@Arg('id', () => Int) id: number, @Ctx() { em }: GraphQLContext, @Info() info: GraphQLResolveInfo) {
    return readRecord(em, info, 'Warehouse', id);
  }
}
