// Stock changed by hand (docs/decisions.md#inventory-ledger): adjustments by a delta with a reason,
// and setting a level outright. Each is checked against what the caller believed
// (`changeFromQuantity`) under the levels' row locks, records one movement per level and one
// `inventory.adjusted` event, all in the mutation's one transaction.
import type { EntityManager } from '@mikro-orm/postgresql';
import { runPrepared } from '../db/prepared-statements.js';
import { ProductVariant } from '../entities/product-variant.entity.js';
import { Warehouse } from '../entities/warehouse.entity.js';
import { ConflictError, type FieldError, PreconditionFailedError, ValidationError } from './errors.js';
import { type Actor, recordEvent } from './events.js';
import { checkText, missingIds } from './input-checks.js';
import { INT4_MAX } from './int4.js';
import { MAX_STOCK, MOVEMENT_COLUMNS, type MovementWhy, movementWhyValues } from './inventory.js';
import { ADJUSTMENT_REASONS, isAdjustmentReason } from './inventory-reasons.js';

/** The most levels one adjustment changes. */
export const MAX_ADJUSTMENT_CHANGES = 100;
const REFERENCE_LIMIT = 255;

/** One change of an adjustment, as `adjustInventory` takes it. */
export interface InventoryChange {
  variantId: number;
  warehouseId: number;
  delta: number;
  changeFromQuantity?: number | null;
}

/** A level's change: by `delta`, or to `quantity`; `path` names it in a refusal (`changes[2]`). */
interface LevelChange {
  variantId: number;
  warehouseId: number;
  delta?: number;
  quantity?: number;
  changeFromQuantity?: number | null;
  path: string;
}

interface LockedLevel {
  id: number;
  warehouse_id: number;
  variant_id: number;
  quantity: number;
}

const keyOf = (c: { warehouseId: number; variantId: number }) => `${c.warehouseId}:${c.variantId}`;

const isCount = (value: unknown, max = INT4_MAX): value is number =>
  Number.isInteger(value) && (value as number) >= 0 && (value as number) <= max;

/**
 * Locks the levels of these (warehouse, variant) pairs, creating those that do not exist yet with
 * 0 units, and answers them by pair. One statement takes them one after the other in (warehouse,
 * variant) order, the order `moveStock` takes them in, an existing level locked by its conflict's
 * (unchanging) update and a new one by its insert: two adjustments crossing the same levels, or an
 * adjustment and a fulfilment, wait for each other instead of deadlocking. (Creating the missing
 * levels first and locking the others after took a new level before an older one of a lower order.)
 */
async function lockLevels(em: EntityManager, changes: LevelChange[]): Promise<Map<string, LockedLevel>> {
  const sorted = [...changes].sort((a, b) => a.warehouseId - b.warehouseId || a.variantId - b.variantId);
  const warehouses = sorted.map((c) => c.warehouseId);
  const variants = sorted.map((c) => c.variantId);
  // The variants and warehouses are held FOR KEY SHARE until the change commits: one deleted after
  // checkReferences looked (a product PATCH dropping a variant) gets no level here, and is named
  // as missing (applyChanges), instead of failing the insert's foreign key. Each pair is listed
  // once (planned refuses a level changed twice), as a conflict's update requires.
  const rows = await runPrepared<LockedLevel>(
    em,
    `with v as (select id from product_variant where id = any(?::int[]) for key share),
       w as (select id from warehouse where id = any(?::int[]) for key share)
     insert into inventory_level (warehouse_id, variant_id, quantity)
     select x.w, x.v, 0 from unnest(?::int[], ?::int[]) with ordinality x(w, v, n)
     where x.v in (select id from v) and x.w in (select id from w) order by x.n
     on conflict (warehouse_id, variant_id) do update set quantity = inventory_level.quantity
     returning id, warehouse_id, variant_id, quantity`,
    [variants, warehouses, warehouses, variants],
  );
  return new Map(rows.map((row) => [keyOf({ warehouseId: row.warehouse_id, variantId: row.variant_id }), row]));
}

/** Variants and warehouses named that do not exist: 422 naming each place. */
async function checkReferences(em: EntityManager, changes: LevelChange[], errors: FieldError[]): Promise<void> {
  const [variants, warehouses] = await Promise.all([
    missingIds(
      em,
      ProductVariant,
      changes.map((c) => c.variantId),
    ),
    missingIds(
      em,
      Warehouse,
      changes.map((c) => c.warehouseId),
    ),
  ]);
  for (const change of changes) {
    if (variants.has(change.variantId))
      errors.push({ field: `${change.path}variantId`, message: `variant ${change.variantId} does not exist` });
    if (warehouses.has(change.warehouseId))
      errors.push({ field: `${change.path}warehouseId`, message: `warehouse ${change.warehouseId} does not exist` });
  }
}

/**
 * Applies the changes under the levels' locks, all or none: every `changeFromQuantity` is compared
 * with the units now first (PRECONDITION_FAILED naming each level that moved on, and its units),
 * then every new quantity must lie within 0..MAX_STOCK (CONFLICT). One statement writes the levels
 * and their movements; one event records the whole change. Answers the levels' ids, in the order
 * of the changes.
 */
async function applyChanges(
  em: EntityManager,
  changes: LevelChange[],
  why: MovementWhy & { actor: Actor },
): Promise<number[]> {
  const levels = await lockLevels(em, changes);
  const gone = changes.filter((change) => !levels.has(keyOf(change)));
  if (gone.length) {
    // Deleted since checkReferences found them (see lockLevels).
    throw new ValidationError(
      gone.map((c) => ({
        field: `${c.path}variantId`,
        message: `variant ${c.variantId} in warehouse ${c.warehouseId} does not exist any more`,
      })),
    );
  }
  const planned = changes.map((change) => {
    const level = levels.get(keyOf(change))!;
    const target = change.quantity ?? level.quantity + (change.delta ?? 0);
    return { change, level, target };
  });
  const stale = planned.filter(
    ({ change, level }) => change.changeFromQuantity != null && change.changeFromQuantity !== level.quantity,
  );
  if (stale.length) {
    // Named by index (`changes[1]`), the same in REST and GraphQL.
    const now = stale.map(
      ({ change, level }) =>
        `variant ${level.variant_id} in warehouse ${level.warehouse_id} has ${level.quantity} units, ` +
        `not ${change.changeFromQuantity}${change.path ? ` (${change.path.slice(0, -1)})` : ''}`,
    );
    throw new PreconditionFailedError(
      `The stock has changed since it was read: ${now.join('; ')}; nothing was changed. ` +
        'Read the levels again before adjusting',
    );
  }
  for (const { change, level, target } of planned) {
    if (target < 0)
      throw new ConflictError(
        `variant ${level.variant_id} in warehouse ${level.warehouse_id} has ${level.quantity} units: ` +
          `a change of ${change.delta} would leave ${target}`,
        `${change.path}delta`,
      );
    if (target > MAX_STOCK)
      throw new ConflictError(
        `variant ${level.variant_id} in warehouse ${level.warehouse_id} cannot hold more than ${MAX_STOCK} units`,
        `${change.path}delta`,
      );
  }
  const movements = await runPrepared<{
    id: number;
    variant_id: number;
    warehouse_id: number;
    delta: number;
    quantity_after: number;
  }>(
    em,
    `with x as (
       select * from unnest(?::int[], ?::int[], ?::int[], ?::int[], ?::int[])
       with ordinality x(id, variant_id, warehouse_id, quantity, delta, n)
     ),
     changed as (update inventory_level l set quantity = x.quantity from x where l.id = x.id)
     insert into inventory_movement (${MOVEMENT_COLUMNS})
     select x.variant_id, x.warehouse_id, x.delta, x.quantity, ?, ?, ?, ?, ? from x order by x.n
     returning id, variant_id, warehouse_id, delta, quantity_after`,
    [
      planned.map((p) => p.level.id),
      planned.map((p) => p.level.variant_id),
      planned.map((p) => p.level.warehouse_id),
      planned.map((p) => p.target),
      planned.map((p) => p.target - p.level.quantity),
      ...movementWhyValues(why),
    ],
  );
  const ordered = [...movements].sort((a, b) => a.id - b.id);
  recordEvent(
    em,
    why.actor,
    'inventory.adjusted',
    { subject: 'inventory', subjectId: ordered[0].id },
    { reason: why.reason, reference: why.reference, movements: ordered },
  );
  return planned.map((p) => p.level.id);
}

/**
 * `adjustInventory`: changes units by deltas, all or none. Each change may say what it believes
 * the units are (`changeFromQuantity`); a level that holds anything else refuses the whole
 * adjustment (412), so a count made while a fulfilment took units cannot overwrite them.
 */
export async function adjustInventory(
  em: EntityManager,
  actor: Actor,
  changes: InventoryChange[],
  reason: string,
  reference: string | null | undefined,
): Promise<number[]> {
  const errors: FieldError[] = [];
  if (!isAdjustmentReason(reason))
    errors.push({ field: 'reason', message: `must be one of ${ADJUSTMENT_REASONS.join(', ')}` });
  checkText(reference, 'reference', errors, { limit: REFERENCE_LIMIT });
  if (!changes.length) errors.push({ field: 'changes', message: 'list at least one change' });
  if (changes.length > MAX_ADJUSTMENT_CHANGES)
    errors.push({ field: 'changes', message: `at most ${MAX_ADJUSTMENT_CHANGES} changes at once` });
  const first = new Map<string, number>();
  const planned = changes.map((change, i): LevelChange => {
    const path = `changes[${i}].`;
    if (!Number.isInteger(change.delta) || change.delta === 0 || Math.abs(change.delta) > MAX_STOCK)
      errors.push({
        field: `${path}delta`,
        message: `must be a whole number other than 0, from -${MAX_STOCK} to ${MAX_STOCK}`,
      });
    if (change.changeFromQuantity != null && !isCount(change.changeFromQuantity, MAX_STOCK))
      errors.push({ field: `${path}changeFromQuantity`, message: `must be a whole number from 0 to ${MAX_STOCK}` });
    const seen = first.get(keyOf(change));
    if (seen !== undefined)
      errors.push({ field: path.slice(0, -1), message: `changes the same level as changes[${seen}]; list each once` });
    else first.set(keyOf(change), i);
    return { ...change, path };
  });
  if (!errors.length) await checkReferences(em, planned, errors);
  if (errors.length) throw new ValidationError(errors);
  const trimmed = reference?.trim() || null;
  return applyChanges(em, planned, { reason: reason as MovementWhy['reason'], reference: trimmed, actor });
}

/**
 * `setInventoryLevel`: sets (not adds) the units of one variant in one warehouse, recorded as a
 * `set` movement of the difference (0 when the count confirms the units), and, given
 * `changeFromQuantity`, only while the units are still that (412 otherwise).
 */
export async function setInventoryLevel(
  em: EntityManager,
  actor: Actor,
  warehouseId: number,
  variantId: number,
  quantity: number,
  changeFromQuantity?: number | null,
): Promise<number> {
  const errors: FieldError[] = [];
  if (!isCount(quantity, 1_000_000_000))
    errors.push({ field: 'quantity', message: 'must be a whole number from 0 to 1000000000' });
  if (changeFromQuantity != null && !isCount(changeFromQuantity, MAX_STOCK))
    errors.push({ field: 'changeFromQuantity', message: `must be a whole number from 0 to ${MAX_STOCK}` });
  const change: LevelChange = { warehouseId, variantId, quantity, changeFromQuantity, path: '' };
  await checkReferences(em, [change], errors);
  if (errors.length) throw new ValidationError(errors);
  const [id] = await applyChanges(em, [change], { reason: 'set', reference: null, actor });
  return id;
}
