import { type EntityManager, LockMode, UniqueConstraintViolationException } from '@mikro-orm/postgresql';
import { now } from '../clock.js';
import { Collection, CollectionType } from '../entities/collection.entity.js';
import { CollectionImage } from '../entities/collection-image.entity.js';
import { CollectionProduct } from '../entities/collection-product.entity.js';
import { CollectionRule } from '../entities/collection-rule.entity.js';
import { Image } from '../entities/image.entity.js';
import { Product } from '../entities/product.entity.js';
import { MetafieldOwnerType } from '../schema/enums/metafield-owner-type.enum.js';
import type { CollectionInput, CollectionRuleInput } from '../schema/inputs/collection.inputs.js';
import { changedMembers, lockCatalogueRows, moveVersions } from './catalogue-locks.js';
import { CONDITIONS_BY_FIELD, DECIMAL, RuleField } from './collection-membership.js';
import { shownCollectionVersion } from './collection-version.js';
import { ConflictError, type FieldError, NotFoundError, ValidationError } from './errors.js';
import { restKeys } from './event-data.js';
import { type Actor, recordEvent } from './events.js';
import { checkDistinct, checkText, missingIds, reportMissing } from './input-checks.js';
import { METAFIELD_OWNERS } from './metafield-owners.js';
import { changesFromMap, type MetafieldChange, writeRecordMetafields } from './metafield-values.js';
import { replaceOrdered } from './ordered-links.js';
import { beginVersionedWrite, type ExpectedVersion } from './preconditions.js';
import { freeSlug, SLUG, slugTaken } from './slug.js';

/**
 * Collections written (docs/decisions.md#spec-collection and #collections): title, type, seo_title and seo_url are
 * always sent; a manual collection (type 0) lists its products, a rule-based one (type 1) its
 * rules and whether any or all must match. On update the other fields are kept when omitted; a
 * change of type needs the new type's fields and drops the old type's.
 */

const FIELD_NAMES = ['title', 'vendor', 'type', 'price', 'tag', 'weight', 'variant title'];
const TEXT_FIELDS_LIMIT = 10_000;

/** A rule-based collection's rules (docs/decisions.md#collections): each condition valid for its field. */
export function checkRules(rules: CollectionRuleInput[], errors: FieldError[]): void {
  if (rules.length === 0) errors.push({ field: 'rules', message: 'must hold at least one rule' });
  rules.forEach((rule, i) => {
    const at = `rules[${i}]`;
    const allowed = CONDITIONS_BY_FIELD[rule.type];
    if (!allowed) {
      errors.push({
        field: `${at}.type`,
        message: `must be one of ${FIELD_NAMES.map((name, code) => `${code} (${name})`).join(', ')}`,
      });
    } else if (!allowed.includes(rule.condition)) {
      errors.push({
        field: `${at}.condition`,
        message: `is not a condition for ${FIELD_NAMES[rule.type]} rules (allowed: ${allowed.join(', ')})`,
      });
    }
    checkText(rule.value, `${at}.value`, errors, { required: true });
    const numeric = rule.type === RuleField.Price || rule.type === RuleField.Weight;
    if (numeric && rule.value.trim() && !DECIMAL.test(rule.value)) {
      errors.push({ field: `${at}.value`, message: `must be a number for ${FIELD_NAMES[rule.type]} rules` });
    }
  });
}

function checkKind(collection: Collection, input: CollectionInput, isNew: boolean, errors: FieldError[]): void {
  const needsAll = isNew || input.type !== collection.type;
  if (input.type === CollectionType.Manual) {
    if (input.manualProductIds === undefined && needsAll)
      errors.push({ field: 'manualProductIds', message: 'is required for a manual collection (type 0)' });
    if (input.rules?.length)
      errors.push({ field: 'rules', message: 'only a rule-based collection (type 1) has rules' });
    if (input.rulesMatchCondition != null)
      errors.push({ field: 'rulesMatchCondition', message: 'only a rule-based collection (type 1) has it' });
  } else if (input.type === CollectionType.RuleBased) {
    if (input.manualProductIds?.length)
      errors.push({ field: 'manualProductIds', message: 'only a manual collection (type 0) lists its products' });
    if (input.rulesMatchCondition === null || (input.rulesMatchCondition === undefined && needsAll)) {
      errors.push({ field: 'rulesMatchCondition', message: 'is required for a rule-based collection (type 1)' });
    } else if (
      input.rulesMatchCondition !== undefined &&
      input.rulesMatchCondition !== 0 &&
      input.rulesMatchCondition !== 1
    ) {
      errors.push({ field: 'rulesMatchCondition', message: 'must be 0 (match at least one rule) or 1 (match all)' });
    }
    if (input.rules === undefined && needsAll)
      errors.push({ field: 'rules', message: 'is required for a rule-based collection (type 1)' });
    if (input.rules) checkRules(input.rules, errors);
  } else {
    errors.push({ field: 'type', message: 'must be 0 (manually added products) or 1 (rules based)' });
  }
}

async function checkRefs(em: EntityManager, input: CollectionInput, errors: FieldError[]): Promise<void> {
  if (input.imageIds) {
    checkDistinct(input.imageIds, 'imageIds', errors);
    reportMissing(input.imageIds, 'imageIds', await missingIds(em, Image, input.imageIds), 'image', errors);
  }
  if (input.manualProductIds) {
    checkDistinct(input.manualProductIds, 'manualProductIds', errors);
    reportMissing(
      input.manualProductIds,
      'manualProductIds',
      await missingIds(em, Product, input.manualProductIds),
      'product',
      errors,
    );
  }
}

async function seoUrlOf(
  em: EntityManager,
  collection: Collection,
  input: CollectionInput,
  isNew: boolean,
  errors: FieldError[],
): Promise<string | undefined> {
  const given = input.seoUrl.trim();
  if (given === '') return freeSlug(em, 'collection', input.title, isNew ? 0 : collection.id);
  if (given === collection.seoUrl) return undefined;
  if (!SLUG.test(given)) {
    errors.push({
      field: 'seoUrl',
      message: `"${given}" is not a URL slug: lower-case letters and digits in words joined by single hyphens`,
    });
    return undefined;
  }
  return given;
}

/** Checks every value (with `errors` the caller found already: its metafields'), then writes. */
async function writeCollection(
  em: EntityManager,
  collection: Collection,
  input: CollectionInput,
  isNew: boolean,
  errors: FieldError[],
): Promise<Collection> {
  checkText(input.title, 'title', errors, { required: true });
  checkText(input.seoTitle, 'seoTitle', errors);
  checkText(input.seoUrl, 'seoUrl', errors);
  checkText(input.seoMeta, 'seoMeta', errors, { limit: 1000 });
  checkText(input.description, 'description', errors, { limit: TEXT_FIELDS_LIMIT });
  checkKind(collection, input, isNew, errors);
  await checkRefs(em, input, errors);
  const seoUrl = await seoUrlOf(em, collection, input, isNew, errors);
  if (errors.length) throw new ValidationError(errors);
  if (seoUrl !== undefined && (await slugTaken(em, 'collection', seoUrl, isNew ? 0 : collection.id))) {
    throw new ConflictError(`The seo_url ${seoUrl} is already used by another collection`, 'seoUrl');
  }

  // Current rows are read before anything changes (a query would flush pending changes first).
  const rules = isNew ? [] : await em.find(CollectionRule, { collection });
  const links = isNew ? [] : await em.find(CollectionProduct, { collection });
  const images = isNew || !input.imageIds ? [] : await em.find(CollectionImage, { collection });

  collection.title = input.title;
  collection.seoTitle = input.seoTitle;
  if (seoUrl !== undefined) collection.seoUrl = seoUrl;
  if (input.isDraft !== undefined) collection.isDraft = input.isDraft;
  if (input.description !== undefined) collection.description = input.description;
  if (input.seoMeta !== undefined) collection.seoMeta = input.seoMeta;
  collection.type = input.type;
  if (isNew) em.persist(collection);
  else collection.updatedAt = now();

  if (input.type === CollectionType.Manual) {
    collection.rulesMatchCondition = null;
    for (const rule of rules) em.remove(rule);
    if (input.manualProductIds) {
      replaceOrdered(
        em,
        links,
        (link) => link.product.id,
        input.manualProductIds,
        (productId) =>
          Object.assign(new CollectionProduct(), { collection, product: em.getReference(Product, productId) }),
      );
    }
  } else {
    if (input.rulesMatchCondition != null) collection.rulesMatchCondition = input.rulesMatchCondition;
    for (const link of links) em.remove(link);
    if (input.rules) {
      for (const rule of rules) em.remove(rule);
      input.rules.forEach((rule, position) => {
        em.persist(
          Object.assign(new CollectionRule(), {
            collection,
            position,
            field: rule.type,
            condition: rule.condition,
            value: rule.value,
          }),
        );
      });
    }
  }
  if (input.imageIds) {
    replaceOrdered(
      em,
      images,
      (link) => link.image.id,
      input.imageIds,
      (imageId) => Object.assign(new CollectionImage(), { collection, image: em.getReference(Image, imageId) }),
    );
  }
  try {
    await em.flush();
  } catch (error) {
    if (error instanceof UniqueConstraintViolationException)
      throw new ConflictError(`The seo_url ${collection.seoUrl} is already used by another collection`, 'seoUrl');
    throw error;
  }
  return collection;
}

/**
 * The collection row locked for the rest of the transaction, at the version the caller expects:
 * the version it shows (a rule-based collection's follows its members, collection-version.ts).
 */
async function lockCollection(em: EntityManager, id: number, expected: ExpectedVersion): Promise<Collection> {
  const collection = await em.findOne(Collection, { id }, { lockMode: LockMode.PESSIMISTIC_WRITE });
  if (!collection) throw new NotFoundError('Collection', id);
  beginVersionedWrite(`Collection ${id}`, collection, expected, await shownCollectionVersion(em, collection));
  return collection;
}

/** The products linked to a collection by hand (its links change only under its lock). */
async function linkedProductIds(em: EntityManager, collection: Collection): Promise<number[]> {
  const sql = 'select product_id from collection_product where collection_id = ?';
  const ctx = em.getTransactionContext();
  const rows = await em.getConnection().execute<{ product_id: number }[]>(sql, [collection.id], 'all', ctx);
  return rows.map((row) => row.product_id);
}

/**
 * The products whose `collections` this write changes (they join or leave), locked after the
 * collection (catalogue-locks.ts); their versions move once the write is flushed.
 */
async function lockMembersChanging(em: EntityManager, before: number[], input: CollectionInput): Promise<number[]> {
  const after = input.type === CollectionType.Manual ? (input.manualProductIds ?? before) : [];
  const changed = changedMembers(before, after);
  await lockCatalogueRows(em, 'product', changed);
  return changed;
}

/**
 * The body's `metafields` as changes, if it has any; what is wrong with them goes to `errors`,
 * refused with the other fields' before anything is written (writeCollection).
 */
async function metafieldChangesOf(
  em: EntityManager,
  input: CollectionInput,
  errors: FieldError[],
): Promise<MetafieldChange[] | undefined> {
  if (!input.metafields) return undefined;
  return changesFromMap(em, MetafieldOwnerType.COLLECTION, input.metafields, 'metafields', errors);
}

/** The event's data: the fields sent in REST keys, and the metafields written as REST shows them. */
async function eventData(
  em: EntityManager,
  collection: Collection,
  input: CollectionInput,
  changes?: MetafieldChange[],
) {
  const owner = METAFIELD_OWNERS[MetafieldOwnerType.COLLECTION];
  const written = changes && (await writeRecordMetafields(em, owner, collection.id, changes, now()));
  const { metafields: _typed, ...fields } = input;
  // A seo_url sent empty is derived: the event says the one given.
  return {
    id: collection.id,
    ...(restKeys(fields) as object),
    ...(fields.seoUrl !== undefined ? { seo_url: collection.seoUrl } : {}),
    ...(written ? { metafields: written.data } : {}),
  };
}

export async function createCollection(em: EntityManager, actor: Actor, input: CollectionInput): Promise<Collection> {
  const errors: FieldError[] = [];
  const metafields = await metafieldChangesOf(em, input, errors);
  const changed = await lockMembersChanging(em, [], input);
  const collection = await writeCollection(em, new Collection(), input, true, errors);
  await moveVersions(em, 'product', changed);
  const data = await eventData(em, collection, input, metafields);
  recordEvent(em, actor, 'collection.created', { subject: 'collection', subjectId: collection.id }, data);
  return collection;
}

export async function updateCollection(
  em: EntityManager,
  actor: Actor,
  id: number,
  input: CollectionInput,
  expected?: ExpectedVersion,
): Promise<Collection> {
  const locked = await lockCollection(em, id, expected);
  const errors: FieldError[] = [];
  const metafields = await metafieldChangesOf(em, input, errors);
  const changed = await lockMembersChanging(em, await linkedProductIds(em, locked), input);
  const collection = await writeCollection(em, locked, input, false, errors);
  await moveVersions(em, 'product', changed);
  const data = await eventData(em, collection, input, metafields);
  recordEvent(em, actor, 'collection.updated', { subject: 'collection', subjectId: id }, data);
  return collection;
}

/** Deletes a collection with its rules, links and image links (cascades); products stay. */
export async function deleteCollection(
  em: EntityManager,
  actor: Actor,
  id: number,
  expected?: ExpectedVersion,
): Promise<number> {
  const collection = await lockCollection(em, id, expected);
  // Its members no longer list it in their `collections`: their versions move.
  const members = await linkedProductIds(em, collection);
  await lockCatalogueRows(em, 'product', members);
  em.remove(collection);
  await em.flush();
  await moveVersions(em, 'product', members);
  recordEvent(
    em,
    actor,
    'collection.deleted',
    { subject: 'collection', subjectId: id },
    { id, title: collection.title },
  );
  return id;
}
