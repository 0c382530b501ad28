import { field } from '../fields.js';
import type { JsonSchema } from '../json-schema.js';

/**
 * A metafield's value as REST shows and takes it (docs/decisions.md#custom-data-metafields): typed
 * by its definition, integers and booleans as JSON, decimals as strings, json as the JSON itself,
 * dates as ISO 8601 strings, the text types and URLs as strings.
 */
const VALUE: JsonSchema = {
  description:
    'typed by its definition: number_integer an integer, boolean true or false, number_decimal a string such ' +
    'as "12.5", json the JSON itself, date "YYYY-MM-DD", date_time ISO 8601 in UTC, the text types and url strings',
};

/**
 * `metafields` of a record: an expandable relation, `{"namespace.key": value}` in name order
 * (GraphQL's `metafieldValues`, written by PostgreSQL like any relation of the record).
 */
export const metafieldsField = field({
  gql: 'metafieldValues',
  schema: { type: 'object', additionalProperties: VALUE },
  description: 'the custom values of the record, {"namespace.key": value}; {} when it has none',
});

/** `metafields` of a product's variants: shown with `expand=variants,metafields` (or `expand=all`). */
export const variantMetafieldsField = {
  ...metafieldsField,
  shownWith: 'metafields',
  description: 'the custom values of the variant, {"namespace.key": value}, with expand=metafields too',
};

/** `metafields` of a PATCH body: the values to set, each of its definition's type; null deletes one. */
export const metafieldsBodyField = field({
  schema: { type: 'object', additionalProperties: { anyOf: [VALUE, { type: 'null' }] } },
  description:
    'metafields to set, {"namespace.key": value} (each key needs a metafield definition of this kind of ' +
    'record, each value its type); null deletes one; keys not named are kept',
});
