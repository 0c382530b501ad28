import type { FilterQuery } from '@mikro-orm/postgresql';
import { type Product, type ProductFilter, productList } from '../entities/product.entity.js';
import { allOf, filterConditions } from './listing.js';

type Condition = Record<string, unknown>;

/**
 * The product search as one WHERE: ids as `productList` declares them (src/entities/product.entity.ts)
 * and the metafields' condition, made from their definitions beforehand (metafield-search.ts).
 */
export function productWhere(filter: ProductFilter | undefined, metafields?: Condition): FilterQuery<Product> {
  const all = filterConditions(productList, filter, {
    metafields: (_, all) => {
      if (metafields) all.push(metafields);
    },
  });
  return allOf(all) as FilterQuery<Product>;
}
