import { Args, Authorized, Ctx, FieldResolver, Int, Resolver, Root } from 'type-graphql';
import { memberProductIds } from '../domain/collection-membership.js';
import { CollectionProduct } from '../entities/collection-product.entity.js';
import { CollectionImage } from '../entities/collection-image.entity.js';
import { CollectionRule } from '../entities/collection-rule.entity.js';
import { Collection } from '../entities/collection.entity.js';
import { Image } from '../entities/image.entity.js';
import { Product } from '../entities/product.entity.js';
import type { GraphQLContext } from '../schema/context.js';
import { PageArgs } from '../schema/pagination.js';
import { ProductPage } from './product.resolver.js';

@Resolver(() => Collection)
export class CollectionFieldsResolver {
  @FieldResolver(() => [CollectionRule])
  rules(@Root() collection: Collection, @Ctx() { loaders }: GraphQLContext) {
    return loaders
      .children(
        'collection.rules',
        (em, ids) => em.find(CollectionRule, { collection: { $in: ids } }, { orderBy: [{ collection: 'asc' }, { position: 'asc' }, { id: 'asc' }] }),
        (rule) => rule.collection.id,
      )
      .load(collection.id);
  }

  @FieldResolver(() => [Image])
  async images(@Root() collection: Collection, @Ctx() { loaders }: GraphQLContext): Promise<Image[]> {
    const links = await loaders
      .children(
        'collection.images',
        (em, ids) =>
          em.find(CollectionImage, { collection: { $in: ids } }, { populate: ['image'], orderBy: [{ collection: 'asc' }, { position: 'asc' }, { id: 'asc' }] }),
        (link) => link.collection.id,
      )
      .load(collection.id);
    return links.map((link) => link.image);
  }

  @FieldResolver(() => [Int], { description: 'product ids added by hand (empty for a rule-based collection)' })
  async manualProductIds(@Root() collection: Collection, @Ctx() { loaders }: GraphQLContext): Promise<number[]> {
    const links = await loaders
      .children(
        'collection.manualProducts',
        (em, ids) => em.find(CollectionProduct, { collection: { $in: ids } }, { orderBy: [{ collection: 'asc' }, { position: 'asc' }, { id: 'asc' }] }),
        (link) => link.collection.id,
      )
      .load(collection.id);
    return links.map((link) => link.product.id);
  }

  @FieldResolver(() => [Int], { description: 'ids of the member products: manual links, or the rules evaluated now' })
  async productIds(@Root() collection: Collection, @Ctx() ctx: GraphQLContext): Promise<number[]> {
    const loader = ctx.loaders.children<{ collectionId: number; productId: number }>(
      'collection.productIds',
      async (em, ids) => {
        // One statement each for the collections, their rules and all memberships, whatever the count.
        const collections = await em.find(Collection, { id: { $in: ids } });
        const definitions = await Promise.all(
          collections.map(async (c) => ({ id: c.id, type: c.type, rulesMatchCondition: c.rulesMatchCondition, rules: await this.rules(c, ctx) })),
        );
        const members = await memberProductIds(em, definitions);
        return [...members].flatMap(([collectionId, productIds]) => productIds.map((productId) => ({ collectionId, productId })));
      },
      (row) => row.collectionId,
    );
    return (await loader.load(collection.id)).map((row) => row.productId);
  }

  // Whole products are product data: they need read_products, not just read_collections.
  @Authorized('read_products')
  @FieldResolver(() => ProductPage, { description: 'the member products, a page at a time, in the order of productIds' })
  async products(@Root() collection: Collection, @Args(() => PageArgs) { page, size }: PageArgs, @Ctx() ctx: GraphQLContext): Promise<ProductPage> {
    const ids = await this.productIds(collection, ctx);
    const pageIds = ids.slice((page - 1) * size, page * size);
    const loader = ctx.loaders.byId('product.byId', (em, keys) => em.find(Product, { id: { $in: keys } }));
    const items = (await loader.loadMany(pageIds)).filter((p): p is Product => p instanceof Product);
    return { items, totalCount: ids.length, page, size, pageCount: Math.ceil(ids.length / size) };
  }
}
