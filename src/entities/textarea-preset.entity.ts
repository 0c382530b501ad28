import { Entity, PrimaryKey, Property, Unique } from '@mikro-orm/decorators/legacy';

/** A textarea title preset of product settings; product textareas may only use these names. */
@Entity()
export class TextareaPreset {
  @PrimaryKey({ type: 'integer' })
  id!: number;

  @Unique()
  @Property({ type: 'text' })
  name!: string;
}
