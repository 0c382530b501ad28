import type { Ref, Rel } from '@mikro-orm/core';
import { Check, Entity, Index, ManyToOne, PrimaryKey, Property } from '@mikro-orm/decorators/legacy';
import { Field, ObjectType } from 'type-graphql';
import { Image } from './image.entity.js';
import { ProductOption } from './product-option.entity.js';

/** How one option value is pictured: a HEX colour or an image, never both. */
@ObjectType({ description: 'A swatch for one option value: a colour or an image' })
@Entity()
@Index({ properties: ['option'] })
@Check({ name: 'option_thumbnail_color_xor_image', expression: '(color is null) <> (image_id is null)' })
export class OptionThumbnail {
  @PrimaryKey({ type: 'integer' })
  id!: number;

  @ManyToOne({ entity: () => ProductOption, deleteRule: 'cascade' })
  option!: Rel<ProductOption>;

  @Property({ type: 'smallint' })
  position!: number;

  @Field({ description: 'The option value' })
  @Property({ type: 'text' })
  value!: string;

  @Field(() => String, { nullable: true, description: 'HEX colour such as #ff0000' })
  @Property({ type: 'text', nullable: true })
  color: string | null = null;

  @ManyToOne({ entity: () => Image, nullable: true, ref: true, deleteRule: 'restrict' })
  image: Ref<Image> | null = null;
}
