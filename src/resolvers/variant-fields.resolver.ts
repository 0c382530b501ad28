import { FieldResolver, Int, Resolver, Root } from 'type-graphql';
import { Image } from '../entities/image.entity.js';
import { ProductVariant } from '../entities/product-variant.entity.js';
import { loaded, type ReadRow } from '../reads/read-model.js';

@Resolver(() => ProductVariant)
export class VariantFieldsResolver {
  @FieldResolver(() => Int)
  productId(@Root() variant: ReadRow<ProductVariant>): number {
    return variant.product.id;
  }

  @FieldResolver(() => [Image], { description: "the variant's own images, used when it changes the look" })
  images(@Root() variant: ReadRow<ProductVariant>): Image[] {
    return loaded(variant, 'images');
  }
}
