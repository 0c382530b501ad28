import type { EntityManager } from '@mikro-orm/postgresql';
import { FulfilmentItem } from '../entities/fulfilment-item.entity.js';
import { Fulfilment } from '../entities/fulfilment.entity.js';
import { LineItem } from '../entities/line-item.entity.js';
import type { Order } from '../entities/order.entity.js';
import { ShipmentItem } from '../entities/shipment-item.entity.js';
import { Shipment } from '../entities/shipment.entity.js';
import { ValidationError, type FieldError } from './errors.js';
import { INT4_MAX } from './int4.js';
import { lockOrder } from './order-lock.js';
import type { ExpectedVersion } from './preconditions.js';
import { settleOrder } from './order-status.js';

/**
 * An order locked for a counter move, with its lines, fulfilments and shipments loaded once.
 * Operations change these entities; `settle` derives the status and flushes.
 */
export class OrderState {
  private constructor(
    readonly em: EntityManager,
    readonly order: Order,
    readonly lines: Map<number, LineItem>,
    readonly fulfilments: Map<number, Fulfilment>,
    readonly fulfilmentItems: FulfilmentItem[],
    readonly shipments: Map<number, Shipment>,
    readonly shipmentItems: ShipmentItem[],
  ) {}

  static async load(em: EntityManager, orderId: number, expected: ExpectedVersion): Promise<OrderState> {
    const order = await lockOrder(em, orderId, expected);
    const [lines, fulfilments, shipments] = await Promise.all([
      em.find(LineItem, { order }, { orderBy: { id: 'asc' } }),
      em.find(Fulfilment, { order }, { orderBy: { id: 'asc' } }),
      em.find(Shipment, { order }, { orderBy: { id: 'asc' } }),
    ]);
    const [fulfilmentItems, shipmentItems] = await Promise.all([
      fulfilments.length ? em.find(FulfilmentItem, { fulfilment: { $in: fulfilments.map((f) => f.id) } }) : [],
      shipments.length ? em.find(ShipmentItem, { shipment: { $in: shipments.map((s) => s.id) } }) : [],
    ]);
    return new OrderState(
      em, order,
      new Map(lines.map((l) => [l.id, l])),
      new Map(fulfilments.map((f) => [f.id, f])),
      fulfilmentItems,
      new Map(shipments.map((s) => [s.id, s])),
      shipmentItems,
    );
  }

  itemsOf(fulfilment: Fulfilment): FulfilmentItem[] {
    return this.fulfilmentItems.filter((i) => i.fulfilment === fulfilment);
  }

  shipmentsOf(fulfilment: Fulfilment): Shipment[] {
    return [...this.shipments.values()].filter((s) => s.fulfilment === fulfilment);
  }

  shipmentItemsOf(shipment: Shipment): ShipmentItem[] {
    return this.shipmentItems.filter((i) => i.shipment === shipment);
  }

  /** Units of a line a fulfilment holds that none of its shipments carries yet. */
  unshipped(fulfilment: Fulfilment, lineId: number): number {
    const held = this.itemsOf(fulfilment).find((i) => i.lineItem.id === lineId)?.quantity ?? 0;
    return held - this.shippedFrom(fulfilment, lineId);
  }

  shippedFrom(fulfilment: Fulfilment, lineId: number): number {
    return this.shipmentsOf(fulfilment)
      .flatMap((s) => this.shipmentItemsOf(s))
      .filter((i) => i.lineItem.id === lineId)
      .reduce((n, i) => n + i.quantity, 0);
  }

  /** The line item of this order with that id, or a field error. */
  line(id: number, field: string, errors: FieldError[]): LineItem | undefined {
    const line = this.lines.get(id);
    if (!line) errors.push({ field, message: `line item ${id} is not in order ${this.order.id}` });
    return line;
  }

  async settle(): Promise<Order> {
    settleOrder(this.order, [...this.lines.values()]);
    await this.em.flush();
    return this.order;
  }
}

/** Positive whole quantities only (docs/decisions.md#references-and-quantities: anything else is a 422). */
export function checkQuantity(quantity: number, field: string, errors: FieldError[], allowZero = false): boolean {
  // No upper cap beyond the int4 column: a positive quantity over what the state allows is a 409, not a 422.
  const ok = Number.isInteger(quantity) && (allowZero ? quantity >= 0 : quantity > 0) && quantity <= INT4_MAX;
  if (!ok) errors.push({ field, message: allowZero ? 'must be a whole number ≥ 0' : 'must be a positive whole number' });
  return ok;
}

export function throwIfAny(errors: FieldError[]): void {
  if (errors.length) throw new ValidationError(errors);
}
