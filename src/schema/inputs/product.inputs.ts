import { Field, Float, InputType, Int } from 'type-graphql';
import { DecimalScalar } from '../scalars/decimal.scalar.js';

// No property initialisers below: an omitted field must stay `undefined`, which is how the domain
// tells "keep" from "set".

@InputType({ description: 'A named block of product text; `name` must be a textarea preset' })
export class TextareaInput {
  @Field() name!: string;
  @Field() text!: string;
}

@InputType({ description: 'How one option value is pictured: exactly one of `color` (HEX) and `imageId`' })
export class ThumbnailInput {
  @Field({ description: 'a value of the option' }) value!: string;
  @Field(() => String, { nullable: true, description: 'HEX colour, #rgb or #rrggbb' }) color?: string | null;
  @Field(() => Int, { nullable: true, description: 'id of an uploaded image' }) imageId?: number | null;
}

@InputType()
export class OptionInput {
  @Field() title!: string;
  @Field(() => Boolean, { nullable: true, description: 'omitted: kept for an existing option (by title), false for a new one' })
  changesLook?: boolean;
  @Field(() => [String], { description: 'allowed values, in display order' }) values!: string[];
  @Field(() => [ThumbnailInput], { nullable: true, description: 'replace the swatches; omitted: kept for values that remain' })
  thumbnails?: ThumbnailInput[];
}

@InputType({ description: 'A variant by its combination: an existing combination keeps its id; omitted fields are kept (or defaulted for a new one)' })
export class VariantInput {
  @Field(() => [String], { description: 'one value per option, in option order ([] for a single-variant product)' })
  variant!: string[];
  @Field(() => DecimalScalar) price!: string;
  @Field(() => DecimalScalar, { nullable: true }) comparePrice?: string | null;
  @Field(() => String, { nullable: true }) sku?: string;
  @Field(() => Boolean, { nullable: true, description: 'at most one; naming one makes every other variant not the default' })
  default?: boolean;
  @Field(() => Boolean, { nullable: true }) ignore?: boolean;
  @Field(() => [Int], { nullable: true, description: "ids of the variant's own images (replace them)" }) imageIds?: number[];
}

/** Every writable product field but the title, shared by ProductPatch and ProductCreate. */
@InputType() // never emitted itself: only the subclasses are reachable
export abstract class ProductFields {
  @Field(() => Boolean, { nullable: true, description: 'true needs options' }) isMulti?: boolean;
  @Field(() => String, { nullable: true }) type?: string;
  @Field(() => [Int], { nullable: true, description: 'ids of manual collections holding the product' }) collectionIds?: number[];
  @Field(() => [String], { nullable: true }) tags?: string[];
  @Field(() => Float, { nullable: true }) shippingWeight?: number;
  @Field(() => Boolean, { nullable: true }) autoFulfilment?: boolean;
  @Field(() => Boolean, { nullable: true }) trackInventory?: boolean;
  @Field(() => String, { nullable: true, description: 'null clears' }) vendor?: string | null;
  @Field(() => String, { nullable: true, description: 'single-variant products: also the variant’s' }) sku?: string;
  @Field(() => String, { nullable: true }) seoMeta?: string;
  @Field(() => String, { nullable: true }) seoTitle?: string;
  @Field(() => String, { nullable: true, description: 'unique; empty derives it from the title' }) seoUrl?: string;
  @Field(() => Boolean, { nullable: true }) isTemplate?: boolean;
  @Field(() => Boolean, { nullable: true }) isDraft?: boolean;
  @Field(() => DecimalScalar, { nullable: true, description: 'single-variant products: also the variant’s' }) price?: string;
  @Field(() => DecimalScalar, { nullable: true, description: 'null clears' }) comparePrice?: string | null;
  @Field(() => [TextareaInput], { nullable: true }) textareas?: TextareaInput[];
  @Field(() => [Int], { nullable: true, description: 'ids of uploaded images, in display order' }) imageIds?: number[];
  @Field(() => [OptionInput], { nullable: true }) options?: OptionInput[];
  @Field(() => [VariantInput], { nullable: true }) variants?: VariantInput[];
}

@InputType({ description: 'Product fields to change; omitted ones are kept; lists given replace the set' })
export class ProductPatch extends ProductFields {
  @Field(() => String, { nullable: true }) title?: string;
}

@InputType({ description: 'A new product: a title, and for a multi-variant product options and variants' })
export class ProductCreate extends ProductFields {
  @Field() title!: string;
}
