import type { EntityManager } from '@mikro-orm/postgresql';
import { Image } from '../entities/image.entity.js';
import { OptionThumbnail } from '../entities/option-thumbnail.entity.js';
import type { Product } from '../entities/product.entity.js';
import { ProductOption } from '../entities/product-option.entity.js';
import { ProductVariant } from '../entities/product-variant.entity.js';
import { VariantImage } from '../entities/variant-image.entity.js';
import type { OptionInput, ProductFields, VariantInput } from '../schema/inputs/product.inputs.js';
import type { FieldError } from './errors.js';
import { checkAmount, checkDistinct, checkText } from './input-checks.js';
import { toCents } from './money.js';
import { replaceOrdered } from './ordered-links.js';

/**
 * Options and variants of a product (docs/decisions.md#product-patch). Options given replace the set
 * (an option is the same row while its title stays); variants given replace the set, and a variant
 * keeps its id while its combination of option values is unchanged, so line items and stock keep
 * pointing at it. Every product keeps at least one variant; a single-variant product has exactly
 * one, with an empty combination, mirroring the product's price, compare price and SKU.
 */

const HEX = /^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/;

export interface VariantState {
  options: ProductOption[];
  thumbnails: OptionThumbnail[];
  variants: ProductVariant[];
}

export async function loadVariantState(em: EntityManager, product: Product): Promise<VariantState> {
  const options = await em.find(ProductOption, { product }, { orderBy: [{ position: 'asc' }, { id: 'asc' }] });
  const thumbnails = options.length
    ? await em.find(OptionThumbnail, { option: { $in: options } }, { orderBy: [{ position: 'asc' }, { id: 'asc' }] })
    : [];
  const variants = await em.find(ProductVariant, { product }, { orderBy: [{ position: 'asc' }, { id: 'asc' }] });
  return { options, thumbnails, variants };
}

interface OptionShape {
  title: string;
  values: string[];
}

/** The variants after the write: each kept row (same combination) or a new one, in order. */
interface VariantSlot {
  combination: string[];
  row?: ProductVariant;
  input?: VariantInput;
  isDefault: boolean;
}

export interface VariantPlan {
  isMulti: boolean;
  slots: VariantSlot[];
  removed: ProductVariant[];
  /** The product's price, compare price and SKU after the write (mirrored by a single variant). */
  price: string;
  comparePrice: string | null;
  sku: string;
}

const keyOf = (combination: readonly string[]) => JSON.stringify(combination);

function checkOptions(options: OptionInput[], errors: FieldError[]): void {
  checkDistinct(options, 'options', errors, (o) => o.title.trim().toLowerCase());
  options.forEach((option, i) => {
    const at = `options[${i}]`;
    checkText(option.title, `${at}.title`, errors, { required: true });
    if (option.values.length === 0) errors.push({ field: `${at}.values`, message: 'must hold at least one value' });
    option.values.forEach((value, j) => {
      checkText(value, `${at}.values[${j}]`, errors, { required: true });
    });
    checkDistinct(option.values, `${at}.values`, errors);
    const thumbnails = option.thumbnails ?? [];
    checkDistinct(thumbnails, `${at}.thumbnails`, errors, (t) => t.value);
    thumbnails.forEach((thumbnail, k) => {
      const th = `${at}.thumbnails[${k}]`;
      if (!option.values.includes(thumbnail.value)) {
        errors.push({ field: `${th}.value`, message: `"${thumbnail.value}" is not a value of option ${option.title}` });
      }
      const hasColor = thumbnail.color != null;
      const hasImage = thumbnail.imageId != null;
      if (hasColor && hasImage)
        errors.push({ field: `${th}.color`, message: 'give either a color or an image, not both' });
      else if (!hasColor && !hasImage) errors.push({ field: th, message: 'needs a color or an image' });
      if (hasColor && !HEX.test(thumbnail.color!))
        errors.push({ field: `${th}.color`, message: `"${thumbnail.color}" is not a HEX colour such as #ff0000` });
    });
  });
}

function checkVariants(variants: VariantInput[], options: OptionShape[], errors: FieldError[]): void {
  if (variants.length === 0) errors.push({ field: 'variants', message: 'must hold at least one variant' });
  const firstOf = new Map<string, number>();
  let defaultAt: number | undefined;
  variants.forEach((variant, i) => {
    const at = `variants[${i}]`;
    if (variant.variant.length !== options.length) {
      errors.push({
        field: `${at}.variant`,
        message: options.length
          ? `must have ${options.length} value(s), one per option (${options.map((o) => o.title).join(', ')})`
          : 'must be empty: the product has no options',
      });
    } else {
      variant.variant.forEach((value, j) => {
        if (!options[j].values.includes(value)) {
          errors.push({
            field: `${at}.variant[${j}]`,
            message: `"${value}" is not a value of option ${options[j].title} (${options[j].values.join(', ')})`,
          });
        }
      });
    }
    const key = keyOf(variant.variant);
    const first = firstOf.get(key);
    if (first !== undefined)
      errors.push({ field: `${at}.variant`, message: `repeats the combination of variants[${first}]` });
    else firstOf.set(key, i);
    if (variant.default) {
      if (defaultAt !== undefined)
        errors.push({
          field: `${at}.default`,
          message: `only one variant can be the default (variants[${defaultAt}] is)`,
        });
      else defaultAt = i;
    }
    checkAmount(variant.price, `${at}.price`, errors);
    checkAmount(variant.comparePrice, `${at}.comparePrice`, errors);
    checkText(variant.sku, `${at}.sku`, errors);
    checkDistinct(variant.imageIds ?? [], `${at}.imageIds`, errors);
  });
}

const sameAmount = (a: string | null, b: string | null) =>
  a === null || b === null ? a === b : toCents(a) === toCents(b);

/**
 * The stored options' positions in the order `given` lists them, when it lists the same titles in
 * another order; undefined otherwise (none given, the same order, or other options).
 */
function reordering(state: VariantState, given: readonly { title: string }[] | undefined): number[] | undefined {
  if (!given || given.length !== state.options.length) return undefined;
  const titles = state.options.map((o) => o.title);
  const order = given.map((o) => titles.indexOf(o.title));
  if (order.some((j) => j < 0) || new Set(order).size !== order.length) return undefined;
  return order.every((j, i) => j === i) ? undefined : order;
}

/**
 * Checks options and variants of the write against each other and the product's current state,
 * and decides the variants after it. Pure: nothing is changed here.
 */
export function planVariants(
  product: Product,
  input: ProductFields,
  state: VariantState,
  isNew: boolean,
  errors: FieldError[],
): VariantPlan {
  if (input.options) checkOptions(input.options, errors);
  const options: OptionShape[] = input.options ?? state.options.map((o) => ({ title: o.title, values: o.values }));
  const isMulti = input.isMulti ?? product.isMulti;
  if (isMulti && options.length === 0) errors.push({ field: 'options', message: 'is required when is_multi is true' });
  if (!isMulti && options.length > 0) {
    errors.push({
      field: input.options ? 'options' : 'isMulti',
      message: 'a product with options is multi-variant: is_multi must be true',
    });
  }

  // Options given again in another order (the same titles): each stored combination is read in the
  // new order, so a variant keeps its id and its meaning (applyVariants writes it so).
  const order = reordering(state, input.options);
  const combinationOf = (v: ProductVariant) => (order ? order.map((j) => v.optionValues[j]) : v.optionValues);
  const byCombination = new Map(state.variants.map((v) => [keyOf(combinationOf(v)), v]));
  let slots: VariantSlot[];
  if (input.variants) {
    checkVariants(input.variants, options, errors);
    const named = input.variants.some((v) => v.default);
    slots = input.variants.map((v) => {
      const row = byCombination.get(keyOf(v.variant));
      return {
        combination: v.variant,
        row,
        input: v,
        isDefault: v.default ?? (named ? false : (row?.isDefault ?? false)),
      };
    });
  } else {
    const fits = (v: ProductVariant) => {
      const values = combinationOf(v);
      return values.length === options.length && values.every((value, j) => options[j].values.includes(value));
    };
    const misfits = state.variants.filter((v) => !fits(v));
    if (!isMulti && (misfits.length > 0 || state.variants.length === 0)) {
      // Becoming (or created as) single-variant: one new variant with no combination.
      slots = [{ combination: [], row: byCombination.get(keyOf([])), isDefault: true }];
    } else if (misfits.length > 0) {
      slots = [];
      errors.push({
        field: 'variants',
        message:
          `are required: the existing combinations ` +
          `(${misfits.map((v) => `[${combinationOf(v).join(', ')}]`).join(', ')}) ` +
          `do not fit the options`,
      });
    } else {
      slots = state.variants.map((row) => ({ combination: combinationOf(row), row, isDefault: row.isDefault }));
      if (slots.length === 0 && options.length > 0)
        errors.push({ field: 'variants', message: 'are required: a multi-variant product needs at least one variant' });
    }
  }
  // The one variant of a single-variant product is its default unless the body says otherwise.
  if (!isMulti && slots.length === 1 && slots[0].input?.default === undefined) slots[0].isDefault = true;
  const kept = new Set(slots.map((s) => s.row).filter(Boolean));
  const removed = state.variants.filter((v) => !kept.has(v));

  // A single-variant product has one price: the product's and its variant's agree.
  let price = input.price ?? (isNew ? '0.00' : product.price);
  let comparePrice = input.comparePrice !== undefined ? input.comparePrice : product.comparePrice;
  let sku = input.sku ?? product.sku;
  const single = !isMulti && input.variants?.length === 1 ? input.variants[0] : undefined;
  if (single) {
    if (input.price !== undefined && !sameAmount(input.price, single.price)) {
      errors.push({
        field: 'variants[0].price',
        message: 'differs from price: a single-variant product has one price',
      });
    }
    if (
      input.comparePrice !== undefined &&
      single.comparePrice !== undefined &&
      !sameAmount(input.comparePrice, single.comparePrice)
    ) {
      errors.push({
        field: 'variants[0].comparePrice',
        message: 'differs from compare_price: a single-variant product has one',
      });
    }
    if (input.sku !== undefined && single.sku !== undefined && input.sku !== single.sku) {
      errors.push({ field: 'variants[0].sku', message: 'differs from sku: a single-variant product has one' });
    }
    price = input.price ?? single.price;
    if (input.comparePrice === undefined && single.comparePrice !== undefined) comparePrice = single.comparePrice;
    sku = input.sku ?? single.sku ?? sku;
  } else {
    // A multi-variant product shows its default variant's price, compare price and SKU (as the
    // schema describes them), unless the write gives its own; one becoming single-variant keeps
    // the default's (the product-level values of a multi product were not its price: a product
    // created over GraphQL held 0.00, and converted it went on sale for nothing).
    const shownBy: { row?: ProductVariant; input?: VariantInput } | undefined = isMulti
      ? (slots.find((slot) => slot.isDefault) ?? slots[0])
      : product.isMulti && !input.variants
        ? { row: state.variants.find((v) => v.isDefault) ?? state.variants[0] }
        : undefined;
    if (shownBy) {
      if (input.price === undefined) price = shownBy.input?.price ?? shownBy.row?.price ?? price;
      if (input.comparePrice === undefined)
        comparePrice =
          shownBy.input?.comparePrice !== undefined ? shownBy.input.comparePrice : (shownBy.row?.comparePrice ?? null);
      if (input.sku === undefined) sku = shownBy.input?.sku ?? shownBy.row?.sku ?? sku;
    }
  }
  return { isMulti, slots, removed, price, comparePrice, sku };
}

/** Replaces the options (kept by title) and their thumbnails. Only called when options were given. */
export function applyOptions(em: EntityManager, product: Product, options: OptionInput[], state: VariantState): void {
  const byTitle = new Map(state.options.map((o) => [o.title, o]));
  const kept = new Set<ProductOption>();
  options.forEach((input, position) => {
    const existing = byTitle.get(input.title);
    const option = existing ?? Object.assign(new ProductOption(), { product, title: input.title });
    if (!existing) em.persist(option);
    kept.add(option);
    option.position = position;
    option.values = input.values;
    option.changesLook = input.changesLook ?? option.changesLook;
    const current = state.thumbnails.filter((t) => t.option === option);
    // Thumbnails given replace the option's; omitted, those of values that remain are kept.
    for (const thumbnail of current) {
      if (input.thumbnails || !input.values.includes(thumbnail.value)) em.remove(thumbnail);
    }
    input.thumbnails?.forEach((t, i) => {
      em.persist(
        Object.assign(new OptionThumbnail(), {
          option,
          position: i,
          value: t.value,
          color: t.color != null ? t.color.toLowerCase() : null,
          image: t.imageId != null ? em.getReference(Image, t.imageId) : null,
        }),
      );
    });
  });
  for (const option of state.options) if (!kept.has(option)) em.remove(option);
}

/** The unique (product, combination) of variants: deferrable, for a reordering's writes. */
export const VARIANT_COMBINATIONS = 'product_variant_product_id_option_values_unique';

/**
 * Writes the planned variants: kept rows change in place (omitted fields keep their values), new
 * combinations get new rows, removed ones are deleted (their stock rows cascade; line items keep
 * their snapshot and lose only the link). Answers whether the options' reordering moved kept
 * variants' values: their unique combinations are then checked once the write is flushed
 * (`checkDeferred`), not at the commit, where a violation would be no answer of the write's.
 */
export async function applyVariants(em: EntityManager, product: Product, plan: VariantPlan): Promise<boolean> {
  const withImages = plan.slots.filter((s) => s.row && s.input?.imageIds);
  const currentImages = withImages.length
    ? await em.find(
        VariantImage,
        { variant: { $in: withImages.map((s) => s.row!) } },
        { orderBy: [{ position: 'asc' }, { id: 'asc' }] },
      )
    : [];
  for (const removed of plan.removed) em.remove(removed);
  // Values reordered with the options may swap between kept variants, or take a removed one's
  // (deleted after the updates): the combinations are unique at the commit, not row by row.
  const reordered = plan.slots.some((s) => s.row && keyOf(s.row.optionValues) !== keyOf(s.combination));
  if (reordered) await em.execute(`set constraints ${VARIANT_COMBINATIONS} deferred`, [], 'run');
  plan.slots.forEach((slot, position) => {
    const variant =
      slot.row ??
      Object.assign(new ProductVariant(), {
        product,
        optionValues: slot.combination,
        sku: '',
        comparePrice: null,
        ignore: false,
      });
    if (!slot.row) em.persist(variant);
    // A kept variant whose options were given in another order holds its values in that order.
    else if (reordered && keyOf(slot.row.optionValues) !== keyOf(slot.combination))
      variant.optionValues = slot.combination;
    variant.position = position;
    variant.isDefault = slot.isDefault;
    const input = slot.input;
    if (input) {
      variant.price = input.price;
      if (input.comparePrice !== undefined) variant.comparePrice = input.comparePrice;
      if (input.sku !== undefined) variant.sku = input.sku;
      if (input.ignore !== undefined) variant.ignore = input.ignore;
    }
    if (!plan.isMulti) {
      variant.price = plan.price;
      variant.comparePrice = plan.comparePrice;
      variant.sku = plan.sku;
    }
    if (input?.imageIds) {
      replaceOrdered(
        em,
        currentImages.filter((link) => link.variant === variant),
        (link) => link.image.id,
        input.imageIds,
        (imageId) => Object.assign(new VariantImage(), { variant, image: em.getReference(Image, imageId) }),
      );
    }
  });
  return reordered;
}
