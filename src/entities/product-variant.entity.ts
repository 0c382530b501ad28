import { Collection, type Rel } from '@mikro-orm/core';
import { Entity, ManyToOne, OneToMany, PrimaryKey, Property, Unique } from '@mikro-orm/decorators/legacy';
import { Field, Int, ObjectType } from 'type-graphql';
import { DecimalScalar } from '../schema/scalars/decimal.scalar.js';
import { Image } from './image.entity.js';
import { Product } from './product.entity.js';
import { TextArrayType } from './text-array.type.js';
import { VariantImage } from './variant-image.entity.js';

/**
 * One purchasable combination of option values. Its id is stable while its combination exists
 * (line items and stock refer to it), hence the unique (product, combination).
 */
@ObjectType({ description: 'A purchasable combination of option values' })
@Entity()
// Deferrable: a reordering of the options swaps variants' values within one write (product-variants.ts).
@Unique({ properties: ['product', 'optionValues'], deferMode: 'immediate' })
export class ProductVariant {
  @Field(() => Int, { description: 'Variant id' })
  @PrimaryKey({ type: 'integer' })
  id!: number;

  @ManyToOne({ entity: () => Product, deleteRule: 'cascade' })
  product!: Rel<Product>;

  @Property({ type: 'smallint' })
  position!: number;

  @Field(() => [String], { name: 'variant', description: 'The combination: one value per option, in option order' })
  @Property({ type: TextArrayType })
  optionValues: string[] = [];

  @Field(() => DecimalScalar, { description: 'Price' })
  @Property({ type: 'decimal', precision: 12, scale: 2 })
  price!: string;

  @Field(() => DecimalScalar, { nullable: true, description: 'Compare-at price, or null' })
  @Property({ type: 'decimal', precision: 12, scale: 2, nullable: true })
  comparePrice: string | null = null;

  @Field({ description: 'SKU' })
  @Property({ type: 'text', default: '' })
  sku: string = '';

  @Field({ name: 'default', description: "Whether this is the product's default variant" })
  @Property({ type: 'boolean', default: false })
  isDefault: boolean = false;

  @Field({ description: 'The variant should not be used' })
  @Property({ type: 'boolean', default: false })
  ignore: boolean = false;

  @Field(() => [Image], { description: "The variant's own images, used when it changes the look" })
  @OneToMany({ entity: () => VariantImage, mappedBy: 'variant', orderBy: { position: 'asc', id: 'asc' } })
  images = new Collection<Rel<VariantImage>>(this);
}
