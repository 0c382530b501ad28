import type { GraphQLResolveInfo } from 'graphql';
import { Arg, Args, ArgsType, Authorized, Ctx, Field, Int, Mutation, ObjectType, Query, Resolver, UseMiddleware, Info } from 'type-graphql';
import { createCollection, deleteCollection, updateCollection } from '../domain/collection-edit.js';
import { inTransaction } from '../domain/transaction.js';
import { Collection } from '../entities/collection.entity.js';
import { readPage, readRecord } from '../reads/read-query.js';
import { selectionOf } from '../reads/selection.js';
import type { GraphQLContext } from '../schema/context.js';
import { CollectionInput } from '../schema/inputs/collection.inputs.js';
import { PageArgs, PageOf, sortableFields } from '../schema/pagination.js';
import { inputGuard } from '../schema/input-guard.middleware.js';

export const collectionSort = sortableFields('Collection', {
  id: 'id',
  title: 'title',
  type: 'type',
  isDraft: 'isDraft',
  seoUrl: 'seoUrl',
  seoTitle: 'seoTitle',
  createdAt: 'createdAt',
  updatedAt: 'updatedAt',
});

@ObjectType()
export class CollectionPage extends PageOf(Collection) {}

@ArgsType()
export class CollectionListArgs extends PageArgs {
  @Field(() => [collectionSort.SortInput], { nullable: true })
  sort?: InstanceType<typeof collectionSort.SortInput>[];
}

@Resolver(() => Collection)
@UseMiddleware(inputGuard)
export class CollectionResolver {
  @Authorized('read_collections')
  @Query(() => CollectionPage, { nullable: true })
  collections(@Args(() => CollectionListArgs) args: CollectionListArgs, @Ctx() { em }: GraphQLContext, @Info() info: GraphQLResolveInfo) {
    return readPage(em, 'Collection', selectionOf(info), {}, args, collectionSort.columns);
  }

  @Authorized('read_collections')
  @Query(() => Collection, { nullable: true })
  collection(@Arg('id', () => Int) id: number, @Ctx() { em }: GraphQLContext, @Info() info: GraphQLResolveInfo) {
    return readRecord(em, info, 'Collection', id);
  }

  @Authorized('write_collections')
  @Mutation(() => Collection)
  async createCollection(@Arg('input', () => CollectionInput) input: CollectionInput, @Ctx() { em, principal }: GraphQLContext, @Info() info: GraphQLResolveInfo) {
    const result = await inTransaction(em, (tx) => createCollection(tx, principal, input));
    return readRecord(em, info, 'Collection', result.id);
  }

  @Authorized('write_collections')
  @Mutation(() => Collection, { description: 'Rewrites the collection; omitted optional fields are kept, lists given replace the set' })
  async updateCollection(@Arg('id', () => Int) id: number, @Arg('input', () => CollectionInput) input: CollectionInput, @Ctx() { em, principal }: GraphQLContext, @Info() info: GraphQLResolveInfo) {
    const result = await inTransaction(em, (tx) => updateCollection(tx, principal, id, input));
    return readRecord(em, info, 'Collection', result.id);
  }

  @Authorized('write_collections')
  @Mutation(() => Int, { description: 'Deletes a collection (its products stay); returns its id' })
  deleteCollection(@Arg('id', () => Int) id: number, @Ctx() { em, principal }: GraphQLContext) {
    return inTransaction(em, (tx) => deleteCollection(tx, principal, id));
  }
}
