import { Collection, type Rel } from '@mikro-orm/core';
import { Entity, ManyToOne, OneToMany, PrimaryKey, Property, Unique } from '@mikro-orm/decorators/legacy';
import { Field, ObjectType } from 'type-graphql';
import { OptionThumbnail } from './option-thumbnail.entity.js';
import { Product } from './product.entity.js';
import { TextArrayType } from './text-array.type.js';

/** An option of a multi-variant product (e.g. Size) with its allowed values in display order. */
@ObjectType({ description: 'An option of a multi-variant product' })
@Entity()
@Unique({ properties: ['product', 'title'] })
export class ProductOption {
  @PrimaryKey({ type: 'integer' })
  id!: number;

  @ManyToOne({ entity: () => Product, deleteRule: 'cascade' })
  product!: Rel<Product>;

  @Property({ type: 'smallint' })
  position!: number;

  @Field({ description: 'Option name' })
  @Property({ type: 'text' })
  title!: string;

  @Field({ description: 'Whether choosing a value of this option changes how the product looks' })
  @Property({ type: 'boolean', default: false })
  changesLook: boolean = false;

  @Field(() => [String], { description: 'Values, in order' })
  @Property({ type: TextArrayType })
  values: string[] = [];

  @Field(() => [OptionThumbnail], { description: 'How each value is pictured' })
  @OneToMany({ entity: () => OptionThumbnail, mappedBy: 'option', orderBy: { position: 'asc', id: 'asc' } })
  thumbnails = new Collection<Rel<OptionThumbnail>>(this);
}
