import { field, type FieldMap } from '../fields.js';
import type { RestResource } from '../resource.js';

const sortable = { sortable: true } as const;

/**
 * The spec's Collection, read back as written, plus `expand=products`
 * (docs/decisions.md#extensions-beyond-the-spec).
 */
export const collectionResource: RestResource = {
  name: 'Collection',
  versioned: 'Collection',
  sortInput: 'CollectionSort',
  fields: {
    id: field.integer(sortable),
    title: field.string(sortable),
    is_draft: field.boolean(sortable),
    description: field.string(),
    images: field.ids({ description: 'uploaded image ids' }),
    type: field.integer({ ...sortable, description: '0 manually added products; 1 rules based' }),
    seo_title: field.string(sortable),
    seo_url: field.string(sortable),
    seo_meta: field.string(),
    match_products: field.integers({ gql: 'manualProductIds', description: 'product ids of a manual collection' }),
    rules_match_condition: field.nullable(field.integer({ description: '0 match at least one rule; 1 match all' })),
    rules: field.list({
      type: field.integer({ description: '0 title; 1 vendor; 2 type; 3 price; 4 tag; 5 weight; 6 variant title' }),
      condition: field.integer({ description: '0 is exactly … 8 less than' }),
      value: field.string(),
    }),
    created_at: field.timestamp(sortable),
    updated_at: field.timestampOrZero(sortable),
  },
  expand: {
    products: field.integers({ gql: 'productIds', description: 'member product ids, of either kind of collection' }),
  },
};

/**
 * POST /collections and PATCH /collections/{id} (spec "Collection"): title, type, seo_title and
 * seo_url always; match_products for type 0; rules_match_condition and rules for type 1.
 */
export const collectionBody: FieldMap = {
  title: field.required(field.string()),
  is_draft: field.boolean(),
  description: field.string(),
  images: field.integers({ gql: 'imageIds', description: 'uploaded image ids' }),
  type: field.required(field.integer({ description: '0 manually added products; 1 rules based' })),
  seo_title: field.required(field.string()),
  seo_url: field.required(field.string({ description: 'unique URL slug; empty derives it from the title' })),
  seo_meta: field.string(),
  match_products: field.integers({ gql: 'manualProductIds', description: 'type 0: product ids' }),
  rules_match_condition: field.nullable(field.integer({ description: 'type 1: 0 match at least one rule; 1 match all' })),
  rules: field.list({
    type: field.required(field.integer()),
    condition: field.required(field.integer()),
    // The spec allows a string or an int; GraphQL takes the text.
    value: field.required({ schema: { type: ['string', 'number'] }, in: (v: string | number) => String(v) }),
  }),
};
