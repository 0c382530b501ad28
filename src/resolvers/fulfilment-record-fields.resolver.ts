import { FieldResolver, Int, Resolver, Root } from 'type-graphql';
import { trackingUrlOf } from '../domain/tracking-url.js';
import { Fulfilment } from '../entities/fulfilment.entity.js';
import { Restock } from '../entities/restock.entity.js';
import { Shipment } from '../entities/shipment.entity.js';
import type { ShippingCarrier } from '../entities/shipping-carrier.entity.js';
import { loaded, type ReadRow } from '../reads/read-model.js';
import { RecordItem } from './order-parts.type.js';

type ItemRow = { lineItem: { id: number }; quantity: number };

const recordItems = (record: object): RecordItem[] => loaded<ItemRow[]>(record, 'items').map((i) => ({ id: i.lineItem.id, quantity: i.quantity }));

/** Fulfilment, shipment and restock records as docs/decisions.md#records shapes them; items come with the record. */
@Resolver(() => Fulfilment)
export class FulfilmentFieldsResolver {
  @FieldResolver(() => Int, { nullable: true, description: 'The warehouse the units came from' })
  warehouse(@Root() fulfilment: ReadRow<Fulfilment>): number | null {
    return fulfilment.warehouse?.id ?? null;
  }

  @FieldResolver(() => [RecordItem], { description: 'Line items and units in the fulfilment' })
  items(@Root() fulfilment: ReadRow<Fulfilment>): RecordItem[] {
    return recordItems(fulfilment);
  }
}

@Resolver(() => Shipment)
export class ShipmentFieldsResolver {
  @FieldResolver(() => Int, { description: 'The fulfilment shipped from' })
  fulfilmentId(@Root() shipment: ReadRow<Shipment>): number {
    return shipment.fulfilment.id;
  }

  @FieldResolver(() => Int, { description: 'The carrier id' })
  shippingCarrier(@Root() shipment: ReadRow<Shipment>): number {
    return shipment.carrier.id;
  }

  @FieldResolver(() => String, { description: "The carrier's URL followed by the tracking number" })
  trackingUrl(@Root() shipment: ReadRow<Shipment>): string {
    return trackingUrlOf(loaded<ShippingCarrier | null>(shipment, 'carrier')?.url, shipment.trackingNumber);
  }

  @FieldResolver(() => [RecordItem], { description: 'Line items and units shipped' })
  items(@Root() shipment: ReadRow<Shipment>): RecordItem[] {
    return recordItems(shipment);
  }
}

@Resolver(() => Restock)
export class RestockFieldsResolver {
  @FieldResolver(() => Int, { description: 'Warehouse id the units went back to' })
  warehouse(@Root() restock: ReadRow<Restock>): number {
    return restock.warehouse.id;
  }

  @FieldResolver(() => [RecordItem], { description: 'Line items and units restocked' })
  items(@Root() restock: ReadRow<Restock>): RecordItem[] {
    return recordItems(restock);
  }
}
