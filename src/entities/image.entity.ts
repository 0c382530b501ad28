import { Entity, PrimaryKey, Property } from '@mikro-orm/decorators/legacy';
import { Field, Int, ObjectType } from 'type-graphql';
import { now } from '../clock.js';

/** An uploaded image; products, variants, option thumbnails and collections refer to it by id. */
@ObjectType({ description: 'An uploaded image' })
@Entity()
export class Image {
  @Field(() => Int, { description: 'Image id' })
  @PrimaryKey({ type: 'integer' })
  id!: number;

  @Field({ description: 'Absolute URL of the image' })
  @Property({ type: 'text' })
  path!: string;

  @Field(() => Int, { description: 'Largest rendition size in pixels (internal use)' })
  @Property({ type: 'integer' })
  maxSize!: number;

  @Property({ type: 'timestamptz', onCreate: () => now() })
  createdAt: Date = now();
}
