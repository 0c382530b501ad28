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
  Mutation,
  ObjectType,
  Query,
  Resolver,
  UseMiddleware,
} from 'type-graphql';
import { metafieldCondition } from '../domain/metafield-search.js';
import type { ExpectedVersion } from '../domain/preconditions.js';
import { createProduct, deleteProduct, updateProduct } from '../domain/product-edit.js';
import { productWhere } from '../domain/product-search.js';
import { inTransaction } from '../domain/transaction.js';
import { Product, type ProductFilter, productList } from '../entities/product.entity.js';
import { readPage, readRecord } from '../reads/read-query.js';
import { selectionOf } from '../reads/selection.js';
import { MetafieldOwnerType } from '../schema/enums/metafield-owner-type.enum.js';
import { ExpectedVersionArg } from '../schema/expected-version.arg.js';
import { ProductCreate, ProductPatch } from '../schema/inputs/product.inputs.js';
import { KeysetPageArgs, PageOf } from '../schema/pagination.js';
import type { GraphQLContext } from './context.js';
import { inputGuard } from './input-guard.middleware.js';

@ObjectType({ description: 'A page of products' })
export class ProductPage extends PageOf(Product) {}

@ArgsType()
export class ProductListArgs extends KeysetPageArgs {
  @Field(() => [productList.SortInput], {
    nullable: true,
    description: 'Earlier terms take precedence; id closes the order',
  })
  sort?: InstanceType<typeof productList.SortInput>[];

  @Field(() => productList.FilterInput, { nullable: true, description: 'Only products matching every given filter' })
  filter?: ProductFilter;
}

@Resolver(() => Product)
@UseMiddleware(inputGuard)
export class ProductResolver {
  @Authorized('read_products')
  @Query(() => ProductPage, { nullable: true, description: 'Products, a page at a time' })
  async products(
    @Args(() => ProductListArgs) args: ProductListArgs,
    @Ctx() { em }: GraphQLContext,
    @Info() info: GraphQLResolveInfo,
  ) {
    // Only a metafields filter reads their definitions first (a statement of its own).
    const metafields = await metafieldCondition(em, MetafieldOwnerType.PRODUCT, args.filter?.metafields);
    return readPage(em, 'Product', selectionOf(info), productWhere(args.filter, metafields), args, productList.columns);
  }

  @Authorized('read_products')
  @Query(() => Product, {
    nullable: true,
    description: 'One product by id; a missing one is null with a NOT_FOUND error',
  })
  product(
    @Arg('id', () => Int, { description: 'Product id' }) id: number,
    @Ctx() { em }: GraphQLContext,
    @Info() info: GraphQLResolveInfo,
  ) {
    return readRecord(em, info, 'Product', id);
  }

  @Authorized('write_products')
  @Mutation(() => Product, {
    description: 'A new product; a single-variant one gets its one variant, seoUrl is derived when not given',
  })
  async createProduct(
    @Arg('input', () => ProductCreate, { description: 'The new product' }) input: ProductCreate,
    @Ctx() { em, principal }: GraphQLContext,
    @Info() info: GraphQLResolveInfo,
  ) {
    const result = await inTransaction(em, (tx) => createProduct(tx, principal, input));
    return readRecord(em, info, 'Product', result.id);
  }

  @Authorized('write_products')
  @Mutation(() => Product, {
    description:
      'Changes the given fields; lists given replace the set; a variant keeps its id while its combination stays',
  })
  async updateProduct(
    @Arg('id', () => Int, { description: 'Product id' }) id: number,
    @Arg('input', () => ProductPatch, { description: 'Fields to change' }) input: ProductPatch,
    @ExpectedVersionArg('product') expectedVersion: ExpectedVersion,
    @Ctx() { em, principal }: GraphQLContext,
    @Info() info: GraphQLResolveInfo,
  ) {
    const result = await inTransaction(em, (tx) => updateProduct(tx, principal, id, input, expectedVersion));
    return readRecord(em, info, 'Product', result.id);
  }

  @Authorized('write_products')
  @Mutation(() => Int, {
    description: 'Deletes a product with its variants and stock; orders keep their line items; returns its id',
  })
  deleteProduct(
    @Arg('id', () => Int, { description: 'Product id' }) id: number,
    @ExpectedVersionArg('product') expectedVersion: ExpectedVersion,
    @Ctx() { em, principal }: GraphQLContext,
  ) {
    return inTransaction(em, (tx) => deleteProduct(tx, principal, id, expectedVersion));
  }
}
