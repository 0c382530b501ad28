import { Args, Arg, Authorized, Ctx, Field, Int, ObjectType, Query, Resolver, ArgsType } from 'type-graphql';
import { NotFoundError } from '../domain/errors.js';
import { findPage } from '../domain/listing.js';
import { Product } from '../entities/product.entity.js';
import type { GraphQLContext } from '../schema/context.js';
import { PageArgs, PageOf, sortableFields } from '../schema/pagination.js';

export const productSort = sortableFields('Product', {
  id: 'id',
  title: 'title',
  type: 'type',
  vendor: 'vendor',
  sku: 'sku',
  price: 'price',
  comparePrice: 'comparePrice',
  shippingWeight: 'shippingWeight',
  isDraft: 'isDraft',
  isTemplate: 'isTemplate',
  isMulti: 'isMulti',
  seoUrl: 'seoUrl',
  createdAt: 'createdAt',
  updatedAt: 'updatedAt',
});

@ObjectType()
export class ProductPage extends PageOf(Product) {}

@ArgsType()
export class ProductListArgs extends PageArgs {
  @Field(() => [productSort.SortInput], { nullable: true, description: 'earlier terms take precedence; id closes the order' })
  sort?: InstanceType<typeof productSort.SortInput>[];
}

@Resolver(() => Product)
export class ProductResolver {
  @Authorized('read_products')
  @Query(() => ProductPage, { nullable: true, description: 'Products, a page at a time' })
  products(@Args(() => ProductListArgs) args: ProductListArgs, @Ctx() { em }: GraphQLContext) {
    return findPage(em, Product, {}, args, productSort.columns);
  }

  @Authorized('read_products')
  @Query(() => Product, { nullable: true })
  async product(@Arg('id', () => Int) id: number, @Ctx() { em }: GraphQLContext) {
    const product = await em.findOne(Product, { id });
    if (!product) throw new NotFoundError('Product', id);
    return product;
  }
}
