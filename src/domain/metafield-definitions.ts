import { setTimeout as sleep } from 'node:timers/promises';
import { type EntityManager, UniqueConstraintViolationException } from '@mikro-orm/postgresql';
import { now } from '../clock.js';
import { runPrepared } from '../db/prepared-statements.js';
import { MetafieldDefinition } from '../entities/metafield-definition.entity.js';
import { MetafieldOwnerType } from '../schema/enums/metafield-owner-type.enum.js';
import { ConflictError, type FieldError, NotFoundError, ValidationError } from './errors.js';
import type { Actor } from './events.js';
import { checkText } from './input-checks.js';
import { METAFIELD_OWNERS } from './metafield-owners.js';
import { isMetafieldType, METAFIELD_TYPES } from './metafield-types.js';
import { checkName, dottedName } from './metafield-values.js';

/** Definitions per owner type (docs/decisions.md#custom-data-metafields). */
export const DEFINITIONS_PER_OWNER_TYPE = 250;
const DESCRIPTION_LIMIT = 1000;

export interface MetafieldDefinitionInput {
  ownerType: MetafieldOwnerType;
  namespace: string;
  key: string;
  type: string;
  name: string;
  description?: string | null;
}

/** A statement in the caller's transaction (arrays bound as arrays). */
const run = <T>(em: EntityManager, sql: string, params: readonly unknown[] = []) => runPrepared<T>(em, sql, params);

/** Serialises the definition writes of one owner type, so that two cannot both take the 250th place. */
async function lockOwnerType(em: EntityManager, ownerType: MetafieldOwnerType): Promise<void> {
  await run(em, "select pg_advisory_xact_lock(hashtext('metafield_definition'), hashtext(?))", [ownerType]);
}

export async function createMetafieldDefinition(
  em: EntityManager,
  input: MetafieldDefinitionInput,
): Promise<MetafieldDefinition> {
  const errors: FieldError[] = [];
  checkName(input.namespace, input.key, 'definition', errors);
  // The names of the arguments, as the caller gave them.
  for (const error of errors) error.field = error.field.replace('definition.', '');
  if (!isMetafieldType(input.type))
    errors.push({ field: 'type', message: `must be one of ${METAFIELD_TYPES.join(', ')}` });
  checkText(input.name, 'name', errors, { required: true });
  checkText(input.description, 'description', errors, { limit: DESCRIPTION_LIMIT });
  if (errors.length) throw new ValidationError(errors);
  await lockOwnerType(em, input.ownerType);
  const [{ count }] = await run<{ count: number }>(
    em,
    'select count(*)::int as count from metafield_definition where owner_type = ?',
    [input.ownerType],
  );
  if (count >= DEFINITIONS_PER_OWNER_TYPE)
    throw new ValidationError([
      {
        field: 'ownerType',
        message: `${input.ownerType} has ${count} metafield definitions, the most an owner type may have`,
      },
    ]);
  const definition = Object.assign(new MetafieldDefinition(), {
    ownerType: input.ownerType,
    namespace: input.namespace,
    key: input.key,
    type: input.type,
    name: input.name,
    description: input.description ?? null,
    createdAt: now(),
  });
  try {
    await em.persist(definition).flush();
  } catch (error) {
    if (error instanceof UniqueConstraintViolationException)
      throw new ConflictError(
        `${input.ownerType} already has a metafield definition named ${dottedName(input.namespace, input.key)}`,
        'key',
      );
    throw error;
  }
  return definition;
}

/** An owner type's definitions, by namespace and key. */
export async function metafieldDefinitionsOf(
  em: EntityManager,
  ownerType: MetafieldOwnerType,
): Promise<MetafieldDefinition[]> {
  return em.find(MetafieldDefinition, { ownerType }, { orderBy: { namespace: 'asc', key: 'asc' } });
}

/** The owner type of a definition, or null when there is none (a deletion checks its scope first). */
export async function ownerTypeOfDefinition(em: EntityManager, id: number): Promise<MetafieldOwnerType | null> {
  const [row] = await run<{ owner_type: MetafieldOwnerType }>(
    em,
    'select owner_type from metafield_definition where id = ?',
    [id],
  );
  return row?.owner_type ?? null;
}

/**
 * Deletes a definition with its values. Every record that had a value shows one metafield less:
 * its version (ETag) and `updated_at` move, and it gets an event (`order.updated` etc., the
 * metafield null in `data`; a variant's under its product's `variants`), as if its value had been
 * deleted on its own. This is done in a few set-based statements whatever the number of records.
 *
 * The records are locked first, in id order (the lock order of metafield-owners.ts), and the
 * definition after them: a write that sets a value locks its record, then takes a key-share lock on
 * the definition through the value's foreign key, so the definition is only tried (SKIP LOCKED), never
 * waited for while records are held. Once it is held no value can be added; if one was added
 * meanwhile to a record not yet locked, the attempt is undone (a savepoint) and made again.
 */
export async function deleteMetafieldDefinition(em: EntityManager, actor: Actor, id: number): Promise<number> {
  const [definition] = await run<{ owner_type: MetafieldOwnerType; namespace: string; key: string }>(
    em,
    'select owner_type, namespace, key from metafield_definition where id = ?',
    [id],
  );
  if (!definition) throw new NotFoundError('MetafieldDefinition', id);
  const owner = METAFIELD_OWNERS[definition.owner_type];
  const holders = `select ${owner.column} from metafield where definition_id = ?`;
  // The versioned records: the owners, or the products of the variants that had a value.
  const versioned =
    owner.type === MetafieldOwnerType.PRODUCT_VARIANT
      ? `select product_id from product_variant where id in (${holders})`
      : holders;
  const lockMode = owner.versioned === 'orders' ? 'for update' : 'for no key update';
  for (let attempt = 0; ; attempt++) {
    await run(em, 'savepoint metafield_definition_delete');
    const locked = await run<{ id: number }>(
      em,
      `select id from ${owner.versioned} where id in (${versioned}) order by id ${lockMode}`,
      [id],
    );
    const held = await run(em, 'select id from metafield_definition where id = ? for update skip locked', [id]);
    if (held.length) {
      const present = await run<{ id: number }>(em, `select distinct id from (${versioned}) v(id)`, [id]);
      const ids = new Set(locked.map((row) => row.id));
      if (present.every((row) => ids.has(row.id))) {
        await run(em, 'release savepoint metafield_definition_delete');
        break;
      }
    }
    await run(em, 'rollback to savepoint metafield_definition_delete');
    if (!(await run(em, 'select 1 from metafield_definition where id = ?', [id])).length)
      throw new NotFoundError('MetafieldDefinition', id);
    await sleep(Math.min(5 * 2 ** attempt, 200));
  }
  await run(em, `update ${owner.versioned} set version = version + 1, updated_at = ? where id in (${versioned})`, [
    now(),
    id,
  ]);
  const name = dottedName(definition.namespace, definition.key);
  const subject = owner.versioned === 'orders' ? 'order' : owner.versioned;
  const orderId = owner.versioned === 'orders' ? 'r.id' : 'null::int';
  const data =
    owner.type === MetafieldOwnerType.PRODUCT_VARIANT
      ? `select v.product_id as id, jsonb_build_object('id', v.product_id, 'variants', jsonb_agg(jsonb_build_object(
           'id', v.id, 'metafields', jsonb_build_object(?::text, null)) order by v.id)) as data
         from product_variant v where v.id in (${holders}) group by v.product_id`
      : `select h.id, jsonb_build_object('id', h.id, 'metafields', jsonb_build_object(?::text, null)) as data
         from (${holders}) h(id)`;
  await run(
    em,
    `insert into event (type, created_at, actor_token_id, actor_name, subject, subject_id, order_id, data)
     select ?, ?, ?, ?, ?, r.id, ${orderId}, r.data from (${data}) r order by r.id`,
    [owner.event, now(), actor.tokenId, actor.name, subject, name, id],
  );
  await run(em, 'delete from metafield_definition where id = ?', [id]);
  return id;
}
