import { Arg, Args, ArgsType, Authorized, Ctx, Field, Int, Mutation, ObjectType, Query, Resolver, UseMiddleware } from 'type-graphql';
import { createCollection, deleteCollection, updateCollection } from '../domain/collection-edit.js';
import { NotFoundError } from '../domain/errors.js';
import { findPage } from '../domain/listing.js';
import { inTransaction } from '../domain/transaction.js';
import { Collection } from '../entities/collection.entity.js';
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
  collections(@Args(() => CollectionListArgs) args: CollectionListArgs, @Ctx() { em }: GraphQLContext) {
    return findPage(em, Collection, {}, args, collectionSort.columns);
  }

  @Authorized('read_collections')
  @Query(() => Collection, { nullable: true })
  async collection(@Arg('id', () => Int) id: number, @Ctx() { em }: GraphQLContext) {
    const collection = await em.findOne(Collection, { id });
    if (!collection) throw new NotFoundError('Collection', id);
    return collection;
  }

  @Authorized('write_collections')
  @Mutation(() => Collection)
  createCollection(@Arg('input', () => CollectionInput) input: CollectionInput, @Ctx() { em, principal }: GraphQLContext) {
    return inTransaction(em, (tx) => createCollection(tx, principal, input));
  }

  @Authorized('write_collections')
  @Mutation(() => Collection, { description: 'Rewrites the collection; omitted optional fields are kept, lists given replace the set' })
  updateCollection(@Arg('id', () => Int) id: number, @Arg('input', () => CollectionInput) input: CollectionInput, @Ctx() { em, principal }: GraphQLContext) {
    return inTransaction(em, (tx) => updateCollection(tx, principal, id, input));
  }

  @Authorized('write_collections')
  @Mutation(() => Int, { description: 'Deletes a collection (its products stay); returns its id' })
  deleteCollection(@Arg('id', () => Int) id: number, @Ctx() { em, principal }: GraphQLContext) {
    return inTransaction(em, (tx) => deleteCollection(tx, principal, id));
  }
}
