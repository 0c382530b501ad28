import type { Rel } from '@mikro-orm/core';
import { Entity, ManyToOne, PrimaryKey, Property, Unique } from '@mikro-orm/decorators/legacy';
import { Field, ObjectType } from 'type-graphql';
import { Product } from './product.entity.js';

/** A named block of product text; `name` is one of the textarea presets of product settings. */
@ObjectType({ description: 'A named block of product text' })
@Entity()
@Unique({ properties: ['product', 'name'] })
export class ProductTextarea {
  @PrimaryKey({ type: 'integer' })
  id!: number;

  @ManyToOne({ entity: () => Product, deleteRule: 'cascade' })
  product!: Rel<Product>;

  @Property({ type: 'smallint' })
  position!: number;

  @Field({ description: 'Textarea preset name' })
  @Property({ type: 'text' })
  name!: string;

  @Field({ description: 'Text' })
  @Property({ type: 'text' })
  text!: string;
}
