import { Authorized, FieldResolver, Int, Resolver, Root } from 'type-graphql';
import { Collection, CollectionType } from '../entities/collection.entity.js';
import { Product } from '../entities/product.entity.js';
import { Computed } from '../reads/field-reads.js';
import type { ReadRow } from '../reads/read-row.js';

const MANUAL = CollectionType.Manual;

/**
 * A product's collections: manual ones only (spec), found through the links a manual collection
 * keeps; rule-based membership is computed when a collection is read. The product's own lists
 * (variants, options, textareas, images) are the entity's relations.
 */
@Resolver(() => Product)
export class ProductFieldsResolver {
  @Computed({
    kind: 'json',
    sql: (p) => `coalesce((select json_agg(pcp.collection_id order by pcp.collection_id) from collection_product pcp
      join collection pc on pc.id = pcp.collection_id and pc.type = ${MANUAL}
      where pcp.product_id = ${p}.id), '[]'::json)`,
  })
  @FieldResolver(() => [Int], {
    description: 'Ids of the manual collections holding the product (rule-based ones are not listed)',
  })
  collectionIds(@Root() product: ReadRow<Product, { collectionIds: number[] }>): number[] {
    return product.collectionIds;
  }

  // Whole collections are collection data: they need read_collections, not just read_products.
  @Authorized('read_collections')
  @Computed({
    kind: 'many',
    entity: () => Collection,
    where: (c, p) => `${c}.type = ${MANUAL}
      and exists (select 1 from collection_product l where l.collection_id = ${c}.id and l.product_id = ${p}.id)`,
    orderBy: (c) => `${c}.id`,
  })
  @FieldResolver(() => [Collection], {
    description: 'Manual collections holding the product (rule-based ones are not listed)',
  })
  collections(@Root() product: ReadRow<Product, { collections: ReadRow<Collection>[] }>): ReadRow<Collection>[] {
    return product.collections;
  }
}
