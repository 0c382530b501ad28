import { Authorized, Ctx, FieldResolver, Int, Resolver, Root } from 'type-graphql';
import { Collection, CollectionType } from '../entities/collection.entity.js';
import { CollectionProduct } from '../entities/collection-product.entity.js';
import { Image } from '../entities/image.entity.js';
import { ProductImage } from '../entities/product-image.entity.js';
import { ProductOption } from '../entities/product-option.entity.js';
import { ProductTextarea } from '../entities/product-textarea.entity.js';
import { ProductVariant } from '../entities/product-variant.entity.js';
import { Product } from '../entities/product.entity.js';
import type { GraphQLContext } from '../schema/context.js';

/** A product's relations, each batched across every product of the response. */
@Resolver(() => Product)
export class ProductFieldsResolver {
  @FieldResolver(() => [ProductVariant])
  variants(@Root() product: Product, @Ctx() { loaders }: GraphQLContext) {
    return loaders
      .children(
        'product.variants',
        (em, ids) =>
          // With their image links and images, joined: the variant field resolver uses them (one statement, not two).
          em.find(ProductVariant, { product: { $in: ids } }, {
            populate: ['images', 'images.image'],
            strategy: 'joined',
            orderBy: [{ product: 'asc' }, { position: 'asc' }, { id: 'asc' }, { images: { position: 'asc', id: 'asc' } }],
          } as never),
        (v) => v.product.id,
      )
      .load(product.id);
  }

  @FieldResolver(() => [ProductOption])
  options(@Root() product: Product, @Ctx() { loaders }: GraphQLContext) {
    return loaders
      .children(
        'product.options',
        (em, ids) =>
          // With their thumbnails and the thumbnails' images, joined (one statement, not two).
          em.find(ProductOption, { product: { $in: ids } }, {
            populate: ['thumbnails', 'thumbnails.image'],
            strategy: 'joined',
            orderBy: [{ product: 'asc' }, { position: 'asc' }, { id: 'asc' }, { thumbnails: { position: 'asc', id: 'asc' } }],
          } as never),
        (o) => o.product.id,
      )
      .load(product.id);
  }

  @FieldResolver(() => [ProductTextarea])
  textareas(@Root() product: Product, @Ctx() { loaders }: GraphQLContext) {
    return loaders
      .children(
        'product.textareas',
        (em, ids) => em.find(ProductTextarea, { product: { $in: ids } }, { orderBy: [{ product: 'asc' }, { position: 'asc' }, { id: 'asc' }] }),
        (t) => t.product.id,
      )
      .load(product.id);
  }

  @FieldResolver(() => [Image], { description: 'used when no option changes the look' })
  async images(@Root() product: Product, @Ctx() { loaders }: GraphQLContext): Promise<Image[]> {
    const links = await loaders
      .children(
        'product.images',
        (em, ids) =>
          em.find(ProductImage, { product: { $in: ids } }, { populate: ['image'], orderBy: [{ product: 'asc' }, { position: 'asc' }, { id: 'asc' }] }),
        (link) => link.product.id,
      )
      .load(product.id);
    return links.map((link) => link.image);
  }

  @FieldResolver(() => [Int], { description: 'ids of the manual collections holding the product (rule-based ones are not listed)' })
  async collectionIds(@Root() product: Product, @Ctx() ctx: GraphQLContext): Promise<number[]> {
    return (await this.manualLinks(product, ctx)).map((link) => link.collection.id);
  }

  // Whole collections are collection data: they need read_collections, not just read_products.
  @Authorized('read_collections')
  @FieldResolver(() => [Collection], { description: 'manual collections holding the product (rule-based ones are not listed)' })
  async collections(@Root() product: Product, @Ctx() ctx: GraphQLContext): Promise<Collection[]> {
    return (await this.manualLinks(product, ctx)).map((link) => link.collection);
  }

  private manualLinks(product: Product, { loaders }: GraphQLContext) {
    return loaders
      .children(
        'product.collections',
        (em, ids) =>
          em.find(
            CollectionProduct,
            { product: { $in: ids }, collection: { type: CollectionType.Manual } },
            { populate: ['collection'], orderBy: [{ product: 'asc' }, { collection: 'asc' }] },
          ),
        (link) => link.product.id,
      )
      .load(product.id);
  }
}
