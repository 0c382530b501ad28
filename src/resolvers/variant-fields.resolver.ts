import { FieldResolver, Int, Resolver, Root } from 'type-graphql';
import { Image } from '../entities/image.entity.js';
import { ProductVariant } from '../entities/product-variant.entity.js';
import { loaded, RowProperty, type ReadRow } from '../reads/read-model.js';

@Resolver(() => ProductVariant)
export class VariantFieldsResolver {
  @FieldResolver(() => Int, { description: 'Product id' })
  productId(@Root() variant: ReadRow<ProductVariant>): number {
    return variant.product.id;
  }

  @RowProperty()
  @FieldResolver(() => [Image], { description: "The variant's own images, used when it changes the look" })
  images(@Root() variant: ReadRow<ProductVariant>): Image[] {
    return loaded(variant, 'images');
  }
}
