import { Field, Float, InputType, Int } from 'type-graphql';
import { Optional } from '../optional-field.js';
import { DecimalScalar } from '../scalars/decimal.scalar.js';
import { MetafieldsPatch } from './metafield.inputs.js';

// No property initialisers below: an omitted field must stay `undefined`, which is how the domain
// tells "keep" from "set".

@InputType({ description: 'A named block of product text; `name` must be a textarea preset' })
export class TextareaInput {
  @Field({ description: 'Textarea preset name' }) name!: string;
  @Field({ description: 'Text' }) text!: string;
}

@InputType({ description: 'How one option value is pictured: exactly one of `color` (HEX) and `imageId`' })
export class ThumbnailInput {
  @Field({ description: 'A value of the option' }) value!: string;
  @Field(() => String, { nullable: true, description: 'HEX colour, #rgb or #rrggbb' }) color?: string | null;
  @Field(() => Int, { nullable: true, description: 'Id of an uploaded image' }) imageId?: number | null;
}

@InputType({ description: 'A product option and its values' })
export class OptionInput {
  @Field({ description: 'Option name' }) title!: string;
  @Optional(() => Boolean, { description: 'Omitted: kept for an existing option (by title), false for a new one' })
  changesLook?: boolean;
  @Field(() => [String], { description: 'Allowed values, in display order' }) values!: string[];
  @Optional(() => [ThumbnailInput], { description: 'Replace the swatches; omitted: kept for values that remain' })
  thumbnails?: ThumbnailInput[];
}

@InputType({
  description:
    'A variant by its combination: an existing combination keeps its id; omitted fields are ' +
    'kept (or defaulted for a new one)',
})
export class VariantInput {
  @Field(() => [String], { description: 'One value per option, in option order ([] for a single-variant product)' })
  variant!: string[];
  @Field(() => DecimalScalar, { description: 'Price' }) price!: string;
  @Field(() => DecimalScalar, { nullable: true, description: 'Compare-at price' }) comparePrice?: string | null;
  @Optional(() => String, { description: 'SKU' }) sku?: string;
  @Optional(() => Boolean, { description: 'At most one; naming one makes every other variant not the default' })
  default?: boolean;
  @Optional(() => Boolean, { description: 'Whether the combination is not for sale' }) ignore?: boolean;
  @Optional(() => [Int], { description: "Ids of the variant's own images (replace them)" }) imageIds?: number[];
  @MetafieldsPatch() metafields?: Record<string, unknown>;
}

/** Every writable product field but the title, shared by ProductPatch and ProductCreate. */
@InputType() // never emitted itself: only the subclasses are reachable
export abstract class ProductFields {
  @Optional(() => Boolean, { description: 'True needs options' }) isMulti?: boolean;
  @Optional(() => String, { description: 'Product type' }) type?: string;
  @Optional(() => [Int], { description: 'Ids of manual collections holding the product' }) collectionIds?: number[];
  @Optional(() => [String], { description: 'Tags' }) tags?: string[];
  @Optional(() => Float, { description: 'Shipping weight of one unit' }) shippingWeight?: number;
  @Optional(() => Boolean, { description: 'Whether orders of it are fulfilled automatically' })
  autoFulfilment?: boolean;
  @Optional(() => Boolean, { description: 'Whether stock is tracked' }) trackInventory?: boolean;
  @Field(() => String, { nullable: true, description: 'Null clears' }) vendor?: string | null;
  @Optional(() => String, { description: 'Single-variant products: also the variant’s' }) sku?: string;
  @Optional(() => String, { description: 'SEO meta description' }) seoMeta?: string;
  @Optional(() => String, { description: 'SEO title' }) seoTitle?: string;
  @Optional(() => String, { description: 'Unique; empty derives it from the title' }) seoUrl?: string;
  @Optional(() => Boolean, { description: 'Whether the product is a template for new ones' }) isTemplate?: boolean;
  @Optional(() => Boolean, { description: 'Whether the product is a draft (not for sale)' }) isDraft?: boolean;
  @Optional(() => DecimalScalar, { description: 'Single-variant products: also the variant’s' }) price?: string;
  @Field(() => DecimalScalar, { nullable: true, description: 'Null clears' }) comparePrice?: string | null;
  @Optional(() => [TextareaInput], { description: 'Named blocks of product text' }) textareas?: TextareaInput[];
  @Optional(() => [Int], { description: 'Ids of uploaded images, in display order' }) imageIds?: number[];
  @Optional(() => [OptionInput], { description: 'Options with their values (multi-variant products)' })
  options?: OptionInput[];
  @Optional(() => [VariantInput], { description: 'Variants by combination' }) variants?: VariantInput[];
}

@InputType({ description: 'Product fields to change; omitted ones are kept; lists given replace the set' })
export class ProductPatch extends ProductFields {
  @Optional(() => String, { description: 'Title' }) title?: string;
  @MetafieldsPatch() metafields?: Record<string, unknown>;
}

@InputType({ description: 'A new product: a title, and for a multi-variant product options and variants' })
export class ProductCreate extends ProductFields {
  @Field({ description: 'Title' }) title!: string;
}
