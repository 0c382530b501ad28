import { Collection, type Rel } from '@mikro-orm/core';
import { Entity, Index, OneToMany, PrimaryKey, Property, Unique } from '@mikro-orm/decorators/legacy';
import { Field, Float, Int, ObjectType } from 'type-graphql';
import { DecimalScalar } from '../schema/scalars/decimal.scalar.js';
import { TimestampScalar } from '../schema/scalars/timestamp.scalar.js';
import { ProductImage } from './product-image.entity.js';
import { ProductOption } from './product-option.entity.js';
import { ProductTextarea } from './product-textarea.entity.js';
import { ProductVariant } from './product-variant.entity.js';
import { now } from '../domain/clock.js';
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
  @Field(() => Int)
  @PrimaryKey({ type: 'integer' })
  id!: number;

  @Field()
  @Property({ type: 'text' })
  title!: string;

  @Field({ description: 'multi-variant as opposed to single-variant' })
  @Property({ type: 'boolean', default: false })
  isMulti: boolean = false;

  @Field({ description: 'product type' })
  @Property({ type: 'text', default: '' })
  type: string = '';

  @Field()
  @Property({ type: 'boolean', default: false })
  isGiftcard: boolean = false;

  @Field(() => [String])
  @Index({ type: 'gin' })
  @Property({ type: TextArrayType, defaultRaw: "'{}'" })
  tags: string[] = [];

  @Field(() => Float)
  @Property({ type: 'double', default: 0 })
  shippingWeight: number = 0;

  @Field()
  @Property({ type: 'boolean', default: false })
  autoFulfilment: boolean = false;

  @Field()
  @Property({ type: 'boolean', default: false })
  trackInventory: boolean = false;

  @Field(() => String, { nullable: true })
  @Property({ type: 'text', nullable: true })
  vendor: string | null = null;

  @Field()
  @Property({ type: 'text', default: '' })
  sku: string = '';

  @Field()
  @Property({ type: 'text', default: '' })
  seoMeta: string = '';

  @Field()
  @Property({ type: 'text', default: '' })
  seoTitle: string = '';

  @Field({ description: 'unique; derived from the title when created without one' })
  @Unique()
  @Property({ type: 'text' })
  seoUrl!: string;

  @Field()
  @Property({ type: 'boolean', default: false })
  isTemplate: boolean = false;

  @Field()
  @Property({ type: 'boolean', default: false })
  isDraft: boolean = false;

  @Field(() => DecimalScalar)
  @Property({ type: 'decimal', precision: 12, scale: 2, default: 0 })
  price: string = '0.00';

  @Field(() => DecimalScalar, { nullable: true })
  @Property({ type: 'decimal', precision: 12, scale: 2, nullable: true })
  comparePrice: string | null = null;

  @Field(() => TimestampScalar)
  @Property({ type: 'timestamptz', onCreate: () => now() })
  createdAt: Date = now();

  @Field(() => TimestampScalar, { nullable: true, description: 'null when never updated' })
  @Property({ type: 'timestamptz', nullable: true })
  updatedAt: Date | null = null;

  @Field(() => Int, { description: 'increases with every change (the REST ETag)' })
  @Property({ type: 'integer', version: true })
  version!: number;

  @OneToMany({ entity: () => ProductOption, mappedBy: 'product', orderBy: { position: 'asc', id: 'asc' } })
  options = new Collection<Rel<ProductOption>>(this);

  @OneToMany({ entity: () => ProductVariant, mappedBy: 'product', orderBy: { position: 'asc', id: 'asc' } })
  variants = new Collection<Rel<ProductVariant>>(this);

  @OneToMany({ entity: () => ProductImage, mappedBy: 'product', orderBy: { position: 'asc', id: 'asc' } })
  images = new Collection<Rel<ProductImage>>(this);

  @OneToMany({ entity: () => ProductTextarea, mappedBy: 'product', orderBy: { position: 'asc', id: 'asc' } })
  textareas = new Collection<Rel<ProductTextarea>>(this);
}
