import { GraphQLJSON, GraphQLJSONObject } from 'graphql-scalars';
import { Field, InputType, Int } from 'type-graphql';
import { MetafieldOwnerType } from '../enums/metafield-owner-type.enum.js';
import { Optional } from '../optional-field.js';

/** Metafields are named by namespace and key (1–64 of a-z, 0-9, _ and -; src/domain/metafield-types.ts checks). */
@InputType({ description: 'One metafield of one record' })
export class MetafieldIdentifierInput {
  @Field(() => MetafieldOwnerType, { description: 'The kind of record' }) ownerType!: MetafieldOwnerType;
  @Field(() => Int, { description: "The record's id" }) ownerId!: number;
  @Field({ description: "The definition's namespace" }) namespace!: string;
  @Field({ description: "The definition's key" }) key!: string;
  @Field(() => [Int], {
    nullable: true,
    description:
      "Optimistic concurrency: the entry goes ahead only while its record's `version` (a variant's: its product's) " +
      'is one of these (one value is a list of one). Otherwise the whole call is refused with PRECONDITION_FAILED ' +
      'and nothing changes. Omitted or null: no check',
  })
  expectedVersion?: number[] | null;
}

@InputType({ description: "A value to set on a record's metafield, of its definition's type" })
export class MetafieldsSetInput extends MetafieldIdentifierInput {
  @Field({
    description:
      "The value as text (Shopify's convention): digits for number_integer and number_decimal, true or false, " +
      'YYYY-MM-DD for date, ISO 8601 for date_time, an http(s) URL, JSON text for json; at most 64 KiB',
  })
  value!: string;
}

@InputType({
  description:
    'Records whose metafield of this namespace and key has exactly this value: give value or typedValue, not both',
})
export class MetafieldFilter {
  @Field({ description: "The definition's namespace" }) namespace!: string;
  @Field({ description: "The definition's key" }) key!: string;
  @Field(() => String, {
    nullable: true,
    description: 'The value as text, as Metafield.value shows it (a number, a date… in any form its type takes)',
  })
  value?: string | null;
  /**
   * REST's search bodies send this (src/rest/filters.ts): as text, a json metafield's `"12"` (the
   * JSON string) could not be told from `12` (the number).
   */
  @Field(() => GraphQLJSON, {
    nullable: true,
    description:
      'The value typed as metafieldValues and REST show it (integers and booleans as JSON, decimals as strings ' +
      'or numbers, json as the JSON itself, other types as strings); an array of them matches any of them ' +
      '(but for json, where an array is the value)',
  })
  typedValue?: unknown;
}

/** The `metafields` filter of the order, customer and product lists (their `listFields`). */
export const METAFIELDS_FILTER_DESCRIPTION =
  'Only records having every one of these metafields at exactly its value (as Metafield.value shows it)';

/** What a PATCH-like input takes: the metafields to set or delete, keyed as REST shows them. */
export const METAFIELDS_PATCH_DESCRIPTION =
  'Metafields to set, as {"namespace.key": value} with values typed as REST shows them (integers and ' +
  'booleans as JSON, decimals as strings, json as the JSON itself, other types as strings); null deletes one';

/** The `metafields` field of the update inputs (OrderPatch, CustomerPatch, ProductPatch, CollectionInput). */
export const MetafieldsPatch = () => Optional(() => GraphQLJSONObject, { description: METAFIELDS_PATCH_DESCRIPTION });
