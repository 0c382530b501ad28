import { FieldResolver, Int, Resolver, Root } from 'type-graphql';
import { ProductVariant } from '../entities/product-variant.entity.js';
import { Reads } from '../reads/field-reads.js';
import type { ReadRow } from '../reads/read-row.js';

@Resolver(() => ProductVariant)
export class VariantFieldsResolver {
  @Reads('product')
  @FieldResolver(() => Int, { description: 'Product id' })
  productId(@Root() variant: ReadRow<ProductVariant>): number {
    return variant.product;
  }
}
