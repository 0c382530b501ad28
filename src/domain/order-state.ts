import type { EntityManager, EntityName } from '@mikro-orm/postgresql';
import { runPrepared } from '../db/prepared-statements.js';
import { Fulfilment } from '../entities/fulfilment.entity.js';
import { FulfilmentItem } from '../entities/fulfilment-item.entity.js';
import { LineItem } from '../entities/line-item.entity.js';
import type { Order } from '../entities/order.entity.js';
import { Shipment } from '../entities/shipment.entity.js';
import { ShipmentItem } from '../entities/shipment-item.entity.js';
import { Warehouse } from '../entities/warehouse.entity.js';
import { type FieldError, ValidationError } from './errors.js';
import { INT4_MAX } from './int4.js';
import { lockOrder } from './order-lock.js';
import { settleOrder } from './order-status.js';
import type { ExpectedVersion } from './preconditions.js';

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
    /** Of the warehouses `load` was asked about, those that exist. */
    private readonly warehouses: ReadonlySet<number>,
  ) {}

  /** `warehouses`: ids the change names, checked in the same read (`warehouseExists`). */
  static async load(
    em: EntityManager,
    orderId: number,
    expected: ExpectedVersion,
    warehouses: readonly number[] = [],
  ): Promise<OrderState> {
    const order = await lockOrder(em, orderId, expected);
    // A statement of its own after the lock: one that also locked would read these rows as of its
    // start, before a concurrent writer it waited for had committed (READ COMMITTED).
    const [records] = await runPrepared<Record<RecordKind, Record<string, unknown>[]> & { warehouses: number[] }>(
      em,
      recordsStatement(em),
      [orderId, warehouses],
    );
    // Parents before their items, so an item's reference is the entity already mapped.
    const lines = records.lines.map((row) => em.map(LineItem, row));
    const fulfilments = records.fulfilments.map((row) => em.map(Fulfilment, row));
    const shipments = records.shipments.map((row) => em.map(Shipment, row));
    return new OrderState(
      em,
      order,
      new Map(lines.map((l) => [l.id, l])),
      new Map(fulfilments.map((f) => [f.id, f])),
      records.fulfilmentItems.map((row) => em.map(FulfilmentItem, row)),
      new Map(shipments.map((s) => [s.id, s])),
      records.shipmentItems.map((row) => em.map(ShipmentItem, row)),
      new Set(records.warehouses),
    );
  }

  /** Whether a warehouse passed to `load` exists; a field error when it does not. */
  warehouseExists(id: number, field: string, errors: FieldError[]): boolean {
    if (this.warehouses.has(id)) return true;
    errors.push({ field, message: `warehouse ${id} does not exist` });
    return false;
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

  /**
   * `settle` for a change that stores itself in one statement of its own (`write`, which runs
   * after the status is derived): the unit of work then forgets the entities, so the edge's
   * flush writes nothing a second time.
   */
  async settleBy(write: (order: Order) => Promise<void>): Promise<Order> {
    settleOrder(this.order, [...this.lines.values()]);
    await write(this.order);
    this.em.clear();
    return this.order;
  }
}

type RecordKind = 'lines' | 'fulfilments' | 'fulfilmentItems' | 'shipments' | 'shipmentItems';

let recordsSql: string | undefined;

/**
 * The statement that reads an order's lines, fulfilments and shipments with their items at once
 * (one round trip instead of five), and which of the warehouses the change names exist; each kind
 * as a JSON array of rows keyed by column, as `em.map` takes them; names come from the entities'
 * metadata. Decimals travel as text, as the driver gives them, not as JSON numbers.
 */
function recordsStatement(em: EntityManager): string {
  if (recordsSql) return recordsSql;
  const metadata = em.getMetadata();
  const rows = (entity: EntityName<object>, where: string) => {
    const meta = metadata.get(entity);
    const decimals = meta.props.filter((p) => p.columnTypes?.[0]?.startsWith('numeric')).map((p) => p.fieldNames[0]);
    const asText = decimals.map((c) => `'${c}', r.${c}::text`).join(', ');
    const row = decimals.length ? `to_jsonb(r) || jsonb_build_object(${asText})` : 'to_jsonb(r)';
    return `(select coalesce(jsonb_agg(${row} order by r.id), '[]') from ${meta.tableName} r where ${where})`;
  };
  const column = (entity: EntityName<object>, property: string) =>
    (metadata.get(entity).properties as Record<string, { fieldNames: string[] }>)[property].fieldNames[0];
  const ofOrder = (entity: EntityName<object>) => `r.${column(entity, 'order')} = o.id`;
  const itemsOf = (entity: EntityName<object>, parent: EntityName<object>, property: string) =>
    `r.${column(entity, property)} in
      (select p.id from ${metadata.get(parent).tableName} p where p.${column(parent, 'order')} = o.id)`;
  recordsSql = `select ${rows(LineItem, ofOrder(LineItem))} as lines,
    ${rows(Fulfilment, ofOrder(Fulfilment))} as fulfilments,
    ${rows(FulfilmentItem, itemsOf(FulfilmentItem, Fulfilment, 'fulfilment'))} as "fulfilmentItems",
    ${rows(Shipment, ofOrder(Shipment))} as shipments,
    ${rows(ShipmentItem, itemsOf(ShipmentItem, Shipment, 'shipment'))} as "shipmentItems",
    (select coalesce(jsonb_agg(w.id), '[]') from ${metadata.get(Warehouse).tableName} w
      where w.id = any(o.warehouses)) as warehouses
    from (select ?::int as id, ?::int[] as warehouses) o`;
  return recordsSql;
}

/** Positive whole quantities only (docs/decisions.md#references-and-quantities: anything else is a 422). */
export function checkQuantity(quantity: number, field: string, errors: FieldError[], allowZero = false): boolean {
  // No upper cap beyond the int4 column: a positive quantity over what the state allows is a 409, not a 422.
  const ok = Number.isInteger(quantity) && (allowZero ? quantity >= 0 : quantity > 0) && quantity <= INT4_MAX;
  if (!ok)
    errors.push({ field, message: allowZero ? 'must be a whole number ≥ 0' : 'must be a positive whole number' });
  return ok;
}

export function throwIfAny(errors: FieldError[]): void {
  if (errors.length) throw new ValidationError(errors);
}
