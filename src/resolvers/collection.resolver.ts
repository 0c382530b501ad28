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
import { createCollection, deleteCollection, updateCollection } from '../domain/collection-edit.js';
import type { ExpectedVersion } from '../domain/preconditions.js';
import { inTransaction } from '../domain/transaction.js';
import { Collection, collectionList } from '../entities/collection.entity.js';
import { readPage, readRecord } from '../reads/read-query.js';
import { selectionOf } from '../reads/selection.js';
import { ExpectedVersionArg } from '../schema/expected-version.arg.js';
import { CollectionInput } from '../schema/inputs/collection.inputs.js';
import { PageArgs, PageOf } from '../schema/pagination.js';
import type { GraphQLContext } from './context.js';
import { inputGuard } from './input-guard.middleware.js';

@ObjectType({ description: 'A page of collections' })
export class CollectionPage extends PageOf(Collection) {}

@ArgsType()
export class CollectionListArgs extends PageArgs {
  @Field(() => [collectionList.SortInput], {
    nullable: true,
    description: 'Sort terms, applied in order; id always breaks ties',
  })
  sort?: InstanceType<typeof collectionList.SortInput>[];
}

@Resolver(() => Collection)
@UseMiddleware(inputGuard)
export class CollectionResolver {
  @Authorized('read_collections')
  @Query(() => CollectionPage, { nullable: true, description: 'Collections, one page at a time' })
  collections(
    @Args(() => CollectionListArgs) args: CollectionListArgs,
    @Ctx() { em }: GraphQLContext,
    @Info() info: GraphQLResolveInfo,
  ) {
    return readPage(em, 'Collection', selectionOf(info), {}, args, collectionList.columns);
  }

  @Authorized('read_collections')
  @Query(() => Collection, {
    nullable: true,
    description: 'One collection by id; a missing one is null with a NOT_FOUND error',
  })
  collection(
    @Arg('id', () => Int, { description: 'Collection id' }) id: number,
    @Ctx() { em }: GraphQLContext,
    @Info() info: GraphQLResolveInfo,
  ) {
    return readRecord(em, info, 'Collection', id);
  }

  @Authorized('write_collections')
  @Mutation(() => Collection, { description: 'Creates a manual (type 0) or rule-based (type 1) collection' })
  async createCollection(
    @Arg('input', () => CollectionInput, { description: 'The new collection' }) input: CollectionInput,
    @Ctx() { em, principal }: GraphQLContext,
    @Info() info: GraphQLResolveInfo,
  ) {
    const result = await inTransaction(em, (tx) => createCollection(tx, principal, input));
    return readRecord(em, info, 'Collection', result.id);
  }

  @Authorized('write_collections')
  @Mutation(() => Collection, {
    description: 'Rewrites the collection; omitted optional fields are kept, lists given replace the set',
  })
  async updateCollection(
    @Arg('id', () => Int, { description: 'Collection id' }) id: number,
    @Arg('input', () => CollectionInput, { description: 'The collection as it should be' }) input: CollectionInput,
    @ExpectedVersionArg('collection') expectedVersion: ExpectedVersion,
    @Ctx() { em, principal }: GraphQLContext,
    @Info() info: GraphQLResolveInfo,
  ) {
    const result = await inTransaction(em, (tx) => updateCollection(tx, principal, id, input, expectedVersion));
    return readRecord(em, info, 'Collection', result.id);
  }

  @Authorized('write_collections')
  @Mutation(() => Int, { description: 'Deletes a collection (its products stay); returns its id' })
  deleteCollection(
    @Arg('id', () => Int, { description: 'Collection id' }) id: number,
    @ExpectedVersionArg('collection') expectedVersion: ExpectedVersion,
    @Ctx() { em, principal }: GraphQLContext,
  ) {
    return inTransaction(em, (tx) => deleteCollection(tx, principal, id, expectedVersion));
  }
}
