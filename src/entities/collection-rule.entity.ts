import type { Rel } from '@mikro-orm/core';
import { Check, Entity, Index, ManyToOne, PrimaryKey, Property } from '@mikro-orm/decorators/legacy';
import { Field, Int, ObjectType } from 'type-graphql';
import { Collection } from './collection.entity.js';

/**
 * One membership rule of a rule-based collection. `field` and `condition` use the spec's codes;
 * which conditions fit which field is a domain rule (text 0–4, numbers 5–8, tag 0/3/4).
 */
@ObjectType({ description: 'A membership rule of a rule-based collection' })
@Entity()
@Index({ properties: ['collection'] })
// Checks in the form PostgreSQL echoes them back (no `between`), so `npm run migration:create` sees no change.
@Check({ name: 'collection_rule_field_valid', expression: 'field >= 0 and field <= 6' })
@Check({ name: 'collection_rule_condition_valid', expression: 'condition >= 0 and condition <= 8' })
export class CollectionRule {
  @PrimaryKey({ type: 'integer' })
  id!: number;

  @ManyToOne({ entity: () => Collection, deleteRule: 'cascade' })
  collection!: Rel<Collection>;

  @Property({ type: 'smallint' })
  position!: number;

  @Field(() => Int, {
    name: 'type',
    description: '0 title; 1 vendor; 2 type; 3 price; 4 tag; 5 weight; 6 variant title',
  })
  @Property({ type: 'smallint' })
  field!: number;

  @Field(() => Int, {
    description:
      '0 is exactly; 1 starts with; 2 ends with; 3 contains; 4 does not contain; 5 equal; 6 ' +
      'not equal; 7 greater; 8 less',
  })
  @Property({ type: 'smallint' })
  condition!: number;

  @Field({ description: 'Value compared with the product field' })
  @Property({ type: 'text' })
  value!: string;
}
