import type { Rel } from '@mikro-orm/core';
import { Entity, ManyToOne, PrimaryKey, Property, Unique } from '@mikro-orm/decorators/legacy';
import { Image } from './image.entity.js';
import { ProductVariant } from './product-variant.entity.js';

/** A variant's own image (used when an option changes the look), in display order. */
@Entity()
@Unique({ properties: ['variant', 'image'] })
export class VariantImage {
  @PrimaryKey({ type: 'integer' })
  id!: number;

  @ManyToOne({ entity: () => ProductVariant, deleteRule: 'cascade' })
  variant!: Rel<ProductVariant>;

  @ManyToOne({ entity: () => Image, deleteRule: 'restrict' })
  image!: Rel<Image>;

  @Property({ type: 'smallint' })
  position!: number;
}
