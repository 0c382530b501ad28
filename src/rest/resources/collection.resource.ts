import { type FieldMap, field } from '../fields.js';
import type { RestResource } from '../resource.js';
import { metafieldsBodyField, metafieldsField } from './metafield.fields.js';

/**
 * The spec's Collection, read back as written, plus `expand=products`
 * (docs/decisions.md#extensions-beyond-the-spec).
 */
export const collectionResource: RestResource = {
  name: 'Collection',
  versioned: 'Collection',
  sortInput: 'CollectionSort',
  fields: {
    id: field(),
    title: field(),
    is_draft: field(),
    description: field(),
    images: field({ gql: 'imageIds', description: 'uploaded image ids' }),
    type: field({ description: '0 manually added products; 1 rules based' }),
    seo_title: field(),
    seo_url: field(),
    seo_meta: field(),
    match_products: field({ gql: 'manualProductIds', description: 'product ids of a manual collection' }),
    rules_match_condition: field({ description: '0 match at least one rule; 1 match all' }),
    rules: field.nested({
      type: field({ description: '0 title; 1 vendor; 2 type; 3 price; 4 tag; 5 weight; 6 variant title' }),
      condition: field({ description: '0 is exactly … 8 less than' }),
      value: field(),
    }),
    created_at: field(),
    updated_at: field.timestampOrZero(),
  },
  expand: {
    products: field({ gql: 'productIds', description: 'member product ids, of either kind of collection' }),
    metafields: metafieldsField,
  },
};

/**
 * POST /collections and PATCH /collections/{id} (spec "Collection"): title, type, seo_title and
 * seo_url always (CollectionInput requires them); match_products for type 0;
 * rules_match_condition and rules for type 1 (the domain checks which kind needs what).
 */
export const collectionBody: FieldMap = {
  title: field(),
  is_draft: field(),
  description: field(),
  images: field({ gql: 'imageIds', description: 'uploaded image ids' }),
  type: field({ description: '0 manually added products; 1 rules based' }),
  seo_title: field(),
  seo_url: field({ description: 'unique URL slug; empty derives it from the title' }),
  seo_meta: field(),
  match_products: field({ gql: 'manualProductIds', description: 'type 0: product ids' }),
  rules_match_condition: field({ description: 'type 1: 0 match at least one rule; 1 match all' }),
  rules: field.nested({
    type: field(),
    condition: field(),
    // The spec allows a string or an int; GraphQL takes the text.
    value: field({ schema: { type: ['string', 'number'] }, in: (v: string | number) => String(v) }),
  }),
  metafields: metafieldsBodyField,
};
