import type { EntityManager } from '@mikro-orm/postgresql';
import { runPrepared } from '../db/prepared-statements.js';
import type { MetafieldOwnerType } from '../schema/enums/metafield-owner-type.enum.js';
import { ConflictError, type FieldError, ValidationError } from './errors.js';
import { METAFIELDS_PER_RECORD } from './input-limits.js';
import type { MetafieldOwner } from './metafield-owners.js';
import {
  isMetafieldType,
  METAFIELD_NAME,
  METAFIELD_NAME_RULE,
  type MetafieldType,
  restValueOf,
  type StoredValue,
  storedFromJson,
} from './metafield-types.js';

/** What a value write needs of its definition. */
export interface DefinitionRef {
  id: number;
  namespace: string;
  key: string;
  type: MetafieldType;
}

/** A metafield's name as REST shows it: `namespace.key`. */
export const dottedName = (namespace: string, key: string) => `${namespace}.${key}`;

/** One change to one record's metafields: a value in its stored form, or null to delete it. */
export interface MetafieldChange {
  /** Where the change was given, for the answer's field errors (`metafields[3]`, `metafields.erp.order_no`). */
  field: string;
  definition: DefinitionRef;
  value: string | null;
}

/** A value as it was written (what `Metafield` shows). */
export interface MetafieldRow {
  namespace: string;
  key: string;
  type: string;
  value: string;
  updatedAt: Date;
}

/** A statement in the caller's transaction (arrays bound as arrays). */
const run = <T>(em: EntityManager, sql: string, params: readonly unknown[] = []) => runPrepared<T>(em, sql, params);

/** Namespace and key checked against the naming rule; a problem for each that breaks it. */
export function checkName(namespace: string, key: string, field: string, errors: FieldError[]): boolean {
  const before = errors.length;
  if (!METAFIELD_NAME.test(namespace)) errors.push({ field: `${field}.namespace`, message: METAFIELD_NAME_RULE });
  if (!METAFIELD_NAME.test(key)) errors.push({ field: `${field}.key`, message: METAFIELD_NAME_RULE });
  return errors.length === before;
}

/** The definitions of one owner type by `namespace.key`, those named only (one statement). */
export async function definitionsByName(
  em: EntityManager,
  ownerType: MetafieldOwnerType,
  names: readonly { namespace: string; key: string }[],
): Promise<Map<string, DefinitionRef>> {
  if (!names.length) return new Map();
  const rows = await run<DefinitionRef>(
    em,
    'select id, namespace, key, type from metafield_definition where owner_type = ? ' +
      'and (namespace, key) in (select * from unnest(?::text[], ?::text[]))',
    [ownerType, names.map((n) => n.namespace), names.map((n) => n.key)],
  );
  return new Map(
    rows.filter((row) => isMetafieldType(row.type)).map((row) => [dottedName(row.namespace, row.key), row]),
  );
}

/**
 * A REST-shaped map (`{"erp.order_no": "A-1017", "erp.gone": null}`, docs/decisions.md#custom-data-metafields)
 * of one owner type as changes: each name must be `namespace.key` of a definition of that type,
 * each value of its type (or null, which deletes it). The problems are added to `errors`, each
 * naming `<field>.<namespace.key>`.
 */
export async function changesFromMap(
  em: EntityManager,
  ownerType: MetafieldOwnerType,
  map: Readonly<Record<string, unknown>>,
  field: string,
  errors: FieldError[],
): Promise<MetafieldChange[]> {
  const named: { name: string; namespace: string; key: string; value: unknown }[] = [];
  for (const [name, value] of Object.entries(map)) {
    const dot = name.indexOf('.');
    const [namespace, key] = dot < 0 ? [name, ''] : [name.slice(0, dot), name.slice(dot + 1)];
    if (!METAFIELD_NAME.test(namespace) || !METAFIELD_NAME.test(key)) {
      errors.push({ field: `${field}.${name}`, message: `must be named namespace.key, each ${METAFIELD_NAME_RULE}` });
      continue;
    }
    named.push({ name, namespace, key, value });
  }
  const definitions = await definitionsByName(em, ownerType, named);
  const changes: MetafieldChange[] = [];
  for (const { name, value } of named) {
    const definition = definitions.get(name);
    if (!definition) {
      errors.push({ field: `${field}.${name}`, message: `no ${ownerType} metafield definition is named ${name}` });
      continue;
    }
    if (value === null) {
      changes.push({ field: `${field}.${name}`, definition, value: null });
      continue;
    }
    const stored = storedFromJson(definition.type, value);
    if ('problem' in stored)
      errors.push({ field: `${field}.${name}`, message: `${definition.type}: ${stored.problem}` });
    else changes.push({ field: `${field}.${name}`, definition, value: stored.value });
  }
  return changes;
}

/**
 * A definition deleted by another transaction after this one read it: its values' foreign key then
 * refuses the insert (deleteMetafieldDefinition holds the definition until it commits), a 409.
 */
async function refusingDeletedDefinitions<T>(write: Promise<T>): Promise<T> {
  try {
    return await write;
  } catch (error) {
    if ((error as { code?: string }).code === '23503')
      throw new ConflictError(
        'A metafield definition of this change was deleted meanwhile: read the definitions again',
      );
    throw error;
  }
}

/** A problem of a stored value, named as metafieldsSet names it (the entry's index and key). */
export function entryProblem(index: number, namespace: string, key: string, stored: StoredValue): FieldError | null {
  if (!('problem' in stored)) return null;
  return { field: `metafields[${index}].value`, message: `${dottedName(namespace, key)}: ${stored.problem}` };
}

/**
 * Writes one record's changes (its versioned record is locked by the caller, who also moves its
 * version and records the event): values set or replaced, values deleted, and no more than
 * METAFIELDS_PER_RECORD left on the record (a change that would leave more is refused, naming the
 * first entry over the limit). Answers the rows written, in the changes' order, and the changes as
 * an event's data shows them (`{"ns.key": REST value or null}`).
 */
export async function writeRecordMetafields(
  em: EntityManager,
  owner: MetafieldOwner,
  ownerId: number,
  changes: readonly MetafieldChange[],
  at: Date,
): Promise<{ rows: MetafieldRow[]; data: Record<string, unknown> }> {
  const column = owner.column;
  const held = await run<{ definition_id: number }>(em, `select definition_id from metafield where ${column} = ?`, [
    ownerId,
  ]);
  // The deletions first, wherever they stand among the changes: what counts is what the record keeps.
  const kept = new Set(held.map((row) => row.definition_id));
  for (const change of changes) if (change.value === null) kept.delete(change.definition.id);
  for (const change of changes) {
    if (change.value === null) continue;
    kept.add(change.definition.id);
    if (kept.size > METAFIELDS_PER_RECORD) {
      throw new ValidationError([
        {
          field: change.field,
          message:
            `${dottedName(change.definition.namespace, change.definition.key)}: ${owner.record} ${ownerId} ` +
            `would have more than ${METAFIELDS_PER_RECORD} metafields, the most a record keeps`,
        },
      ]);
    }
  }
  const sets = changes.filter((change): change is MetafieldChange & { value: string } => change.value !== null);
  const deletes = changes.filter((change) => change.value === null).map((change) => change.definition.id);
  if (deletes.length)
    await run(em, `delete from metafield where ${column} = ? and definition_id = any(?::int[])`, [ownerId, deletes]);
  let written: (Omit<MetafieldRow, 'updatedAt'> & { updated_at: Date })[] = [];
  if (sets.length) {
    written = await refusingDeletedDefinitions(
      run(
        em,
        `insert into metafield (definition_id, namespace, key, type, value, ${column}, created_at, updated_at)
       select x.d, x.n, x.k, x.t, x.v, ?, ?, ? from unnest(?::int[], ?::text[], ?::text[], ?::text[], ?::text[])
         as x(d, n, k, t, v)
       on conflict (${column}, definition_id) where ${column} is not null
       do update set value = excluded.value, updated_at = excluded.updated_at
       returning namespace, key, type, value, updated_at`,
        [
          ownerId,
          at,
          at,
          sets.map((c) => c.definition.id),
          sets.map((c) => c.definition.namespace),
          sets.map((c) => c.definition.key),
          sets.map((c) => c.definition.type),
          sets.map((c) => c.value),
        ],
      ),
    );
  }
  const byName = new Map(written.map((row) => [dottedName(row.namespace, row.key), row]));
  const rows = sets.map((change) => {
    const row = byName.get(dottedName(change.definition.namespace, change.definition.key))!;
    return { namespace: row.namespace, key: row.key, type: row.type, value: row.value, updatedAt: row.updated_at };
  });
  const data: Record<string, unknown> = {};
  for (const change of changes) {
    const { namespace, key, type } = change.definition;
    data[dottedName(namespace, key)] = change.value === null ? null : restValueOf(type, change.value);
  }
  return { rows, data };
}
