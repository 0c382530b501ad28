import type { EntityManager } from '@mikro-orm/postgresql';
import { now } from '../clock.js';
import { runPrepared } from '../db/prepared-statements.js';
import { Collection } from '../entities/collection.entity.js';
import { MetafieldOwnerType } from '../schema/enums/metafield-owner-type.enum.js';
import { shownCollectionVersion } from './collection-version.js';
import { type FieldError, ValidationError } from './errors.js';
import { type Actor, recordEvent } from './events.js';
import {
  lockVersioned,
  METAFIELD_OWNERS,
  type MetafieldOwner,
  moveVersionsOf,
  productsOfVariants,
  versionedSubject,
} from './metafield-owners.js';
import { storedFromText } from './metafield-types.js';
import {
  checkName,
  type DefinitionRef,
  definitionsByName,
  dottedName,
  type MetafieldChange,
  type MetafieldRow,
  writeRecordMetafields,
} from './metafield-values.js';
import { checkExpectedVersion, type ExpectedVersion } from './preconditions.js';

/** Entries per `metafieldsSet` or `metafieldsDelete` (Shopify's limit, docs/decisions.md#custom-data-metafields). */
export const METAFIELDS_PER_CALL = 25;

/** One metafield of one record, as `metafieldsDelete` names it. */
export interface MetafieldIdentifier {
  ownerType: MetafieldOwnerType;
  ownerId: number;
  namespace: string;
  key: string;
  /** The versions the caller read its record at (a variant's: its product's), checked under the lock. */
  expectedVersion?: ExpectedVersion;
}

/** One value to set, as Shopify's text (`metafieldsSet`). */
export interface MetafieldEntry extends MetafieldIdentifier {
  value: string;
}

type Versioned = MetafieldOwner['versioned'];

/** The entries' definitions, each entry's problems named by its index and key; refuses them all at once. */
async function resolveEntries<E extends MetafieldIdentifier>(
  em: EntityManager,
  entries: readonly E[],
  /** The value's stored form, null to delete it, undefined when it was refused (a problem added to `errors`). */
  value: (entry: E, definition: DefinitionRef, index: number, errors: FieldError[]) => string | null | undefined,
): Promise<{ entry: E; change: MetafieldChange }[]> {
  const errors: FieldError[] = [];
  if (entries.length > METAFIELDS_PER_CALL)
    throw new ValidationError([{ field: 'metafields', message: `must hold at most ${METAFIELDS_PER_CALL} entries` }]);
  const named = entries.filter((entry, i) => checkName(entry.namespace, entry.key, `metafields[${i}]`, errors));
  const definitions = new Map<MetafieldOwnerType, Map<string, DefinitionRef>>();
  for (const ownerType of new Set(named.map((entry) => entry.ownerType)))
    definitions.set(
      ownerType,
      await definitionsByName(
        em,
        ownerType,
        named.filter((entry) => entry.ownerType === ownerType),
      ),
    );
  const seen = new Map<string, number>();
  const resolved: { entry: E; change: MetafieldChange }[] = [];
  entries.forEach((entry, i) => {
    if (!named.includes(entry)) return;
    const name = dottedName(entry.namespace, entry.key);
    const definition = definitions.get(entry.ownerType)?.get(name);
    if (!definition) {
      errors.push({ field: `metafields[${i}].key`, message: `${name}: no ${entry.ownerType} metafield definition` });
      return;
    }
    const record = `${entry.ownerType} ${entry.ownerId} ${name}`;
    const first = seen.get(record);
    if (first !== undefined) {
      errors.push({ field: `metafields[${i}]`, message: `${name}: repeats metafields[${first}]` });
      return;
    }
    seen.set(record, i);
    const stored = value(entry, definition, i, errors);
    if (stored !== undefined)
      resolved.push({ entry, change: { field: `metafields[${i}]`, definition, value: stored } });
  });
  if (errors.length) throw new ValidationError(errors);
  return resolved;
}

/**
 * The records the entries change, locked (metafield-owners.ts), each entry's record found or refused
 * (`metafields[i].ownerId`); answers each entry's versioned record (a variant's product).
 */
async function lockOwners(
  em: EntityManager,
  entries: readonly MetafieldIdentifier[],
  { setting }: { setting: boolean },
): Promise<number[]> {
  const variants = await productsOfVariants(
    em,
    entries.filter((e) => e.ownerType === MetafieldOwnerType.PRODUCT_VARIANT).map((e) => e.ownerId),
  );
  const versionedOf = (entry: MetafieldIdentifier) =>
    entry.ownerType === MetafieldOwnerType.PRODUCT_VARIANT ? (variants.get(entry.ownerId) ?? 0) : entry.ownerId;
  const wanted: Record<Versioned, number[]> = { orders: [], customer: [], product: [], collection: [] };
  for (const entry of entries) wanted[METAFIELD_OWNERS[entry.ownerType].versioned].push(versionedOf(entry));
  const locked = await lockVersioned(em, wanted, { setting });
  // A variant is found again under its product's lock: a product write may have removed it since.
  const after = await productsOfVariants(em, [...variants.keys()]);
  const errors: FieldError[] = [];
  entries.forEach((entry, i) => {
    const owner = METAFIELD_OWNERS[entry.ownerType];
    const variantMoved =
      entry.ownerType === MetafieldOwnerType.PRODUCT_VARIANT && after.get(entry.ownerId) !== versionedOf(entry);
    if (!locked[owner.versioned].has(versionedOf(entry)) || variantMoved)
      errors.push({ field: `metafields[${i}].ownerId`, message: `${owner.record} ${entry.ownerId} does not exist` });
  });
  if (errors.length) throw new ValidationError(errors);
  // Each record's version read once, however many entries name it (a rule-based collection's is
  // worked out from its members).
  const shown = new Map<string, number>();
  for (const entry of entries) {
    if (entry.expectedVersion == null) continue;
    const owner = METAFIELD_OWNERS[entry.ownerType];
    const id = versionedOf(entry);
    const record = `${owner.versioned === 'orders' ? 'Order' : capitalised(owner.versioned)} ${id}`;
    if (!shown.has(record)) shown.set(record, await shownVersion(em, owner.versioned, id));
    checkExpectedVersion(record, shown.get(record)!, entry.expectedVersion);
  }
  return entries.map(versionedOf);
}

const capitalised = (word: string) => word[0].toUpperCase() + word.slice(1);

/** The version a locked record shows (a rule-based collection's is derived from its members). */
async function shownVersion(em: EntityManager, versioned: Versioned, id: number): Promise<number> {
  if (versioned === 'collection') return shownCollectionVersion(em, await em.findOneOrFail(Collection, id));
  const [row] = await runPrepared<{ version: number }>(em, `select version from ${versioned} where id = ?`, [id]);
  return row.version;
}

/**
 * Writes the changes of several records in one transaction: each record's values, then each
 * versioned record's version and `updated_at` moved once, and one event per versioned record (a
 * product's carries its variants' changes under `variants`). Answers the rows written, by change.
 */
async function applyChanges(
  em: EntityManager,
  actor: Actor,
  changes: readonly { entry: MetafieldIdentifier; change: MetafieldChange; versioned: number }[],
): Promise<Map<MetafieldChange, MetafieldRow>> {
  const at = now();
  const byRecord = new Map<string, typeof changes>();
  for (const item of changes) {
    const key = `${item.entry.ownerType} ${item.entry.ownerId}`;
    byRecord.set(key, [...(byRecord.get(key) ?? []), item]);
  }
  const rows = new Map<MetafieldChange, MetafieldRow>();
  // Per versioned record (`product 3`): its own metafields' data and its variants'.
  const events = new Map<string, { owner: MetafieldOwner; id: number; own?: object; variants: object[] }>();
  for (const items of byRecord.values()) {
    const { entry, versioned } = items[0];
    const owner = METAFIELD_OWNERS[entry.ownerType];
    const written = await writeRecordMetafields(
      em,
      owner,
      entry.ownerId,
      items.map((item) => item.change),
      at,
    );
    const set = items.filter((item) => item.change.value !== null);
    for (let i = 0; i < set.length; i++) rows.set(set[i].change, written.rows[i]);
    const key = `${owner.versioned} ${versioned}`;
    const event = events.get(key) ?? { owner, id: versioned, variants: [] };
    if (owner.type === MetafieldOwnerType.PRODUCT_VARIANT)
      event.variants.push({ id: entry.ownerId, metafields: written.data });
    else event.own = written.data;
    events.set(key, event);
  }
  const moved = new Map<Versioned, number[]>();
  for (const { owner, id } of events.values()) moved.set(owner.versioned, [...(moved.get(owner.versioned) ?? []), id]);
  for (const [versioned, ids] of moved) await moveVersionsOf(em, versioned, ids, at);
  for (const { owner, id, own, variants } of events.values()) {
    const data = {
      id,
      ...(own ? { metafields: own } : {}),
      ...(variants.length
        ? { variants: variants.sort((a, b) => (a as { id: number }).id - (b as { id: number }).id) }
        : {}),
    };
    const event = owner.type === MetafieldOwnerType.PRODUCT_VARIANT ? METAFIELD_OWNERS.PRODUCT.event : owner.event;
    recordEvent(em, actor, event, versionedSubject(owner.versioned, id), data);
  }
  await em.flush();
  return rows;
}

/**
 * `metafieldsSet`: up to 25 values on any records, all or none (docs/decisions.md#custom-data-metafields).
 * An entry whose key has no definition, whose value is not of its type or whose record does not
 * exist refuses the whole call, naming the entry's index and key. Answers the values as written,
 * in the entries' order.
 */
export async function setMetafields(
  em: EntityManager,
  actor: Actor,
  entries: readonly MetafieldEntry[],
): Promise<MetafieldRow[]> {
  const resolved = await resolveEntries(em, entries, (entry, definition, i, errors) => {
    const stored = storedFromText(definition.type, entry.value);
    if ('value' in stored) return stored.value;
    errors.push({
      field: `metafields[${i}].value`,
      message: `${dottedName(entry.namespace, entry.key)}: ${stored.problem}`,
    });
    return undefined;
  });
  const versioned = await lockOwners(
    em,
    resolved.map((item) => item.entry),
    { setting: true },
  );
  const rows = await applyChanges(
    em,
    actor,
    resolved.map((item, i) => ({ ...item, versioned: versioned[i] })),
  );
  return resolved.map((item) => rows.get(item.change)!);
}

/**
 * `metafieldsDelete`: up to 25 values, all or none, each key with a definition; answers each entry
 * when it held a value (null when it held none: nothing changed for it, and a record none of whose
 * entries held a value keeps its version and gets no event).
 */
export async function deleteMetafields(
  em: EntityManager,
  actor: Actor,
  entries: readonly MetafieldIdentifier[],
): Promise<(MetafieldIdentifier | null)[]> {
  const resolved = await resolveEntries(em, entries, () => null);
  const versioned = await lockOwners(
    em,
    resolved.map((item) => item.entry),
    { setting: false },
  );
  const held = await heldValues(em, resolved);
  const changes = resolved
    .map((item, i) => ({ ...item, versioned: versioned[i] }))
    .filter((item) => held.has(item.entry));
  await applyChanges(em, actor, changes);
  return entries.map((entry) => (held.has(entry) ? entry : null));
}

/** The entries whose record holds a value of their definition (read under the records' locks). */
async function heldValues(
  em: EntityManager,
  resolved: readonly { entry: MetafieldIdentifier; change: MetafieldChange }[],
): Promise<Set<MetafieldIdentifier>> {
  const held = new Set<MetafieldIdentifier>();
  for (const { entry, change } of resolved) {
    const owner = METAFIELD_OWNERS[entry.ownerType];
    const rows = await runPrepared(em, `select 1 from metafield where ${owner.column} = ? and definition_id = ?`, [
      entry.ownerId,
      change.definition.id,
    ]);
    if (rows.length) held.add(entry);
  }
  return held;
}
