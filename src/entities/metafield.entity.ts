import type { Rel } from '@mikro-orm/core';
import { Check, Entity, Index, ManyToOne, PrimaryKey, Property } from '@mikro-orm/decorators/legacy';
import { Field, ObjectType } from 'type-graphql';
import { now } from '../clock.js';
import { TimestampScalar } from '../schema/scalars/timestamp.scalar.js';
import { Collection } from './collection.entity.js';
import { Customer } from './customer.entity.js';
import { MetafieldDefinition } from './metafield-definition.entity.js';
import { Order } from './order.entity.js';
import { Product } from './product.entity.js';
import { ProductVariant } from './product-variant.entity.js';

/**
 * One record's value of a metafield definition (docs/decisions.md#custom-data-metafields). Its owner
 * is exactly one of five references, each with a foreign key that deletes the value with its record
 * (a variant's go with its product's variants), and each with a unique index that is also how a
 * record's values are read (src/resolvers/metafield-relations.ts). The value is one text in its
 * stored form (src/domain/metafield-types.ts); an exact search finds it through its definition and
 * the md5 of that text (a value may be 64 KiB, more than a b-tree entry holds).
 */
@ObjectType({ description: "A custom value on a record, of its definition's type" })
@Entity()
@Check({
  name: 'metafield_one_owner',
  expression: 'num_nonnulls(order_id, customer_id, product_id, product_variant_id, collection_id) = 1',
})
@Index({ name: 'metafield_search_index', properties: ['definition', 'valueHash'] })
@Index({
  name: 'metafield_order_index',
  expression:
    'create unique index "metafield_order_index" on "metafield" ("order_id", "definition_id") ' +
    'where "order_id" is not null',
})
@Index({
  name: 'metafield_customer_index',
  expression:
    'create unique index "metafield_customer_index" on "metafield" ("customer_id", "definition_id") ' +
    'where "customer_id" is not null',
})
@Index({
  name: 'metafield_product_index',
  expression:
    'create unique index "metafield_product_index" on "metafield" ("product_id", "definition_id") ' +
    'where "product_id" is not null',
})
@Index({
  name: 'metafield_product_variant_index',
  expression:
    'create unique index "metafield_product_variant_index" on "metafield" ("product_variant_id", "definition_id") ' +
    'where "product_variant_id" is not null',
})
@Index({
  name: 'metafield_collection_index',
  expression:
    'create unique index "metafield_collection_index" on "metafield" ("collection_id", "definition_id") ' +
    'where "collection_id" is not null',
})
export class Metafield {
  @PrimaryKey({ type: 'integer' })
  id!: number;

  @ManyToOne({ entity: () => MetafieldDefinition, deleteRule: 'cascade' })
  definition!: Rel<MetafieldDefinition>;

  @Field({ description: "The definition's namespace" })
  @Property({ type: 'varchar', length: 64 })
  namespace!: string;

  @Field({ description: "The definition's key" })
  @Property({ type: 'varchar', length: 64 })
  key!: string;

  @Field({ description: "The definition's type (Shopify's names, e.g. number_integer)" })
  @Property({ type: 'text' })
  type!: string;

  @Field({
    description:
      "The value as text (Shopify's convention): a number's digits, true or false, a date YYYY-MM-DD, " +
      'a date and time in UTC ISO 8601, JSON as one line',
  })
  @Property({ type: 'text' })
  value!: string;

  /** md5 of `value`, for the exact search's index. */
  @Property({ type: 'uuid', generated: '(md5(value)::uuid) stored', lazy: true, hidden: true })
  valueHash?: string;

  @ManyToOne({ entity: () => Order, nullable: true, deleteRule: 'cascade' })
  order: Rel<Order> | null = null;

  @ManyToOne({ entity: () => Customer, nullable: true, deleteRule: 'cascade' })
  customer: Rel<Customer> | null = null;

  @ManyToOne({ entity: () => Product, nullable: true, deleteRule: 'cascade' })
  product: Rel<Product> | null = null;

  @ManyToOne({ entity: () => ProductVariant, nullable: true, deleteRule: 'cascade' })
  productVariant: Rel<ProductVariant> | null = null;

  @ManyToOne({ entity: () => Collection, nullable: true, deleteRule: 'cascade' })
  collection: Rel<Collection> | null = null;

  @Property({ type: 'timestamptz', onCreate: () => now() })
  createdAt: Date = now();

  @Field(() => TimestampScalar, { description: 'When the value was last set' })
  @Property({ type: 'timestamptz', onCreate: () => now() })
  updatedAt: Date = now();
}
