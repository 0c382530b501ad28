import type { EntityManager } from '@mikro-orm/postgresql';
import { now } from '../clock.js';
import { Fulfilment } from '../entities/fulfilment.entity.js';
import { FulfilmentItem } from '../entities/fulfilment-item.entity.js';
import type { LineItem } from '../entities/line-item.entity.js';
import type { Order } from '../entities/order.entity.js';
import { Warehouse } from '../entities/warehouse.entity.js';
import type {
  FulfilmentChange,
  FulfilmentCreate,
  FulfilmentPatch,
  RecordItemInput,
} from '../schema/inputs/fulfilment.inputs.js';
import { ConflictError, type FieldError, NotFoundError } from './errors.js';
import { fulfilmentData } from './event-data.js';
import { type Actor, eventRow, orderEventSubject, recordEvent } from './events.js';
import { insertFulfilment, removeFulfilment } from './fulfilment-statements.js';
import { type MovementWhy, moveStock, orderRecordReference, type StockMove } from './inventory.js';
import { moveUnits } from './line-counters.js';
import { checkQuantity, OrderState, throwIfAny } from './order-state.js';
import type { ExpectedVersion } from './preconditions.js';

/**
 * The stock move of fulfilling `quantity` units of a line from a warehouse: tracked lines take
 * stock from it (none without a warehouse: 409), untracked lines move none. A line whose variant
 * was deleted since the order (a product edit that renamed its option value, say) moves none
 * either way: its stock went with it, and the order, which product edits never change, can still
 * be fulfilled (docs/decisions.md#domain-rules, snapshots).
 */
export function stockMove(
  line: Pick<LineItem, 'trackInventory' | 'variant'>,
  warehouseId: number | null | undefined,
  quantity: number,
  label: string,
): StockMove[] {
  if (!line.trackInventory || quantity === 0 || !line.variant) return [];
  if (!warehouseId) {
    if (quantity > 0) throw new ConflictError('no warehouse to take the stock from', label);
    return []; // nothing was taken from a warehouse, so nothing goes back
  }
  return [{ warehouseId, variantId: line.variant.id, quantity, label }];
}

/** Why stock moves for a fulfilment created, resized or moved (`fulfilment`) or deleted. */
const fulfilmentWhy = (actor: Actor, reference: string | null, deleted = false): MovementWhy => ({
  reason: deleted ? 'fulfilment_deleted' : 'fulfilment',
  reference,
  actor,
});

/**
 * Sends units to fulfilment: not_fulfilled → fulfilled, and, for products that track inventory,
 * the warehouse's stock drops by the same amount in the same transaction (409 when short).
 * One fulfilment comes from one warehouse.
 */
export async function createFulfilment(
  em: EntityManager,
  actor: Actor,
  orderId: number,
  input: FulfilmentCreate,
  expected?: ExpectedVersion,
): Promise<Order> {
  const warehouses = [...new Set(input.items.map((i) => i.warehouse).filter((w): w is number => w != null))];
  const warehouseId = warehouses[0] ?? null;
  const state = await OrderState.load(em, orderId, expected, warehouseId === null ? [] : [warehouseId]);
  const errors: FieldError[] = [];
  if (!input.items.length) errors.push({ field: 'items', message: 'a fulfilment needs at least one item' });
  if (warehouses.length > 1) {
    const other = input.items.findIndex((i) => i.warehouse != null && i.warehouse !== warehouseId);
    errors.push({
      field: `items[${other}].warehouse`,
      message: `all items of one fulfilment come from one warehouse (items before it: ${warehouseId})`,
    });
  }
  if (warehouseId !== null) {
    state.warehouseExists(warehouseId, `items[${input.items.findIndex((i) => i.warehouse != null)}].warehouse`, errors);
  }
  const seen = new Set<number>();
  const planned: { line: LineItem; quantity: number; index: number }[] = [];
  input.items.forEach((item, i) => {
    const line = state.line(item.id, `items[${i}].id`, errors);
    const quantityOk = checkQuantity(item.quantity, `items[${i}].quantity`, errors);
    if (seen.has(item.id)) errors.push({ field: `items[${i}].id`, message: 'each line item may appear once' });
    seen.add(item.id);
    if (line?.trackInventory && item.warehouse == null)
      errors.push({ field: `items[${i}].warehouse`, message: 'is required: the product tracks inventory' });
    if (line && quantityOk) planned.push({ line, quantity: item.quantity, index: i });
  });
  throwIfAny(errors);
  for (const { line, quantity, index } of planned) {
    if (quantity > line.notFulfilled) {
      throw new ConflictError(
        `only ${line.notFulfilled} unit(s) of line item ${line.id} are left to fulfil`,
        `items[${index}]`,
      );
    }
  }
  // The movements get the fulfilment's path from the statement that inserts it (its id is not known yet).
  const movements = await moveStock(
    em,
    planned.flatMap(({ line, quantity, index }) => stockMove(line, warehouseId, quantity, `items[${index}]`)),
    fulfilmentWhy(actor, null),
  );
  const fulfilment = Object.assign(new Fulfilment(), {
    order: state.order,
    warehouse: warehouseId ? em.getReference(Warehouse, warehouseId) : null,
  });
  const items = planned.map(({ line, quantity }) => {
    moveUnits(line, 'notFulfilled', 'fulfilled', quantity);
    return { lineItem: line, quantity };
  });
  return state.settleBy(async (order) => {
    // The event's data gets the fulfilment's id from the statement that inserts both.
    const data = fulfilmentData(order, fulfilment, items);
    const event = eventRow(actor, 'fulfilment.created', orderEventSubject(order), data);
    fulfilment.id = await insertFulfilment(em, order, fulfilment, items, event, movements);
  });
}

/** After the change settled: one `fulfilment.updated` per fulfilment changed, with its items now. */
function recordUpdated(state: OrderState, actor: Actor, fulfilments: Fulfilment[]): void {
  for (const fulfilment of new Set(fulfilments)) {
    recordEvent(
      state.em,
      actor,
      'fulfilment.updated',
      orderEventSubject(state.order),
      fulfilmentData(state.order, fulfilment, state.itemsOf(fulfilment)),
    );
  }
}

function fulfilmentOf(
  state: OrderState,
  id: number,
  field: string | null,
  errors: FieldError[],
): Fulfilment | undefined {
  const fulfilment = state.fulfilments.get(id);
  if (!fulfilment) {
    if (field === null) throw new NotFoundError('Fulfilment', id);
    errors.push({ field, message: `fulfilment ${id} is not in order ${state.order.id}` });
  }
  return fulfilment;
}

/** One line's new quantity in a fulfilment, planned (resizePlan) and then applied (applyResize). */
interface ResizeStep {
  fulfilment: Fulfilment;
  line: LineItem;
  /** The line's item in the fulfilment, if it has one (each line is listed once a fulfilment). */
  item?: FulfilmentItem;
  target: number;
  /** Units taken (positive) or given back (negative). */
  delta: number;
  at: string;
}

/**
 * Sets absolute quantities on the listed lines of a fulfilment (0 removes a line, unlisted lines
 * stay), planned: every bad value is a 422 (and a fulfilment left with no line: delete it instead),
 * a line below what the fulfilment has shipped a 409. Growing a line is checked when it is applied
 * (applyResize), against the units then not fulfilled.
 */
function resizePlan(state: OrderState, fulfilment: Fulfilment, items: RecordItemInput[], path: string): ResizeStep[] {
  const errors: FieldError[] = [];
  const seen = new Set<number>();
  const planned: { line: LineItem; target: number; index: number }[] = [];
  items.forEach((item, i) => {
    const line = state.line(item.id, `${path}items[${i}].id`, errors);
    const ok = checkQuantity(item.quantity, `${path}items[${i}].quantity`, errors, true);
    if (seen.has(item.id)) errors.push({ field: `${path}items[${i}].id`, message: 'each line item may appear once' });
    seen.add(item.id);
    if (line && ok) planned.push({ line, target: item.quantity, index: i });
  });
  const current = new Map(state.itemsOf(fulfilment).map((i) => [i.lineItem.id, i]));
  const remaining = new Set(
    [...current.keys()].filter((id) => !planned.some((p) => p.line.id === id && p.target === 0)),
  );
  for (const p of planned) if (p.target > 0) remaining.add(p.line.id);
  if (!remaining.size)
    errors.push({ field: `${path}items`, message: 'a fulfilment cannot be left without lines; delete it instead' });
  for (const p of planned) {
    if (p.line.trackInventory && p.target > 0 && !fulfilment.warehouse) {
      errors.push({
        field: `${path}items[${p.index}].id`,
        message: 'the product tracks inventory but this fulfilment has no warehouse',
      });
    }
  }
  throwIfAny(errors);
  return planned.map(({ line, target, index }) => {
    const shipped = state.shippedFrom(fulfilment, line.id);
    if (target < shipped)
      throw new ConflictError(
        `${shipped} unit(s) of line item ${line.id} are shipped from this fulfilment`,
        `${path}items[${index}]`,
      );
    const item = current.get(line.id);
    return { fulfilment, line, item, target, delta: target - (item?.quantity ?? 0), at: `${path}items[${index}]` };
  });
}

/**
 * Applies planned steps: every shrink first, then every growth, so that units one fulfilment of
 * the request gives back can go to another (the request names end states; their order in the
 * body does not matter). Growing takes units (and stock) still not fulfilled (409 beyond them),
 * shrinking gives them back.
 */
function applyResize(state: OrderState, steps: ResizeStep[], moves: StockMove[]): void {
  const { em } = state;
  const ordered = [...steps.filter((s) => s.delta < 0), ...steps.filter((s) => s.delta >= 0)];
  for (const { fulfilment, line, item, target, delta, at } of ordered) {
    if (delta > line.notFulfilled)
      throw new ConflictError(`only ${line.notFulfilled} more unit(s) of line item ${line.id} can be fulfilled`, at);
    moves.push(...stockMove(line, fulfilment.warehouse?.id, delta, at));
    moveUnits(line, 'notFulfilled', 'fulfilled', delta);
    if (item && target === 0) {
      em.remove(item);
      state.fulfilmentItems.splice(state.fulfilmentItems.indexOf(item), 1);
    } else if (item) {
      item.quantity = target;
    } else if (target > 0) {
      const created = Object.assign(new FulfilmentItem(), { fulfilment, lineItem: line, quantity: target });
      em.persist(created);
      state.fulfilmentItems.push(created);
    }
    fulfilment.updatedAt = now();
  }
}

export async function updateFulfilment(
  em: EntityManager,
  actor: Actor,
  orderId: number,
  fulfilmentId: number,
  patch: FulfilmentPatch,
  expected?: ExpectedVersion,
): Promise<Order> {
  const state = await OrderState.load(em, orderId, expected, patch.warehouse != null ? [patch.warehouse] : []);
  const fulfilment = fulfilmentOf(state, fulfilmentId, null, [])!;
  const errors: FieldError[] = [];
  const moving = patch.warehouse != null && patch.warehouse !== fulfilment.warehouse?.id;
  if (moving) state.warehouseExists(patch.warehouse!, 'warehouse', errors);
  throwIfAny(errors);
  const moves: StockMove[] = [];
  // The move first: the items the same PATCH adds or resizes come from the new warehouse (a
  // tracked line added to a fulfilment that had none needs the warehouse the body gives it).
  if (moving) {
    if (state.shipmentsOf(fulfilment).length)
      throw new ConflictError(
        `fulfilment ${fulfilmentId} has shipments: its units already left warehouse ${fulfilment.warehouse?.id}`,
        'warehouse',
      );
    for (const item of state.itemsOf(fulfilment)) {
      const line = item.lineItem as LineItem;
      moves.push(...stockMove(line, fulfilment.warehouse?.id, -item.quantity, 'warehouse'));
      moves.push(...stockMove(line, patch.warehouse, item.quantity, 'warehouse'));
    }
    fulfilment.warehouse = em.getReference(Warehouse, patch.warehouse!);
    fulfilment.updatedAt = now();
  }
  if (patch.items) applyResize(state, resizePlan(state, fulfilment, patch.items, ''), moves);
  await moveStock(em, moves, fulfilmentWhy(actor, orderRecordReference(orderId, 'fulfilments', fulfilmentId)));
  await state.settle();
  recordUpdated(state, actor, [fulfilment]);
  return state.order;
}

export async function updateFulfilments(
  em: EntityManager,
  actor: Actor,
  orderId: number,
  changes: FulfilmentChange[],
  expected?: ExpectedVersion,
): Promise<Order> {
  const state = await OrderState.load(em, orderId, expected);
  const errors: FieldError[] = [];
  if (!changes.length) errors.push({ field: 'fulfilments', message: 'list at least one fulfilment' });
  const ids = new Set<number>();
  const found = changes.map((change, i) => {
    if (ids.has(change.id)) errors.push({ field: `fulfilments[${i}].id`, message: 'each fulfilment may appear once' });
    ids.add(change.id);
    return fulfilmentOf(state, change.id, `fulfilments[${i}].id`, errors);
  });
  throwIfAny(errors);
  const moves: StockMove[] = [];
  const steps = changes.flatMap((change, i) => resizePlan(state, found[i]!, change.items, `fulfilments[${i}].`));
  applyResize(state, steps, moves);
  // One movement per level, however many of the fulfilments moved its units: then the order's list of them.
  const reference =
    changes.length === 1
      ? orderRecordReference(orderId, 'fulfilments', changes[0].id)
      : orderRecordReference(orderId, 'fulfilments');
  await moveStock(em, moves, fulfilmentWhy(actor, reference));
  await state.settle();
  recordUpdated(state, actor, found as Fulfilment[]);
  return state.order;
}

/** Unmarks a fulfilment: its units return to not fulfilled and its stock to the warehouse. */
export async function deleteFulfilment(
  em: EntityManager,
  actor: Actor,
  orderId: number,
  fulfilmentId: number,
  expected?: ExpectedVersion,
): Promise<Order> {
  const state = await OrderState.load(em, orderId, expected);
  const fulfilment = fulfilmentOf(state, fulfilmentId, null, [])!;
  const shipments = state.shipmentsOf(fulfilment);
  if (shipments.length) {
    throw new ConflictError(
      `fulfilment ${fulfilmentId} has shipment(s) ${shipments.map((s) => s.id).join(', ')}; delete them first`,
    );
  }
  const moves: StockMove[] = [];
  const held = state.itemsOf(fulfilment);
  for (const item of held) {
    const line = item.lineItem as LineItem;
    moveUnits(line, 'fulfilled', 'notFulfilled', item.quantity);
    moves.push(...stockMove(line, fulfilment.warehouse?.id, -item.quantity, ''));
  }
  await moveStock(em, moves, fulfilmentWhy(actor, orderRecordReference(orderId, 'fulfilments', fulfilmentId), true));
  return state.settleBy(async (order) => {
    // The record as it was, with the order's status after the deletion.
    const data = { ...fulfilmentData(order, fulfilment, held), id: fulfilmentId };
    const event = eventRow(actor, 'fulfilment.deleted', orderEventSubject(order), data);
    await removeFulfilment(
      em,
      order,
      fulfilmentId,
      held.map((i) => i.lineItem as LineItem),
      event,
    );
  });
}
