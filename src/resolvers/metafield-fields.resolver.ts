import { GraphQLJSONObject } from 'graphql-scalars';
import { Arg, FieldResolver, Resolver, Root } from 'type-graphql';
import type { MetafieldOwner } from '../domain/metafield-owners.js';
import { Collection } from '../entities/collection.entity.js';
import { Customer } from '../entities/customer.entity.js';
import { Metafield } from '../entities/metafield.entity.js';
import { Order } from '../entities/order.entity.js';
import { Product } from '../entities/product.entity.js';
import { ProductVariant } from '../entities/product-variant.entity.js';
import { Computed, Reads } from '../reads/field-reads.js';
import type { ReadRow } from '../reads/read-row.js';
import { metafieldObject, metafieldRows } from './metafield-relations.js';

type WithMetafields = { metafields: ReadRow<Metafield>[] };
type WithObject = { metafieldValues: Record<string, unknown> };

const LIST = { description: "The record's metafields, by namespace and key" };
const ONE = {
  nullable: true,
  description: 'The metafield of this namespace and key, or null when the record has none',
};
const OBJECT = {
  description:
    'The metafields as REST shows them: {"namespace.key": value}, integers and booleans as JSON, decimals as ' +
    'strings, json as the JSON itself, the other types as strings',
};
const NAMESPACE = { description: "The definition's namespace" };
const KEY = { description: "The definition's key" };

/**
 * The metafield fields of one owner type: a class per type (type-graphql binds a field resolver to
 * its class's type), each the same declarations on its owner column (metafield-relations.ts).
 */
function metafieldFieldsOf(owner: Function, column: MetafieldOwner['column']) {
  @Resolver(() => owner)
  class MetafieldFields {
    @Computed(metafieldRows(column))
    @FieldResolver(() => [Metafield], LIST)
    metafields(@Root() row: WithMetafields): ReadRow<Metafield>[] {
      return row.metafields;
    }

    @Reads('metafields')
    @FieldResolver(() => Metafield, ONE)
    metafield(@Root() row: WithMetafields, @Arg('namespace', NAMESPACE) ns: string, @Arg('key', KEY) key: string) {
      return row.metafields.find((m) => m.namespace === ns && m.key === key) ?? null;
    }

    @Computed(metafieldObject(column))
    @FieldResolver(() => GraphQLJSONObject, OBJECT)
    metafieldValues(@Root() row: WithObject): Record<string, unknown> {
      return row.metafieldValues;
    }
  }
  return MetafieldFields;
}

export const OrderMetafieldsResolver = metafieldFieldsOf(Order, 'order_id');
export const CustomerMetafieldsResolver = metafieldFieldsOf(Customer, 'customer_id');
export const ProductMetafieldsResolver = metafieldFieldsOf(Product, 'product_id');
export const ProductVariantMetafieldsResolver = metafieldFieldsOf(ProductVariant, 'product_variant_id');
export const CollectionMetafieldsResolver = metafieldFieldsOf(Collection, 'collection_id');
