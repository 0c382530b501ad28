import type { EntityManager } from '@mikro-orm/postgresql';
import { now } from '../clock.js';
import type { LineItem } from '../entities/line-item.entity.js';
import type { Order } from '../entities/order.entity.js';
import { Shipment } from '../entities/shipment.entity.js';
import { ShipmentItem } from '../entities/shipment-item.entity.js';
import { ShippingCarrier } from '../entities/shipping-carrier.entity.js';
import type { ShipmentChange, ShipmentCreate } from '../schema/inputs/fulfilment.inputs.js';
import { ConflictError, type FieldError, NotFoundError } from './errors.js';
import { shipmentData } from './event-data.js';
import { type Actor, type EventType, orderEventSubject, recordEvent } from './events.js';
import { moveUnits } from './line-counters.js';
import { checkQuantity, OrderState, throwIfAny } from './order-state.js';
import type { ExpectedVersion } from './preconditions.js';
import { enqueueShipmentMail } from './shipment-mail.js';
import { trackingUrlOf } from './tracking-url.js';

const TRACKING_LIMIT = 100;

async function carrierOf(
  em: EntityManager,
  id: number | undefined,
  field: string,
  errors: FieldError[],
): Promise<ShippingCarrier | undefined> {
  if (id === undefined || id === null) return undefined;
  const carrier = await em.findOne(ShippingCarrier, { id });
  if (!carrier) errors.push({ field, message: `shipping carrier ${id} does not exist` });
  else if (carrier.isDeleted) errors.push({ field, message: `shipping carrier ${id} is deleted` });
  return carrier ?? undefined;
}

function checkTracking(value: string | undefined, field: string, errors: FieldError[]) {
  if (value === undefined) return;
  if (!value.trim()) errors.push({ field, message: 'must not be empty' });
  else if (value.length > TRACKING_LIMIT)
    errors.push({ field, message: `must be at most ${TRACKING_LIMIT} characters` });
}

/**
 * Ships units of existing fulfilments of this order: fulfilled → shipped, at most what each
 * fulfilment holds unshipped (409 beyond). Without `items` a shipment takes all of it. With
 * `notify`, an e-mail per shipment goes to the outbox in the same transaction.
 */
export async function createShipments(
  em: EntityManager,
  actor: Actor,
  orderId: number,
  data: ShipmentCreate[],
  notify: boolean,
  expected?: ExpectedVersion,
): Promise<Order> {
  const state = await OrderState.load(em, orderId, expected);
  const errors: FieldError[] = [];
  if (!data.length) errors.push({ field: 'data', message: 'list at least one shipment' });
  const carriers = await Promise.all(
    data.map((s, i) => carrierOf(em, s.shippingCarrier, `data[${i}].shippingCarrier`, errors)),
  );
  data.forEach((s, i) => {
    checkTracking(s.trackingNumber, `data[${i}].trackingNumber`, errors);
    const fulfilment = state.fulfilments.get(s.fulfilmentId);
    if (!fulfilment)
      errors.push({
        field: `data[${i}].fulfilmentId`,
        message: `fulfilment ${s.fulfilmentId} is not in order ${orderId}`,
      });
    const seen = new Set<number>();
    s.items?.forEach((item, j) => {
      const field = `data[${i}].items[${j}]`;
      checkQuantity(item.quantity, `${field}.quantity`, errors);
      if (seen.has(item.id)) errors.push({ field: `${field}.id`, message: 'each line item may appear once' });
      seen.add(item.id);
      if (fulfilment && !state.itemsOf(fulfilment).some((fi) => fi.lineItem.id === item.id)) {
        errors.push({ field: `${field}.id`, message: `line item ${item.id} is not in fulfilment ${s.fulfilmentId}` });
      }
    });
    if (s.items && !s.items.length)
      errors.push({ field: `data[${i}].items`, message: 'omit items to ship everything, or list at least one' });
  });
  throwIfAny(errors);

  const created: Shipment[] = [];
  for (const [i, s] of data.entries()) {
    const fulfilment = state.fulfilments.get(s.fulfilmentId)!;
    const wanted =
      s.items ??
      state
        .itemsOf(fulfilment)
        .map((fi) => ({ id: fi.lineItem.id, quantity: state.unshipped(fulfilment, fi.lineItem.id) }))
        .filter((x) => x.quantity > 0);
    if (!wanted.length) throw new ConflictError(`fulfilment ${fulfilment.id} has nothing left to ship`, `data[${i}]`);
    const shipment = Object.assign(new Shipment(), {
      order: state.order,
      fulfilment,
      carrier: carriers[i]!,
      trackingNumber: s.trackingNumber.trim(),
      notify,
    });
    em.persist(shipment);
    state.shipments.set(-(i + 1), shipment); // visible to the next entries' unshipped counts
    for (const [j, item] of wanted.entries()) {
      const left = state.unshipped(fulfilment, item.id);
      if (item.quantity > left)
        throw new ConflictError(
          `fulfilment ${fulfilment.id} holds ${left} unshipped unit(s) of line item ${item.id}`,
          `data[${i}].items[${j}]`,
        );
      const line = state.lines.get(item.id) as LineItem;
      moveUnits(line, 'fulfilled', 'shipped', item.quantity);
      const shipmentItem = Object.assign(new ShipmentItem(), { shipment, lineItem: line, quantity: item.quantity });
      em.persist(shipmentItem);
      state.shipmentItems.push(shipmentItem);
    }
    created.push(shipment);
  }
  const order = await state.settle();
  for (const shipment of created) await recordShipmentEvent(state, actor, 'shipment.created', shipment);
  if (notify) for (const shipment of created) await enqueueShipmentMail(em, order, shipment, 'shipped');
  return order;
}

/** After the change settled: the shipment record as REST shows it (its carrier is in the identity map). */
async function recordShipmentEvent(
  state: OrderState,
  actor: Actor,
  type: EventType,
  shipment: Shipment,
  items = state.shipmentItemsOf(shipment),
  id = shipment.id,
): Promise<void> {
  const carrier = await state.em.findOne(ShippingCarrier, { id: shipment.carrier.id });
  const data = shipmentData(state.order, shipment, items, trackingUrlOf(carrier?.url, shipment.trackingNumber));
  recordEvent(state.em, actor, type, orderEventSubject(state.order), { ...data, id });
}

function shipmentOf(state: OrderState, id: number, field: string | null, errors: FieldError[]): Shipment | undefined {
  const shipment = id > 0 ? state.shipments.get(id) : undefined;
  if (!shipment) {
    if (field === null) throw new NotFoundError('Shipment', id);
    errors.push({ field, message: `shipment ${id} is not in order ${state.order.id}` });
  }
  return shipment;
}

/**
 * Changes tracking number and/or carrier of shipments; `notify` e-mails the customer again.
 * `single`: the one shipment of the path (a missing one is a 404, and field names lose the index).
 */
export async function updateShipments(
  em: EntityManager,
  actor: Actor,
  orderId: number,
  changes: ShipmentChange[],
  notify: boolean,
  expected?: ExpectedVersion,
  single?: number,
): Promise<Order> {
  const state = await OrderState.load(em, orderId, expected);
  const errors: FieldError[] = [];
  if (single !== undefined) shipmentOf(state, single, null, errors);
  if (!changes.length) errors.push({ field: 'data', message: 'list at least one shipment' });
  const prefix = (i: number) => (single !== undefined ? 'data' : `data[${i}]`);
  const ids = new Set<number>();
  const shipments = changes.map((c, i) => {
    if (ids.has(c.id)) errors.push({ field: `${prefix(i)}.id`, message: 'each shipment may appear once' });
    ids.add(c.id);
    checkTracking(c.trackingNumber, `${prefix(i)}.trackingNumber`, errors);
    return shipmentOf(state, c.id, `${prefix(i)}.id`, errors);
  });
  const carriers = await Promise.all(
    changes.map((c, i) => carrierOf(em, c.shippingCarrier, `${prefix(i)}.shippingCarrier`, errors)),
  );
  throwIfAny(errors);
  changes.forEach((c, i) => {
    const shipment = shipments[i]!;
    if (c.trackingNumber !== undefined) shipment.trackingNumber = c.trackingNumber.trim();
    if (carriers[i]) shipment.carrier = carriers[i]!;
    shipment.updatedAt = now();
    if (notify) shipment.notify = true;
  });
  const order = await state.settle();
  for (const shipment of shipments) await recordShipmentEvent(state, actor, 'shipment.updated', shipment!);
  if (notify) for (const shipment of shipments) await enqueueShipmentMail(em, order, shipment!, 'updated');
  return order;
}

/** Unmarks a shipment: its units return to fulfilled. Units restocked since cannot (409). */
export async function deleteShipment(
  em: EntityManager,
  actor: Actor,
  orderId: number,
  shipmentId: number,
  expected?: ExpectedVersion,
): Promise<Order> {
  const state = await OrderState.load(em, orderId, expected);
  const shipment = shipmentOf(state, shipmentId, null, [])!;
  const carried = state.shipmentItemsOf(shipment);
  for (const item of carried) {
    const line = item.lineItem as LineItem;
    if (line.shipped < item.quantity) {
      throw new ConflictError(
        `units of line item ${line.id} in shipment ${shipmentId} were restocked; they cannot return to fulfilled`,
      );
    }
    moveUnits(line, 'shipped', 'fulfilled', item.quantity);
    em.remove(item);
  }
  em.remove(shipment);
  await state.settle();
  // The record as it was, with the order's status after the deletion.
  await recordShipmentEvent(state, actor, 'shipment.deleted', shipment, carried, shipmentId);
  return state.order;
}
