import { Arg, Args, ArgsType, Authorized, Ctx, Field, Int, Mutation, ObjectType, Query, Resolver, UseMiddleware } from 'type-graphql';
import { NotFoundError } from '../domain/errors.js';
import { findPage } from '../domain/listing.js';
import { createProduct, deleteProduct, updateProduct } from '../domain/product-edit.js';
import { inTransaction } from '../domain/transaction.js';
import { Product } from '../entities/product.entity.js';
import type { GraphQLContext } from '../schema/context.js';
import { ProductCreate, ProductPatch } from '../schema/inputs/product.inputs.js';
import { PageArgs, PageOf, sortableFields } from '../schema/pagination.js';
import { inputGuard } from '../schema/input-guard.middleware.js';

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
@UseMiddleware(inputGuard)
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

  @Authorized('write_products')
  @Mutation(() => Product, { description: 'A new product; a single-variant one gets its one variant, seoUrl is derived when not given' })
  createProduct(@Arg('input', () => ProductCreate) input: ProductCreate, @Ctx() { em, principal }: GraphQLContext) {
    return inTransaction(em, (tx) => createProduct(tx, principal, input));
  }

  @Authorized('write_products')
  @Mutation(() => Product, { description: 'Changes the given fields; lists given replace the set; a variant keeps its id while its combination stays' })
  updateProduct(@Arg('id', () => Int) id: number, @Arg('input', () => ProductPatch) input: ProductPatch, @Ctx() { em, principal }: GraphQLContext) {
    return inTransaction(em, (tx) => updateProduct(tx, principal, id, input));
  }

  @Authorized('write_products')
  @Mutation(() => Int, { description: 'Deletes a product with its variants and stock; orders keep their line items; returns its id' })
  deleteProduct(@Arg('id', () => Int) id: number, @Ctx() { em, principal }: GraphQLContext) {
    return inTransaction(em, (tx) => deleteProduct(tx, principal, id));
  }
}
