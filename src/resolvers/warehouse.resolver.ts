import { Arg, Args, ArgsType, Authorized, Ctx, Field, Int, ObjectType, Query, Resolver, UseMiddleware } from 'type-graphql';
import { NotFoundError } from '../domain/errors.js';
import { findPage } from '../domain/listing.js';
import { Warehouse } from '../entities/warehouse.entity.js';
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
  warehouses(@Args(() => WarehouseListArgs) args: WarehouseListArgs, @Ctx() { em }: GraphQLContext) {
    return findPage(em, Warehouse, {}, args, warehouseSort.columns);
  }

  @Authorized('read_inventory')
  @Query(() => Warehouse, { nullable: true })
  async warehouse(@Arg('id', () => Int) id: number, @Ctx() { em }: GraphQLContext) {
    const warehouse = await em.findOne(Warehouse, { id });
    if (!warehouse) throw new NotFoundError('Warehouse', id);
    return warehouse;
  }
}
