import type { GraphQLResolveInfo } from 'graphql';
import { Args, ArgsType, Authorized, Ctx, Field, Info, ObjectType, Query, Resolver, UseMiddleware } from 'type-graphql';
import { ShippingCarrier, shippingCarrierList } from '../entities/shipping-carrier.entity.js';
import { readPage } from '../reads/read-query.js';
import { selectionOf } from '../reads/selection.js';
import { PageArgs, PageOf } from '../schema/pagination.js';
import type { GraphQLContext } from './context.js';
import { inputGuard } from './input-guard.middleware.js';

@ObjectType({ description: 'A page of shipping carriers' })
export class ShippingCarrierPage extends PageOf(ShippingCarrier) {}

@ArgsType()
export class ShippingCarrierListArgs extends PageArgs {
  @Field(() => [shippingCarrierList.SortInput], {
    nullable: true,
    description: 'Sort terms, applied in order; id always breaks ties',
  })
  sort?: InstanceType<typeof shippingCarrierList.SortInput>[];
}

@Resolver(() => ShippingCarrier)
@UseMiddleware(inputGuard)
export class ShippingCarrierResolver {
  @Authorized('read_shipping')
  @Query(() => ShippingCarrierPage, {
    nullable: true,
    description: 'Shipping carriers, deleted ones included (see isDeleted)',
  })
  shippingCarriers(
    @Args(() => ShippingCarrierListArgs) args: ShippingCarrierListArgs,
    @Ctx() { em }: GraphQLContext,
    @Info() info: GraphQLResolveInfo,
  ) {
    return readPage(em, 'ShippingCarrier', selectionOf(info), {}, args, shippingCarrierList.columns);
  }
}
