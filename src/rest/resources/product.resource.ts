import { type FieldMap, field } from '../fields.js';
import type { RestResource } from '../resource.js';
import { imageFields } from './image.fields.js';
import { metafieldsBodyField, metafieldsField, variantMetafieldsField } from './metafield.fields.js';

/** The spec's Product (docs/decisions.md#spec-product), expandable relations included. */
export const productResource: RestResource = {
  name: 'Product',
  versioned: 'Product',
  sortInput: 'ProductSort',
  filterInput: 'ProductFilter',
  fields: {
    id: field(),
    title: field(),
    is_multi: field({ description: 'multi-variant as opposed to single-variant' }),
    type: field({ description: 'product type' }),
    collections: field({ gql: 'collectionIds', description: 'ids of the manual collections holding the product' }),
    tags: field(),
    shipping_weight: field(),
    auto_fulfilment: field(),
    track_inventory: field(),
    vendor: field(),
    sku: field(),
    seo_meta: field(),
    seo_title: field(),
    seo_url: field({ description: 'generated from the title when not given' }),
    is_template: field(),
    is_draft: field(),
    price: field.decimalNumber({ description: 'single-variant products' }),
    compare_price: field.decimalNumber({ description: 'single-variant products' }),
    created_at: field(),
    updated_at: field.timestampOrZero(),
  },
  expand: {
    textareas: field.nested({ name: field(), text: field() }),
    images: field.nested(imageFields, { description: 'used if no variant changes the look' }),
    options: field.nested({
      title: field(),
      changes_look: field(),
      values: field(),
      thumbnails: field.nested(
        { value: field(), color: field({ description: 'HEX colour' }), image: field.nested(imageFields) },
        {
          description: 'each has value and either color or image',
          // The spec pictures a value by a colour or an image: show only the one that is set.
          either: ['color', 'image'],
          schema: (graphql) => ({ ...graphql, items: { ...graphql.items, required: ['value'] } }),
        },
      ),
    }),
    variants: field.nested({
      id: field(),
      variant: field({ description: 'a combination of option values' }),
      price: field.decimalNumber(),
      compare_price: field.decimalNumber(),
      sku: field(),
      default: field(),
      ignore: field({ description: 'the variant should not be used' }),
      images: field.nested(imageFields, { description: "the variant's own images, if it changes the look" }),
      metafields: variantMetafieldsField,
    }),
    metafields: metafieldsField,
  },
};

/**
 * PATCH /products/{id} (spec "PATCH /products/{id} body details"): lists given replace the set.
 * Images, thumbnails' images and collections are given by id. The ProductPatch input decides types,
 * what is required and what takes null; the domain decides meaning (existing ids, option values, one default, …).
 */
export const productPatchBody: FieldMap = {
  title: field(),
  is_multi: field({ description: 'true needs options' }),
  type: field(),
  collections: field({ gql: 'collectionIds', description: 'ids of manual collections' }),
  tags: field(),
  shipping_weight: field(),
  auto_fulfilment: field(),
  track_inventory: field(),
  vendor: field(),
  sku: field(),
  seo_meta: field(),
  seo_title: field(),
  seo_url: field({ description: 'unique URL slug; empty derives it from the title' }),
  is_template: field(),
  is_draft: field(),
  price: field({ description: 'not negative' }),
  compare_price: field({ description: 'not negative; null clears it' }),
  textareas: field.nested({ name: field(), text: field() }, { description: 'name: a textarea preset' }),
  images: field({ gql: 'imageIds', description: 'image ids' }),
  options: field.nested({
    title: field(),
    changes_look: field(),
    values: field(),
    thumbnails: field.nested(
      {
        value: field(),
        color: field({ description: 'HEX colour' }),
        image: field({ gql: 'imageId', description: 'image id' }),
      },
      { description: 'each: value and either color or image' },
    ),
  }),
  variants: field.nested({
    variant: field({ description: 'one value per option' }),
    price: field({ description: 'not negative' }),
    compare_price: field({ description: 'not negative; null clears it' }),
    sku: field(),
    default: field(),
    ignore: field(),
    images: field({ gql: 'imageIds', description: 'image ids' }),
    metafields: metafieldsBodyField,
  }),
  metafields: metafieldsBodyField,
};
