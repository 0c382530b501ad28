import { field, type FieldMap } from '../fields.js';
import type { RestResource } from '../resource.js';
import { imageFields } from './image.fields.js';

const sortable = { sortable: true } as const;

/** The spec's Product (docs/decisions.md#spec-product), expandable relations included. */
export const productResource: RestResource = {
  name: 'Product',
  versioned: 'Product',
  sortInput: 'ProductSort',
  fields: {
    id: field.integer(sortable),
    title: field.string(sortable),
    is_multi: field.boolean({ ...sortable, description: 'multi-variant as opposed to single-variant' }),
    type: field.string({ ...sortable, description: 'product type' }),
    collections: field.integers({ gql: 'collectionIds', description: 'ids of the manual collections holding the product' }),
    tags: field.strings(),
    shipping_weight: field.number(sortable),
    auto_fulfilment: field.boolean(),
    track_inventory: field.boolean(),
    vendor: field.nullable(field.string(sortable)),
    sku: field.string(sortable),
    seo_meta: field.string(),
    seo_title: field.string(),
    seo_url: field.string({ ...sortable, description: 'generated from the title when not given' }),
    is_template: field.boolean(sortable),
    is_draft: field.boolean(sortable),
    price: field.decimalNumber({ ...sortable, description: 'single-variant products' }),
    compare_price: field.nullable(field.decimalNumber({ ...sortable, description: 'single-variant products' })),
    created_at: field.timestamp(sortable),
    updated_at: field.timestampOrZero(sortable),
  },
  expand: {
    textareas: field.list({ name: field.string(), text: field.string() }),
    images: field.list(imageFields, { description: 'used if no variant changes the look' }),
    options: field.list(
      {
        title: field.string(),
        changes_look: field.boolean(),
        values: field.strings(),
        thumbnails: field.list(
          {
            value: field.string(),
            color: field.nullable(field.string({ description: 'HEX colour' })),
            image: field.nullable(field.object(imageFields)),
          },
          {
            description: 'each has value and either color or image',
            // The spec pictures a value by a colour or an image: show only the one that is set.
            out: (thumbnails: Record<string, unknown>[]) =>
              thumbnails.map(({ value, color, image }) => (color != null ? { value, color } : { value, image })),
          },
        ),
      },
    ),
    variants: field.list({
      id: field.integer(),
      variant: field.strings({ description: 'a combination of option values' }),
      price: field.decimalNumber(),
      compare_price: field.nullable(field.decimalNumber()),
      sku: field.string(),
      default: field.boolean(),
      ignore: field.boolean({ description: 'the variant should not be used' }),
      images: field.list(imageFields, { description: "the variant's own images, if it changes the look" }),
    }),
  },
};

const text = () => field.string();
const required = field.required;

/**
 * PATCH /products/{id} (spec "PATCH /products/{id} body details"): all optional; lists given
 * replace the set. Images, thumbnails' images and collections are given by id. Types and keys are
 * checked here; meaning (existing ids, option values, one default, …) by the domain.
 */
export const productPatchBody: FieldMap = {
  title: text(),
  is_multi: field.boolean({ description: 'true needs options' }),
  type: text(),
  collections: field.integers({ gql: 'collectionIds', description: 'ids of manual collections' }),
  tags: field.strings(),
  shipping_weight: field.number(),
  auto_fulfilment: field.boolean(),
  track_inventory: field.boolean(),
  vendor: field.nullable(text()),
  sku: text(),
  seo_meta: text(),
  seo_title: text(),
  seo_url: field.string({ description: 'unique URL slug; empty derives it from the title' }),
  is_template: field.boolean(),
  is_draft: field.boolean(),
  price: field.money(),
  compare_price: field.nullable(field.money()),
  textareas: field.list({ name: required(text()), text: required(text()) }, { description: 'name: a textarea preset' }),
  images: field.integers({ gql: 'imageIds', description: 'image ids' }),
  options: field.list({
    title: required(text()),
    changes_look: field.boolean(),
    values: required(field.strings()),
    thumbnails: field.list(
      {
        value: required(text()),
        color: field.nullable(field.string({ description: 'HEX colour' })),
        image: field.nullable(field.integer({ gql: 'imageId', description: 'image id' })),
      },
      { description: 'each: value and either color or image' },
    ),
  }),
  variants: field.list({
    variant: required(field.strings({ description: 'one value per option' })),
    price: required(field.money()),
    compare_price: field.nullable(field.money()),
    sku: text(),
    default: field.boolean(),
    ignore: field.boolean(),
    images: field.integers({ gql: 'imageIds', description: 'image ids' }),
  }),
};
