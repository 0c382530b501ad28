import { Arg, Args, ArgsType, Authorized, Ctx, Field, Int, ObjectType, Query, Resolver } from 'type-graphql';
import { NotFoundError } from '../domain/errors.js';
import { findPage } from '../domain/listing.js';
import { Collection } from '../entities/collection.entity.js';
import type { GraphQLContext } from '../schema/context.js';
import { PageArgs, PageOf, sortableFields } from '../schema/pagination.js';

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
}
