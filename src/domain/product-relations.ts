import type { EntityManager } from '@mikro-orm/postgresql';
import { Collection, CollectionType } from '../entities/collection.entity.js';
import { CollectionProduct } from '../entities/collection-product.entity.js';
import { Image } from '../entities/image.entity.js';
import type { Product } from '../entities/product.entity.js';
import { ProductImage } from '../entities/product-image.entity.js';
import { ProductTextarea } from '../entities/product-textarea.entity.js';
import { TextareaPreset } from '../entities/textarea-preset.entity.js';
import type { ProductFields } from '../schema/inputs/product.inputs.js';
import type { FieldError } from './errors.js';
import { checkDistinct, checkText, missingIds, reportMissing } from './input-checks.js';
import { replaceOrdered } from './ordered-links.js';

/**
 * A product's set-valued fields besides options and variants: tags, textareas, images and manual
 * collections. Given → they replace the set; each list is a set, so a repeat is refused.
 */

const TEXTAREA_LIMIT = 100_000;

/** Every image id the write refers to exists (one query), each reported where it was given. */
export async function checkImageRefs(em: EntityManager, input: ProductFields, errors: FieldError[]): Promise<void> {
  const all = [
    ...(input.imageIds ?? []),
    ...(input.variants ?? []).flatMap((v) => v.imageIds ?? []),
    ...(input.options ?? []).flatMap((o) =>
      (o.thumbnails ?? []).flatMap((t) => (t.imageId != null ? [t.imageId] : [])),
    ),
  ];
  const missing = await missingIds(em, Image, all);
  if (input.imageIds) checkDistinct(input.imageIds, 'imageIds', errors);
  reportMissing(input.imageIds, 'imageIds', missing, 'image', errors);
  input.variants?.forEach((v, i) => {
    reportMissing(v.imageIds, `variants[${i}].imageIds`, missing, 'image', errors);
  });
  input.options?.forEach((o, i) => {
    o.thumbnails?.forEach((t, k) => {
      if (t.imageId != null && missing.has(t.imageId))
        errors.push({ field: `options[${i}].thumbnails[${k}].imageId`, message: `image ${t.imageId} does not exist` });
    });
  });
}

export function checkTags(tags: string[] | undefined, errors: FieldError[]): void {
  if (!tags) return;
  tags.forEach((tag, i) => {
    checkText(tag, `tags[${i}]`, errors, { required: true });
  });
  checkDistinct(tags, 'tags', errors);
}

/** Textarea names must be presets of product settings (the textarea_preset table). */
export async function checkTextareas(em: EntityManager, input: ProductFields, errors: FieldError[]): Promise<void> {
  const textareas = input.textareas;
  if (!textareas) return;
  checkDistinct(textareas, 'textareas', errors, (t) => t.name);
  const presets = new Set((await em.find(TextareaPreset, {}, { orderBy: { id: 'asc' } })).map((p) => p.name));
  textareas.forEach((t, i) => {
    if (!presets.has(t.name))
      errors.push({
        field: `textareas[${i}].name`,
        message: `"${t.name}" is not a textarea preset (${[...presets].join(', ')})`,
      });
    checkText(t.text, `textareas[${i}].text`, errors, { limit: TEXTAREA_LIMIT });
  });
}

/** Collection ids of a product must be existing manual collections (rule-based ones are computed). */
export async function checkManualCollections(
  em: EntityManager,
  ids: number[] | undefined,
  errors: FieldError[],
): Promise<void> {
  if (!ids) return;
  checkDistinct(ids, 'collectionIds', errors);
  const found = new Map((await em.find(Collection, { id: { $in: [...new Set(ids)] } })).map((c) => [c.id, c]));
  ids.forEach((id, i) => {
    const collection = found.get(id);
    if (!collection) errors.push({ field: `collectionIds[${i}]`, message: `collection ${id} does not exist` });
    else if (collection.type !== CollectionType.Manual) {
      errors.push({
        field: `collectionIds[${i}]`,
        message: `collection ${id} is rule-based: its products follow from its rules`,
      });
    }
  });
}

export async function replaceTextareas(em: EntityManager, product: Product, input: ProductFields): Promise<void> {
  if (!input.textareas) return;
  const current = await em.find(ProductTextarea, { product });
  const rows = replaceOrdered(
    em,
    current,
    (t) => t.name,
    input.textareas.map((t) => t.name),
    (name) => Object.assign(new ProductTextarea(), { product, name }),
  );
  rows.forEach((row, i) => {
    row.text = input.textareas![i].text;
  });
}

export async function replaceImages(em: EntityManager, product: Product, input: ProductFields): Promise<void> {
  if (!input.imageIds) return;
  const current = await em.find(ProductImage, { product });
  replaceOrdered(
    em,
    current,
    (link) => link.image.id,
    input.imageIds,
    (imageId) => Object.assign(new ProductImage(), { product, image: em.getReference(Image, imageId) }),
  );
}

/**
 * The product's manual collections become exactly these: links to others are removed, a new link
 * goes to the end of its collection.
 */
export async function replaceManualCollections(
  em: EntityManager,
  product: Product,
  input: ProductFields,
): Promise<void> {
  const ids = input.collectionIds;
  if (!ids) return;
  const current = await em.find(CollectionProduct, { product, collection: { type: CollectionType.Manual } });
  const have = new Set(current.map((link) => link.collection.id));
  for (const link of current) if (!ids.includes(link.collection.id)) em.remove(link);
  const added = ids.filter((id) => !have.has(id));
  if (!added.length) return;
  const ends = await em.getConnection().execute<{ collection_id: number; next: number }[]>(
    `select collection_id, max(position) + 1 as next from collection_product
        where collection_id in (${added.map(() => '?').join(', ')}) group by collection_id`,
    added,
    'all',
    em.getTransactionContext(),
  );
  const next = new Map(ends.map((row) => [row.collection_id, Number(row.next)]));
  for (const id of added) {
    em.persist(
      Object.assign(new CollectionProduct(), {
        product,
        collection: em.getReference(Collection, id),
        position: next.get(id) ?? 0,
      }),
    );
  }
}
