import { Authorized, FieldResolver, Int, Resolver, Root } from 'type-graphql';
import { Collection } from '../entities/collection.entity.js';
import { Image } from '../entities/image.entity.js';
import { ProductOption } from '../entities/product-option.entity.js';
import { ProductTextarea } from '../entities/product-textarea.entity.js';
import { ProductVariant } from '../entities/product-variant.entity.js';
import { Product } from '../entities/product.entity.js';
import { loaded, type ReadRow } from '../reads/read-model.js';

/** A product's relations, aggregated into the product's own statement by the read model. */
@Resolver(() => Product)
export class ProductFieldsResolver {
  @FieldResolver(() => [ProductVariant])
  variants(@Root() product: ReadRow<Product>): ProductVariant[] {
    return loaded(product, 'variants');
  }

  @FieldResolver(() => [ProductOption])
  options(@Root() product: ReadRow<Product>): ProductOption[] {
    return loaded(product, 'options');
  }

  @FieldResolver(() => [ProductTextarea])
  textareas(@Root() product: ReadRow<Product>): ProductTextarea[] {
    return loaded(product, 'textareas');
  }

  @FieldResolver(() => [Image], { description: 'used when no option changes the look' })
  images(@Root() product: ReadRow<Product>): Image[] {
    return loaded(product, 'images');
  }

  @FieldResolver(() => [Int], { description: 'ids of the manual collections holding the product (rule-based ones are not listed)' })
  collectionIds(@Root() product: ReadRow<Product>): number[] {
    return loaded(product, 'collectionIds');
  }

  // Whole collections are collection data: they need read_collections, not just read_products.
  @Authorized('read_collections')
  @FieldResolver(() => [Collection], { description: 'manual collections holding the product (rule-based ones are not listed)' })
  collections(@Root() product: ReadRow<Product>): Collection[] {
    return loaded(product, 'collections');
  }
}
