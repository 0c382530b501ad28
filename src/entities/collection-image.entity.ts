import type { Rel } from '@mikro-orm/core';
import { Entity, ManyToOne, PrimaryKey, Property, Unique } from '@mikro-orm/decorators/legacy';
import { Collection } from './collection.entity.js';
import { Image } from './image.entity.js';

/** A collection's image, in display order. */
@Entity()
@Unique({ properties: ['collection', 'image'] })
export class CollectionImage {
  @PrimaryKey({ type: 'integer' })
  id!: number;

  @ManyToOne({ entity: () => Collection, deleteRule: 'cascade' })
  collection!: Rel<Collection>;

  @ManyToOne({ entity: () => Image, deleteRule: 'restrict' })
  image!: Rel<Image>;

  @Property({ type: 'smallint' })
  position!: number;
}
