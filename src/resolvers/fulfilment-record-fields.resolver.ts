import { FieldResolver, Int, Resolver, Root } from 'type-graphql';
import { trackingUrlOf } from '../domain/tracking-url.js';
import { Fulfilment } from '../entities/fulfilment.entity.js';
import type { FulfilmentItem } from '../entities/fulfilment-item.entity.js';
import { Restock } from '../entities/restock.entity.js';
import { Shipment } from '../entities/shipment.entity.js';
import type { ShippingCarrier } from '../entities/shipping-carrier.entity.js';
import { Projects, Reads } from '../reads/field-reads.js';
import { type Projection, projectRow } from '../reads/projection.js';
import type { ReadRow } from '../reads/read-row.js';
import { RecordItem } from './order-parts.type.js';

/** A record with its items (fulfilment, shipment and restock items have the same two columns). */
type WithItems<E> = ReadRow<E, { items: ReadRow<FulfilmentItem>[] }>;

/** A record's items: each the line item's id and the units. */
const RECORD_ITEMS = { each: 'items', fields: { id: 'lineItem', quantity: 'quantity' } } satisfies Projection;
const recordItems = (record: WithItems<object>): RecordItem[] => projectRow(record, RECORD_ITEMS);

/** Fulfilment, shipment and restock records as docs/decisions.md#records shapes them; items come with the record. */
@Resolver(() => Fulfilment)
export class FulfilmentFieldsResolver {
  @Projects('warehouse')
  @FieldResolver(() => Int, { nullable: true, description: 'The warehouse the units came from' })
  warehouse(@Root() fulfilment: ReadRow<Fulfilment>): number | null {
    return projectRow(fulfilment, 'warehouse');
  }

  @Projects(RECORD_ITEMS)
  @FieldResolver(() => [RecordItem], { description: 'Line items and units in the fulfilment' })
  items(@Root() fulfilment: WithItems<Fulfilment>): RecordItem[] {
    return recordItems(fulfilment);
  }
}

@Resolver(() => Shipment)
export class ShipmentFieldsResolver {
  @Projects('fulfilment')
  @FieldResolver(() => Int, { description: 'The fulfilment shipped from' })
  fulfilmentId(@Root() shipment: ReadRow<Shipment>): number {
    return projectRow(shipment, 'fulfilment');
  }

  @Projects('carrier')
  @FieldResolver(() => Int, { description: 'The carrier id' })
  shippingCarrier(@Root() shipment: ReadRow<Shipment>): number {
    return projectRow(shipment, 'carrier');
  }

  @Reads('trackingNumber', 'carrier.url')
  @FieldResolver(() => String, { description: "The carrier's URL followed by the tracking number" })
  trackingUrl(@Root() shipment: ReadRow<Shipment, { $carrier: ReadRow<ShippingCarrier> | null }>): string {
    return trackingUrlOf(shipment.$carrier?.url, shipment.trackingNumber);
  }

  @Projects(RECORD_ITEMS)
  @FieldResolver(() => [RecordItem], { description: 'Line items and units shipped' })
  items(@Root() shipment: WithItems<Shipment>): RecordItem[] {
    return recordItems(shipment);
  }
}

@Resolver(() => Restock)
export class RestockFieldsResolver {
  @Projects('warehouse')
  @FieldResolver(() => Int, { description: 'Warehouse id the units went back to' })
  warehouse(@Root() restock: ReadRow<Restock>): number {
    return projectRow(restock, 'warehouse');
  }

  @Projects(RECORD_ITEMS)
  @FieldResolver(() => [RecordItem], { description: 'Line items and units restocked' })
  items(@Root() restock: WithItems<Restock>): RecordItem[] {
    return recordItems(restock);
  }
}
