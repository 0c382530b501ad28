import type { Rel } from '@mikro-orm/core';
import { Check, Entity, Index, ManyToOne, PrimaryKey, Property } from '@mikro-orm/decorators/legacy';
import { Field, Float, Int, ObjectType } from 'type-graphql';
import { DecimalScalar } from '../schema/scalars/decimal.scalar.js';
import { Order } from './order.entity.js';
import { Product } from './product.entity.js';
import { ProductVariant } from './product-variant.entity.js';
import { TextArrayType } from './text-array.type.js';

/**
 * A line of an order: a snapshot of the product as it was bought (later product edits never
 * reach it) and the exclusive counters quantity = not_fulfilled + fulfilled + shipped + restocked,
 * which the database enforces.
 */
@ObjectType({ description: 'A line of an order: a snapshot of the product as bought, with its counters' })
@Entity()
@Index({ properties: ['order'] })
@Index({ properties: ['product'] })
@Check({
  name: 'line_item_counters_balance',
  expression: 'quantity = not_fulfilled + fulfilled + shipped + restocked',
})
@Check({
  name: 'line_item_counters_non_negative',
  expression: 'quantity > 0 and not_fulfilled >= 0 and fulfilled >= 0 and shipped >= 0 and restocked >= 0',
})
export class LineItem {
  @Field(() => Int, { description: 'Line item id' })
  @PrimaryKey({ type: 'integer' })
  id!: number;

  @ManyToOne({ entity: () => Order, deleteRule: 'cascade' })
  order!: Rel<Order>;

  @ManyToOne({ entity: () => Product, nullable: true, deleteRule: 'set null' })
  product: Rel<Product> | null = null;

  @ManyToOne({ entity: () => ProductVariant, nullable: true, deleteRule: 'set null' })
  variant: Rel<ProductVariant> | null = null;

  /** The product id at order time, kept even when the product is later deleted. */
  @Property({ type: 'integer' })
  productRef!: number;

  /** The variant id at order time, kept even when the variant is later removed. */
  @Property({ type: 'integer' })
  variantRef!: number;

  @Field({ description: 'Product title' })
  @Property({ type: 'text' })
  title!: string;

  @Field({ description: 'Whether the product has several variants' })
  @Property({ type: 'boolean', default: false })
  isMulti: boolean = false;

  @Field({ description: 'Product type' })
  @Property({ type: 'text', default: '' })
  type: string = '';

  @Field({ description: 'Whether the product is a gift card' })
  @Property({ type: 'boolean', default: false })
  isGiftcard: boolean = false;

  @Field(() => Float, { description: 'Shipping weight of one unit' })
  @Property({ type: 'double', default: 0 })
  shippingWeight: number = 0;

  @Field(() => String, { nullable: true, description: 'Vendor, or null' })
  @Property({ type: 'text', nullable: true })
  vendor: string | null = null;

  @Field({ description: 'Whether the product is fulfilled automatically' })
  @Property({ type: 'boolean', default: false })
  autoFulfilment: boolean = false;

  @Field({ description: 'Whether stock is tracked for the product' })
  @Property({ type: 'boolean', default: false })
  trackInventory: boolean = false;

  @Field({ description: 'Variant SKU' })
  @Property({ type: 'text', default: '' })
  sku: string = '';

  @Field(() => DecimalScalar, { description: 'Price of one unit' })
  @Property({ type: 'decimal', precision: 12, scale: 2 })
  price!: string;

  @Field(() => DecimalScalar, { nullable: true, description: 'Compare-at price of one unit, or null' })
  @Property({ type: 'decimal', precision: 12, scale: 2, nullable: true })
  comparePrice: string | null = null;

  @Field(() => String, { nullable: true, description: 'Image URL, or null' })
  @Property({ type: 'text', nullable: true })
  image: string | null = null;

  @Field(() => Int, { description: 'Largest edge in pixels the image may be served at' })
  @Property({ type: 'integer', default: 0 })
  imageMaxSize: number = 0;

  @Property({ type: TextArrayType, defaultRaw: "'{}'" })
  variantValues: string[] = [];

  @Property({ type: 'integer' })
  quantity!: number;

  @Property({ type: 'integer' })
  notFulfilled!: number;

  @Property({ type: 'integer', default: 0 })
  fulfilled: number = 0;

  @Property({ type: 'integer', default: 0 })
  shipped: number = 0;

  @Property({ type: 'integer', default: 0 })
  restocked: number = 0;
}
