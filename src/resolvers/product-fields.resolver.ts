import { Authorized, FieldResolver, Int, Resolver, Root } from 'type-graphql';
import { Collection } from '../entities/collection.entity.js';
import { Image } from '../entities/image.entity.js';
import { ProductOption } from '../entities/product-option.entity.js';
import { ProductTextarea } from '../entities/product-textarea.entity.js';
import { ProductVariant } from '../entities/product-variant.entity.js';
import { Product } from '../entities/product.entity.js';
import { loaded, RowProperty, type ReadRow } from '../reads/read-model.js';

/** A product's relations, aggregated into the product's own statement by the read model. */
@Resolver(() => Product)
export class ProductFieldsResolver {
  @RowProperty()
  @FieldResolver(() => [ProductVariant], { description: 'Variants, one per combination of option values' })
  variants(@Root() product: ReadRow<Product>): ProductVariant[] {
    return loaded(product, 'variants');
  }

  @RowProperty()
  @FieldResolver(() => [ProductOption], { description: 'Options (e.g. size, colour), in order' })
  options(@Root() product: ReadRow<Product>): ProductOption[] {
    return loaded(product, 'options');
  }

  @RowProperty()
  @FieldResolver(() => [ProductTextarea], { description: 'Named blocks of product text' })
  textareas(@Root() product: ReadRow<Product>): ProductTextarea[] {
    return loaded(product, 'textareas');
  }

  @RowProperty()
  @FieldResolver(() => [Image], { description: 'Used when no option changes the look' })
  images(@Root() product: ReadRow<Product>): Image[] {
    return loaded(product, 'images');
  }

  @RowProperty()
  @FieldResolver(() => [Int], { description: 'Ids of the manual collections holding the product (rule-based ones are not listed)' })
  collectionIds(@Root() product: ReadRow<Product>): number[] {
    return loaded(product, 'collectionIds');
  }

  // Whole collections are collection data: they need read_collections, not just read_products.
  @Authorized('read_collections')
  @FieldResolver(() => [Collection], { description: 'Manual collections holding the product (rule-based ones are not listed)' })
  collections(@Root() product: ReadRow<Product>): Collection[] {
    return loaded(product, 'collections');
  }
}
