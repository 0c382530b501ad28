import { Authorized, FieldResolver, Int, Resolver, Root } from 'type-graphql';
import { Collection } from '../entities/collection.entity.js';
import { Image } from '../entities/image.entity.js';
import { ProductOption } from '../entities/product-option.entity.js';
import { ProductTextarea } from '../entities/product-textarea.entity.js';
import { ProductVariant } from '../entities/product-variant.entity.js';
import { Product } from '../entities/product.entity.js';
import { loaded } from '../reads/read-model.js';

/** A product's relations, aggregated into the product's own statement by the read model. */
@Resolver(() => Product)
export class ProductFieldsResolver {
  @FieldResolver(() => [ProductVariant])
  variants(@Root() product: Product): ProductVariant[] {
    return loaded(product, 'variants');
  }

  @FieldResolver(() => [ProductOption])
  options(@Root() product: Product): ProductOption[] {
    return loaded(product, 'options');
  }

  @FieldResolver(() => [ProductTextarea])
  textareas(@Root() product: Product): ProductTextarea[] {
    return loaded(product, 'textareas');
  }

  @FieldResolver(() => [Image], { description: 'used when no option changes the look' })
  images(@Root() product: Product): Image[] {
    return loaded(product, 'images');
  }

  @FieldResolver(() => [Int], { description: 'ids of the manual collections holding the product (rule-based ones are not listed)' })
  collectionIds(@Root() product: Product): number[] {
    return loaded(product, 'collectionIds');
  }

  // Whole collections are collection data: they need read_collections, not just read_products.
  @Authorized('read_collections')
  @FieldResolver(() => [Collection], { description: 'manual collections holding the product (rule-based ones are not listed)' })
  collections(@Root() product: Product): Collection[] {
    return loaded(product, 'collections');
  }
}
