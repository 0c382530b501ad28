import { Collection as OrmCollection, type Rel } from '@mikro-orm/core';
import { Check, Entity, OneToMany, PrimaryKey, Property, Unique } from '@mikro-orm/decorators/legacy';
import { Field, Int, ObjectType } from 'type-graphql';
import { now } from '../clock.js';
import { listFields } from '../schema/list-fields.js';
import { TimestampScalar } from '../schema/scalars/timestamp.scalar.js';
import { CollectionImage } from './collection-image.entity.js';
import { CollectionProduct } from './collection-product.entity.js';
import { CollectionRule } from './collection-rule.entity.js';
import { Image } from './image.entity.js';

/** Collection kinds of the spec: 0 products added by hand, 1 products matched by rules. */
export const CollectionType = { Manual: 0, RuleBased: 1 } as const;

/** A product collection, manual (`match_products`) or rule-based (evaluated in SQL when read). */
@ObjectType({ description: 'A product collection, manual or rule-based' })
@Entity()
@Check({ name: 'collection_type_valid', expression: 'type in (0, 1)' })
@Check({
  name: 'collection_rules_condition_valid',
  expression: 'rules_match_condition is null or rules_match_condition in (0, 1)',
})
export class Collection {
  @Field(() => Int, { description: 'Collection id' })
  @PrimaryKey({ type: 'integer' })
  id!: number;

  @Field({ description: 'Title' })
  @Property({ type: 'text' })
  title!: string;

  @Field({ description: 'Whether the collection is a draft (not shown)' })
  @Property({ type: 'boolean', default: false })
  isDraft: boolean = false;

  @Field({ description: 'Description' })
  @Property({ type: 'text', default: '' })
  description: string = '';

  @Field(() => Int, { description: '0 manually added products; 1 rules based' })
  @Property({ type: 'smallint' })
  type!: number;

  @Field({ description: 'SEO title' })
  @Property({ type: 'text' })
  seoTitle!: string;

  @Field({ description: 'SEO URL handle' })
  @Unique()
  @Property({ type: 'text' })
  seoUrl!: string;

  @Field({ description: 'SEO meta description' })
  @Property({ type: 'text', default: '' })
  seoMeta: string = '';

  @Field(() => Int, { nullable: true, description: '0 match at least one rule; 1 match all' })
  @Property({ type: 'smallint', nullable: true })
  rulesMatchCondition: number | null = null;

  @Field(() => TimestampScalar, { description: 'When the collection was created' })
  @Property({ type: 'timestamptz', onCreate: () => now() })
  createdAt: Date = now();

  @Field(() => TimestampScalar, { nullable: true, description: 'When the collection last changed, or null' })
  @Property({ type: 'timestamptz', nullable: true })
  updatedAt: Date | null = null;

  // Moved on by the domain under the row lock, once per write (domain/preconditions.ts), not by the
  // ORM: the ORM's version only moves when this row changes, and a write may change only rows of
  // other tables (fulfilments, variants, addresses) that are part of this record all the same.
  // A rule-based collection shows a version derived from this one and its members
  // (domain/collection-version.ts, served by CollectionFieldsResolver.version).
  @Field(() => Int, {
    description:
      'Changes with every write to the record, its parts and manual members included; a rule-based ' +
      "collection's is a fingerprint that also changes with its members (compare for equality). " +
      'The REST ETag, and what `expectedVersion` compares with',
  })
  @Property({ type: 'integer', default: 1 })
  version: number = 1;

  @Field(() => [CollectionRule], { description: 'Membership rules (rule-based collections)' })
  @OneToMany({ entity: () => CollectionRule, mappedBy: 'collection', orderBy: { position: 'asc', id: 'asc' } })
  rules = new OrmCollection<Rel<CollectionRule>>(this);

  @OneToMany({ entity: () => CollectionProduct, mappedBy: 'collection', orderBy: { position: 'asc', id: 'asc' } })
  manualProducts = new OrmCollection<Rel<CollectionProduct>>(this);

  @Field(() => [Image], { description: 'Images' })
  @OneToMany({ entity: () => CollectionImage, mappedBy: 'collection', orderBy: { position: 'asc', id: 'asc' } })
  images = new OrmCollection<Rel<CollectionImage>>(this);
}

/** What a list of collections sorts by (src/schema/list-fields.ts). */
export const collectionList = listFields(Collection, {
  id: { sort: true },
  title: { sort: true },
  type: { sort: true },
  isDraft: { sort: true },
  seoUrl: { sort: true },
  seoTitle: { sort: true },
  seoMeta: { sort: true },
  description: { sort: true },
  rulesMatchCondition: { sort: true },
  createdAt: { sort: true },
  updatedAt: { sort: true },
});
