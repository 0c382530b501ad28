import { Field, InputType, Int } from 'type-graphql';
import { Optional } from '../optional-field.js';
import { MetafieldsPatch } from './metafield.inputs.js';

@InputType({ description: 'A membership rule: `type` is the product field, `condition` how `value` is compared' })
export class CollectionRuleInput {
  @Field(() => Int, { description: '0 title; 1 vendor; 2 type; 3 price; 4 tag; 5 weight; 6 variant title' })
  type!: number;
  @Field(() => Int, {
    description:
      '0 is exactly; 1 starts with; 2 ends with; 3 contains; 4 does not contain (text fields, ' +
      'tag: 0, 3, 4); 5 equal; 6 not equal; 7 greater; 8 less (price, weight)',
  })
  condition!: number;
  @Field({ description: 'A number for price and weight rules' }) value!: string;
}

// No property initialisers: an omitted field stays `undefined` ("keep" on update).
@InputType({
  description:
    'A collection as the spec writes it: title, type, seoTitle and seoUrl always; ' +
    'manualProductIds for type 0, rulesMatchCondition and rules for type 1',
})
export class CollectionInput {
  @Field({ description: 'Title' }) title!: string;
  @Optional(() => Boolean, { description: 'Whether the collection is a draft' }) isDraft?: boolean;
  @Optional(() => String, { description: 'Description' }) description?: string;
  @Optional(() => [Int], { description: 'Ids of uploaded images, in display order' }) imageIds?: number[];
  @Field(() => Int, { description: '0 manually added products; 1 rules based' }) type!: number;
  @Field({ description: 'SEO title' }) seoTitle!: string;
  @Field({ description: 'Unique; empty derives it from the title' }) seoUrl!: string;
  @Optional(() => String, { description: 'SEO meta description' }) seoMeta?: string;
  @Optional(() => [Int], { description: 'Type 0: the member product ids, in order (replace the set)' })
  manualProductIds?: number[];
  @Field(() => Int, { nullable: true, description: 'Type 1: 0 match at least one rule; 1 match all' })
  rulesMatchCondition?: number | null;
  @Optional(() => [CollectionRuleInput], { description: 'Type 1: the rules (replace the set)' })
  rules?: CollectionRuleInput[];
  @MetafieldsPatch() metafields?: Record<string, unknown>;
}
