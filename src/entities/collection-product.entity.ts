import type { Rel } from '@mikro-orm/core';
import { Entity, Index, ManyToOne, PrimaryKey, Property, Unique } from '@mikro-orm/decorators/legacy';
import { Collection } from './collection.entity.js';
import { Product } from './product.entity.js';

/** Membership of a product in a manual collection, in the merchant's order. */
@Entity()
@Unique({ properties: ['collection', 'product'] })
@Index({ properties: ['product'] })
export class CollectionProduct {
  @PrimaryKey({ type: 'integer' })
  id!: number;

  @ManyToOne({ entity: () => Collection, deleteRule: 'cascade' })
  collection!: Rel<Collection>;

  @ManyToOne({ entity: () => Product, deleteRule: 'cascade' })
  product!: Rel<Product>;

  @Property({ type: 'integer' })
  position!: number;
}
