import { type EntityManager, UniqueConstraintViolationException } from '@mikro-orm/postgresql';
import { now } from '../clock.js';
import { Product } from '../entities/product.entity.js';
import { ProductVariant } from '../entities/product-variant.entity.js';
import { MetafieldOwnerType } from '../schema/enums/metafield-owner-type.enum.js';
import type { ProductCreate, ProductFields, ProductPatch, VariantInput } from '../schema/inputs/product.inputs.js';
import {
  changedMembers,
  type LockedProduct,
  lockCatalogueRows,
  lockProductWithRelated,
  moveVersions,
  type ProductWriteReach,
} from './catalogue-locks.js';
import { ConflictError, type FieldError, NotFoundError, ValidationError } from './errors.js';
import { restKeys } from './event-data.js';
import { type Actor, recordEvent } from './events.js';
import { checkAmount, checkText } from './input-checks.js';
import { retireStock } from './inventory.js';
import { METAFIELD_OWNERS } from './metafield-owners.js';
import { changesFromMap, type MetafieldChange, writeRecordMetafields } from './metafield-values.js';
import { beginVersionedWrite, type ExpectedVersion } from './preconditions.js';
import {
  checkImageRefs,
  checkManualCollections,
  checkTags,
  checkTextareas,
  replaceImages,
  replaceManualCollections,
  replaceTextareas,
} from './product-relations.js';
import {
  applyOptions,
  applyVariants,
  loadVariantState,
  planVariants,
  VARIANT_COMBINATIONS,
  type VariantState,
} from './product-variants.js';
import { freeSlug, SLUG, slugTaken } from './slug.js';

const SEO_META_LIMIT = 1000;

function checkScalars(input: ProductFields & { title?: string }, errors: FieldError[]): void {
  checkText(input.title, 'title', errors, { required: true });
  checkText(input.type, 'type', errors);
  checkText(input.vendor, 'vendor', errors);
  checkText(input.sku, 'sku', errors);
  checkText(input.seoTitle, 'seoTitle', errors);
  checkText(input.seoMeta, 'seoMeta', errors, { limit: SEO_META_LIMIT });
  checkText(input.seoUrl, 'seoUrl', errors);
  if (input.shippingWeight !== undefined && input.shippingWeight < 0)
    errors.push({ field: 'shippingWeight', message: 'must not be negative' });
  checkAmount(input.price, 'price', errors);
  checkAmount(input.comparePrice, 'comparePrice', errors);
}

/**
 * `seo_url` (docs/decisions.md#product-patch): derived from the title when a product is created without one or a
 * write sends it empty, made unique by a suffix; a title change alone keeps the URL. An explicit
 * URL must be a slug and free (409 otherwise); an unchanged one is not re-checked.
 */
async function seoUrlOf(
  em: EntityManager,
  product: Product,
  input: ProductFields,
  isNew: boolean,
  errors: FieldError[],
): Promise<string | undefined> {
  const given = input.seoUrl?.trim();
  if (given === '' || (isNew && given === undefined))
    return freeSlug(em, 'product', product.title, isNew ? 0 : product.id);
  if (given === undefined || given === product.seoUrl) return undefined;
  if (!SLUG.test(given)) {
    errors.push({
      field: 'seoUrl',
      message: `"${given}" is not a URL slug: lower-case letters and digits in words joined by single hyphens`,
    });
    return undefined;
  }
  return given;
}

function assignScalars(product: Product, input: ProductFields & { title?: string }): void {
  if (input.title !== undefined) product.title = input.title;
  if (input.type !== undefined) product.type = input.type;
  if (input.tags !== undefined) product.tags = input.tags;
  if (input.shippingWeight !== undefined) product.shippingWeight = input.shippingWeight;
  if (input.autoFulfilment !== undefined) product.autoFulfilment = input.autoFulfilment;
  if (input.trackInventory !== undefined) product.trackInventory = input.trackInventory;
  if (input.vendor !== undefined) product.vendor = input.vendor;
  if (input.seoMeta !== undefined) product.seoMeta = input.seoMeta;
  if (input.seoTitle !== undefined) product.seoTitle = input.seoTitle;
  if (input.isTemplate !== undefined) product.isTemplate = input.isTemplate;
  if (input.isDraft !== undefined) product.isDraft = input.isDraft;
}

async function flushProduct(em: EntityManager, seoUrl: string, reordered: boolean): Promise<void> {
  try {
    await em.flush();
    // The combinations deferred by a reordering, checked now (set back to immediate).
    if (reordered) await em.execute(`set constraints ${VARIANT_COMBINATIONS} immediate`, [], 'run');
  } catch (error) {
    if (error instanceof UniqueConstraintViolationException && error.message.includes(VARIANT_COMBINATIONS))
      throw new ConflictError('Two variants would have the same option values', 'variants');
    // A concurrent write took the URL between our check and ours (its constraint alone: another
    // unique, such as the variants' combinations, is no seo_url's conflict).
    if (error instanceof UniqueConstraintViolationException && error.message.includes('product_seo_url_unique'))
      throw new ConflictError(`The seo_url ${seoUrl} is already used by another product`, 'seoUrl');
    throw error;
  }
}

/**
 * Checks everything first (every bad value named at once, with `errors` the caller found already:
 * its metafields'), then writes scalars, options, variants and the set-valued relations. Runs in
 * the caller's transaction: a refusal changes nothing.
 */
async function writeProduct(
  em: EntityManager,
  product: Product,
  input: ProductFields & { title?: string },
  isNew: boolean,
  actor: Actor,
  errors: FieldError[],
): Promise<Product> {
  checkScalars(input, errors);
  checkTags(input.tags, errors);
  await checkImageRefs(em, input, errors);
  await checkTextareas(em, input, errors);
  await checkManualCollections(em, input.collectionIds, errors);
  const state: VariantState = isNew
    ? { options: [], thumbnails: [], variants: [] }
    : await loadVariantState(em, product);
  const plan = planVariants(product, input, state, isNew, errors);
  if (input.title !== undefined) product.title = input.title;
  const seoUrl = await seoUrlOf(em, product, input, isNew, errors);
  if (errors.length) throw new ValidationError(errors);
  if (seoUrl !== undefined && (await slugTaken(em, 'product', seoUrl, isNew ? 0 : product.id))) {
    throw new ConflictError(`The seo_url ${seoUrl} is already used by another product`, 'seoUrl');
  }

  assignScalars(product, input);
  if (seoUrl !== undefined) product.seoUrl = seoUrl;
  product.isMulti = plan.isMulti;
  product.price = plan.price;
  product.comparePrice = plan.comparePrice;
  product.sku = plan.sku;
  if (isNew) em.persist(product);
  else product.updatedAt = now();

  if (input.options) applyOptions(em, product, input.options, state);
  const removed = plan.removed.map((variant) => variant.id);
  await retireStock(em, product.id, removed, { reason: 'set', reference: productReference(product.id), actor });
  const reordered = await applyVariants(em, product, plan);
  await replaceTextareas(em, product, input);
  await replaceImages(em, product, input);
  await replaceManualCollections(em, product, input);
  await flushProduct(em, product.seoUrl, reordered);
  return product;
}

/**
 * The product row locked for the rest of the transaction, at the version the caller expects, after
 * the records its write may move (catalogue-locks.ts).
 */
async function lockProduct(
  em: EntityManager,
  id: number,
  expected: ExpectedVersion,
  reach: ProductWriteReach,
): Promise<LockedProduct & { product: Product }> {
  const locked = await lockProductWithRelated(em, id, reach);
  const product = locked && (await em.findOne(Product, { id }));
  if (!locked || !product) throw new NotFoundError('Product', id);
  beginVersionedWrite(`Product ${id}`, product, expected);
  return { ...locked, product };
}

const sameTags = (a: readonly string[], b: readonly string[]) =>
  a.length === b.length && a.every((tag) => b.includes(tag));

/** PATCH a product (docs/decisions.md#product-patch); the row is locked for the whole transaction. */
export async function updateProduct(
  em: EntityManager,
  actor: Actor,
  id: number,
  patch: ProductPatch,
  expected?: ExpectedVersion,
): Promise<Product> {
  const locked = await lockProduct(em, id, expected, {
    joining: patch.collectionIds ?? null,
    movesBuyers: (tags) => patch.tags !== undefined && !sameTags(tags, patch.tags),
  });
  const errors: FieldError[] = [];
  const metafields =
    patch.metafields && (await changesFromMap(em, MetafieldOwnerType.PRODUCT, patch.metafields, 'metafields', errors));
  const variantChanges = await variantMetafieldChanges(em, patch.variants, errors);
  const tagsBefore = [...locked.product.tags];
  const product = await writeProduct(em, locked.product, patch, false, actor, errors);
  const variants = await writeVariantMetafields(em, product, patch.variants, variantChanges);
  // The collections it joined or left show it in their match_products: their versions move too.
  if (patch.collectionIds) await moveVersions(em, 'collection', changedMembers(locked.linked, patch.collectionIds));
  // Its buyers' tags are the current tags of what they bought: when its tags change, theirs may.
  if (!sameTags(tagsBefore, product.tags)) await moveVersions(em, 'customer', locked.buyers);
  const owner = METAFIELD_OWNERS[MetafieldOwnerType.PRODUCT];
  const written = metafields && (await writeRecordMetafields(em, owner, product.id, metafields, now()));
  const { metafields: _typed, ...fields } = patch;
  // A seo_url sent empty is derived: the event says the one given (as the product's own does).
  const data = {
    id: product.id,
    ...(restKeys(fields) as object),
    ...(fields.seoUrl !== undefined ? { seo_url: product.seoUrl } : {}),
    ...(variants ? { variants } : {}),
  };
  recordEvent(
    em,
    actor,
    'product.updated',
    { subject: 'product', subjectId: product.id },
    { ...data, ...(written ? { metafields: written.data } : {}) },
  );
  return product;
}

export async function createProduct(em: EntityManager, actor: Actor, input: ProductCreate): Promise<Product> {
  const errors: FieldError[] = [];
  const variantChanges = await variantMetafieldChanges(em, input.variants, errors);
  // The collections it joins are locked before it exists (catalogue-locks.ts); their versions move.
  await lockCatalogueRows(em, 'collection', input.collectionIds ?? []);
  const product = await writeProduct(em, new Product(), input, true, actor, errors);
  const variants = await writeVariantMetafields(em, product, input.variants, variantChanges);
  await moveVersions(em, 'collection', input.collectionIds ?? []);
  recordEvent(
    em,
    actor,
    'product.created',
    { subject: 'product', subjectId: product.id },
    { id: product.id, ...(restKeys(input) as object), seo_url: product.seoUrl, ...(variants ? { variants } : {}) },
  );
  return product;
}

/** Each variant's `metafields` as changes, by its input (refused, like every value, before anything is written). */
async function variantMetafieldChanges(
  em: EntityManager,
  variants: readonly VariantInput[] | undefined,
  errors: FieldError[],
): Promise<Map<VariantInput, MetafieldChange[]>> {
  const changes = new Map<VariantInput, MetafieldChange[]>();
  for (const [i, variant] of (variants ?? []).entries()) {
    if (!variant.metafields) continue;
    const field = `variants[${i}].metafields`;
    changes.set(
      variant,
      await changesFromMap(em, MetafieldOwnerType.PRODUCT_VARIANT, variant.metafields, field, errors),
    );
  }
  return changes;
}

/**
 * Writes each variant's metafield changes once the variants are (a new one has its id then; a
 * variant is its combination, unique in its product). Answers the event's `variants`, in the
 * input's order, each with its metafields as written (REST's shape) and its id; undefined when
 * none had any, so the event's variants stay the input's.
 */
async function writeVariantMetafields(
  em: EntityManager,
  product: Product,
  variants: readonly VariantInput[] | undefined,
  changes: ReadonlyMap<VariantInput, MetafieldChange[]>,
): Promise<unknown[] | undefined> {
  if (!variants || !changes.size) return undefined;
  const rows = await em.find(ProductVariant, { product });
  const idOf = new Map(rows.map((row) => [JSON.stringify(row.optionValues), row.id]));
  const owner = METAFIELD_OWNERS[MetafieldOwnerType.PRODUCT_VARIANT];
  const at = now();
  const data: unknown[] = [];
  for (const variant of variants) {
    const { metafields: _typed, ...fields } = variant;
    const change = changes.get(variant);
    const id = idOf.get(JSON.stringify(variant.variant));
    const written = change && id !== undefined ? await writeRecordMetafields(em, owner, id, change, at) : undefined;
    data.push({ ...(restKeys(fields) as object), ...(written ? { id, metafields: written.data } : {}) });
  }
  return data;
}

/** The reference of the stock movements a product's write makes: its REST path. */
const productReference = (id: number) => `products/${id}`;

/**
 * Deletes a product with its options, variants and stock (its stock leaves the ledger first); orders keep their line
 * items, which are snapshots (their product and variant links become null).
 */
export async function deleteProduct(
  em: EntityManager,
  actor: Actor,
  id: number,
  expected?: ExpectedVersion,
): Promise<number> {
  const reach = { joining: [], movesBuyers: (tags: readonly string[]) => tags.length > 0 };
  const { product, linked, buyers } = await lockProduct(em, id, expected, reach);
  await retireStock(em, id, null, { reason: 'set', reference: productReference(id), actor });
  em.remove(product);
  await em.flush();
  // Its links went with it (cascade): the manual collections that held it show one member less,
  // and its buyers' lines no longer lead to it, so its tags leave theirs.
  await moveVersions(em, 'collection', linked);
  if (product.tags.length) await moveVersions(em, 'customer', buyers);
  recordEvent(em, actor, 'product.deleted', { subject: 'product', subjectId: id }, { id, title: product.title });
  return id;
}
