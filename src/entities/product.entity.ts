import { Collection, type Rel } from '@mikro-orm/core';
import { Entity, Index, OneToMany, PrimaryKey, Property, Unique } from '@mikro-orm/decorators/legacy';
import { Field, Float, Int, ObjectType } from 'type-graphql';
import { now } from '../clock.js';
import { METAFIELDS_FILTER_DESCRIPTION, MetafieldFilter } from '../schema/inputs/metafield.inputs.js';
import { type FilterOf, filterBy, listFields } from '../schema/list-fields.js';
import { DecimalScalar } from '../schema/scalars/decimal.scalar.js';
import { TimestampScalar } from '../schema/scalars/timestamp.scalar.js';
import { Image } from './image.entity.js';
import { Metafield } from './metafield.entity.js';
import { ProductImage } from './product-image.entity.js';
import { ProductOption } from './product-option.entity.js';
import { ProductTextarea } from './product-textarea.entity.js';
import { ProductVariant } from './product-variant.entity.js';
import { TextArrayType } from './text-array.type.js';

/**
 * A catalogue product. Every product has at least one variant: a single-variant product has one
 * variant with an empty combination, which carries its stock; `price`/`comparePrice` here are the
 * single-variant prices of the spec.
 */
@ObjectType({ description: 'A catalogue product' })
@Entity()
@Index({ properties: ['createdAt', 'id'] })
@Index({ properties: ['title', 'id'] })
@Index({ properties: ['price', 'id'] })
export class Product {
  @Field(() => Int, { description: 'Product id' })
  @PrimaryKey({ type: 'integer' })
  id!: number;

  @Field({ description: 'Title' })
  @Property({ type: 'text' })
  title!: string;

  @Field({ description: 'Multi-variant as opposed to single-variant' })
  @Property({ type: 'boolean', default: false })
  isMulti: boolean = false;

  @Field({ description: 'Product type' })
  @Property({ type: 'text', default: '' })
  type: string = '';

  @Field({ description: 'Whether the product is a gift card' })
  @Property({ type: 'boolean', default: false })
  isGiftcard: boolean = false;

  @Field(() => [String], { description: 'Tags' })
  @Index({ type: 'gin' })
  @Property({ type: TextArrayType, defaultRaw: "'{}'" })
  tags: string[] = [];

  @Field(() => Float, { description: 'Shipping weight of one unit' })
  @Property({ type: 'double', default: 0 })
  shippingWeight: number = 0;

  @Field({ description: 'Whether orders of it are fulfilled automatically' })
  @Property({ type: 'boolean', default: false })
  autoFulfilment: boolean = false;

  @Field({ description: 'Whether stock is tracked' })
  @Property({ type: 'boolean', default: false })
  trackInventory: boolean = false;

  @Field(() => String, { nullable: true, description: 'Vendor, or null' })
  @Property({ type: 'text', nullable: true })
  vendor: string | null = null;

  @Field({ description: 'SKU of the default variant' })
  @Property({ type: 'text', default: '' })
  sku: string = '';

  @Field({ description: 'SEO meta description' })
  @Property({ type: 'text', default: '' })
  seoMeta: string = '';

  @Field({ description: 'SEO title' })
  @Property({ type: 'text', default: '' })
  seoTitle: string = '';

  @Field({ description: 'Unique; derived from the title when created without one' })
  @Unique()
  @Property({ type: 'text' })
  seoUrl!: string;

  @Field({ description: 'Whether the product is a template for new ones' })
  @Property({ type: 'boolean', default: false })
  isTemplate: boolean = false;

  @Field({ description: 'Whether the product is a draft (not for sale)' })
  @Property({ type: 'boolean', default: false })
  isDraft: boolean = false;

  @Field(() => DecimalScalar, { description: 'Price of the default variant' })
  @Property({ type: 'decimal', precision: 12, scale: 2, default: 0 })
  price: string = '0.00';

  @Field(() => DecimalScalar, { nullable: true, description: 'Compare-at price of the default variant, or null' })
  @Property({ type: 'decimal', precision: 12, scale: 2, nullable: true })
  comparePrice: string | null = null;

  @Field(() => TimestampScalar, { description: 'When the product was created' })
  @Property({ type: 'timestamptz', onCreate: () => now() })
  createdAt: Date = now();

  @Field(() => TimestampScalar, { nullable: true, description: 'Null when never updated' })
  @Property({ type: 'timestamptz', nullable: true })
  updatedAt: Date | null = null;

  // Moved on by the domain under the row lock, once per write (domain/preconditions.ts), not by the
  // ORM: the ORM's version only moves when this row changes, and a write may change only rows of
  // other tables (fulfilments, variants, addresses) that are part of this record all the same.
  @Field(() => Int, {
    description:
      'Moves on with every write to the record, its parts included: the REST ETag, and what ' +
      '`expectedVersion` compares with',
  })
  @Property({ type: 'integer', default: 1 })
  version: number = 1;

  @Field(() => [ProductOption], { description: 'Options (e.g. size, colour), in order' })
  @OneToMany({ entity: () => ProductOption, mappedBy: 'product', orderBy: { position: 'asc', id: 'asc' } })
  options = new Collection<Rel<ProductOption>>(this);

  @Field(() => [ProductVariant], { description: 'Variants, one per combination of option values' })
  @OneToMany({ entity: () => ProductVariant, mappedBy: 'product', orderBy: { position: 'asc', id: 'asc' } })
  variants = new Collection<Rel<ProductVariant>>(this);

  @Field(() => [Image], { description: 'Used when no option changes the look' })
  @OneToMany({ entity: () => ProductImage, mappedBy: 'product', orderBy: { position: 'asc', id: 'asc' } })
  images = new Collection<Rel<ProductImage>>(this);

  @Field(() => [ProductTextarea], { description: 'Named blocks of product text' })
  @OneToMany({ entity: () => ProductTextarea, mappedBy: 'product', orderBy: { position: 'asc', id: 'asc' } })
  textareas = new Collection<Rel<ProductTextarea>>(this);

  /**
   * Its metafields' rows, for the search by a metafield's value (src/domain/metafield-search.ts, a
   * filter of a cached shape). GraphQL and REST read them as the computed `metafields`
   * (src/resolvers/metafield-relations.ts): this relation is no field.
   */
  @OneToMany({ entity: () => Metafield, mappedBy: 'product' })
  metafieldRows = new Collection<Rel<Metafield>>(this);
}

/** What a list of products sorts and filters by (src/schema/list-fields.ts). */
export const productList = listFields(
  Product,
  {
    id: { sort: true, filter: filterBy.anyOf(Int, 'Any of these product ids') },
    title: { sort: true },
    type: { sort: true },
    vendor: { sort: true },
    sku: { sort: true },
    price: { sort: true },
    comparePrice: { sort: true },
    shippingWeight: { sort: true },
    isDraft: { sort: true },
    isTemplate: { sort: true },
    isMulti: { sort: true },
    seoUrl: { sort: true },
    seoTitle: { sort: true },
    seoMeta: { sort: true },
    autoFulfilment: { sort: true },
    trackInventory: { sort: true },
    createdAt: { sort: true },
    updatedAt: { sort: true },
    metafields: { filter: filterBy.own(() => [MetafieldFilter], METAFIELDS_FILTER_DESCRIPTION) },
  },
  { filter: 'Product search: lists mean any of' },
);

/** The product list's filter, as the domain receives it. */
export type ProductFilter = FilterOf<typeof productList.fields>;
