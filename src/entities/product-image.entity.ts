import type { Rel } from '@mikro-orm/core';
import { Entity, ManyToOne, PrimaryKey, Property, Unique } from '@mikro-orm/decorators/legacy';
import { Image } from './image.entity.js';
import { Product } from './product.entity.js';

/** A product's image, in display order. */
@Entity()
@Unique({ properties: ['product', 'image'] })
export class ProductImage {
  @PrimaryKey({ type: 'integer' })
  id!: number;

  @ManyToOne({ entity: () => Product, deleteRule: 'cascade' })
  product!: Rel<Product>;

  @ManyToOne({ entity: () => Image, deleteRule: 'restrict', eager: false })
  image!: Rel<Image>;

  @Property({ type: 'smallint' })
  position!: number;
}
