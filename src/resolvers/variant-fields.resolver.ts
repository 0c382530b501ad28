import { Ctx, FieldResolver, Int, Resolver, Root } from 'type-graphql';
import { Image } from '../entities/image.entity.js';
import { ProductVariant } from '../entities/product-variant.entity.js';
import { VariantImage } from '../entities/variant-image.entity.js';
import type { GraphQLContext } from '../schema/context.js';

@Resolver(() => ProductVariant)
export class VariantFieldsResolver {
  @FieldResolver(() => Int)
  productId(@Root() variant: ProductVariant): number {
    return variant.product.id;
  }

  @FieldResolver(() => [Image], { description: "the variant's own images, used when it changes the look" })
  async images(@Root() variant: ProductVariant, @Ctx() { loaders }: GraphQLContext): Promise<Image[]> {
    // Variants read by the product's loader come with their images; others load them batched.
    if (variant.images.isInitialized()) return variant.images.getItems().map((link) => link.image);
    const links = await loaders
      .children(
        'variant.images',
        (em, ids) =>
          em.find(VariantImage, { variant: { $in: ids } }, { populate: ['image'], orderBy: [{ variant: 'asc' }, { position: 'asc' }, { id: 'asc' }] }),
        (link) => link.variant.id,
      )
      .load(variant.id);
    return links.map((link) => link.image);
  }
}
