import { Check, Entity, PrimaryKey, Property, Unique } from '@mikro-orm/decorators/legacy';
import { Field, Int, ObjectType } from 'type-graphql';
import { now } from '../clock.js';
import { MetafieldOwnerType } from '../schema/enums/metafield-owner-type.enum.js';
import { TimestampScalar } from '../schema/scalars/timestamp.scalar.js';

/**
 * A typed custom field of one kind of record (docs/decisions.md#custom-data-metafields): its values
 * live in `metafield`, one per record at most, and go with it when it is deleted. Never changed
 * after it is made (there is no update): its values copy its namespace, key and type.
 */
@ObjectType({ description: 'A typed custom field of one kind of record (Shopify-style metafield definition)' })
@Entity()
@Unique({ properties: ['ownerType', 'namespace', 'key'] })
@Check({
  name: 'metafield_definition_owner_type_valid',
  expression: "owner_type in ('ORDER', 'CUSTOMER', 'PRODUCT', 'PRODUCT_VARIANT', 'COLLECTION')",
})
// The types of src/domain/metafield-types.ts (test/metafields.test.ts holds them equal).
@Check({
  name: 'metafield_definition_type_valid',
  expression:
    "type in ('single_line_text_field', 'multi_line_text_field', 'number_integer', 'number_decimal', " +
    "'boolean', 'date', 'date_time', 'url', 'json')",
})
export class MetafieldDefinition {
  @Field(() => Int, { description: 'Definition id' })
  @PrimaryKey({ type: 'integer' })
  id!: number;

  @Field(() => MetafieldOwnerType, { description: 'The kind of record whose metafield this is' })
  @Property({ type: 'text' })
  ownerType!: MetafieldOwnerType;

  @Field({ description: 'Groups the keys of one integration (1–64 of a-z, 0-9, _ and -), e.g. `erp`' })
  @Property({ type: 'varchar', length: 64 })
  namespace!: string;

  @Field({ description: 'The name within the namespace (1–64 of a-z, 0-9, _ and -), e.g. `order_no`' })
  @Property({ type: 'varchar', length: 64 })
  key!: string;

  @Field({
    description:
      "The values' type, Shopify's names: single_line_text_field, multi_line_text_field, number_integer, " +
      'number_decimal, boolean, date, date_time, url, json',
  })
  @Property({ type: 'text' })
  type!: string;

  @Field({ description: 'A human-readable name' })
  @Property({ type: 'varchar', length: 255 })
  name!: string;

  @Field(() => String, { nullable: true, description: 'What the values mean, or null' })
  @Property({ type: 'text', nullable: true })
  description: string | null = null;

  @Field(() => TimestampScalar, { description: 'When the definition was made' })
  @Property({ type: 'timestamptz', onCreate: () => now() })
  createdAt: Date = now();
}
