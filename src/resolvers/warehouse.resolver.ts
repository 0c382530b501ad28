import type { GraphQLResolveInfo } from 'graphql';
import {
  Arg,
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
import { Warehouse, warehouseList } from '../entities/warehouse.entity.js';
import { readPage, readRecord } from '../reads/read-query.js';
import { selectionOf } from '../reads/selection.js';
import { PageArgs, PageOf } from '../schema/pagination.js';
import type { GraphQLContext } from './context.js';
import { inputGuard } from './input-guard.middleware.js';

@ObjectType({ description: 'A page of warehouses' })
export class WarehousePage extends PageOf(Warehouse) {}

@ArgsType()
export class WarehouseListArgs extends PageArgs {
  @Field(() => [warehouseList.SortInput], {
    nullable: true,
    description: 'Sort terms, applied in order; id always breaks ties',
  })
  sort?: InstanceType<typeof warehouseList.SortInput>[];
}

@Resolver(() => Warehouse)
@UseMiddleware(inputGuard)
export class WarehouseResolver {
  @Authorized('read_inventory')
  @Query(() => WarehousePage, { nullable: true, description: 'Warehouses, one page at a time' })
  warehouses(
    @Args(() => WarehouseListArgs) args: WarehouseListArgs,
    @Ctx() { em }: GraphQLContext,
    @Info() info: GraphQLResolveInfo,
  ) {
    return readPage(em, 'Warehouse', selectionOf(info), {}, args, warehouseList.columns);
  }

  @Authorized('read_inventory')
  @Query(() => Warehouse, {
    nullable: true,
    description: 'One warehouse by id; a missing one is null with a NOT_FOUND error',
  })
  warehouse(
    @Arg('id', () => Int, { description: 'Warehouse id' }) id: number,
    @Ctx() { em }: GraphQLContext,
    @Info() info: GraphQLResolveInfo,
  ) {
    return readRecord(em, info, 'Warehouse', id);
  }
}
