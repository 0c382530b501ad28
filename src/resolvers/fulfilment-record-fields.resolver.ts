import { wrap, type Collection } from '@mikro-orm/core';
import { Ctx, FieldResolver, Int, Resolver, Root } from 'type-graphql';
import { FulfilmentItem } from '../entities/fulfilment-item.entity.js';
import { Fulfilment } from '../entities/fulfilment.entity.js';
import { RestockItem } from '../entities/restock-item.entity.js';
import { Restock } from '../entities/restock.entity.js';
import { ShipmentItem } from '../entities/shipment-item.entity.js';
import { Shipment } from '../entities/shipment.entity.js';
import { ShippingCarrier } from '../entities/shipping-carrier.entity.js';
import type { GraphQLContext } from '../schema/context.js';
import { RecordItem } from '../schema/types/order-parts.type.js';

const toRecordItems = (items: { lineItem: { id: number }; quantity: number }[]): RecordItem[] =>
  items.map((i) => ({ id: i.lineItem.id, quantity: i.quantity }));

/** The items when the record was loaded with them (the order's record loaders join them), else null. */
const loadedItems = <T extends { lineItem: { id: number }; quantity: number }>(items: Collection<T>): RecordItem[] | null =>
  items.isInitialized() ? toRecordItems(items.getItems()) : null;

/** Fulfilment, shipment and restock records as decisions §3 shapes them; items batched. */
@Resolver(() => Fulfilment)
export class FulfilmentFieldsResolver {
  @FieldResolver(() => Int, { nullable: true, description: 'the warehouse the units came from' })
  warehouse(@Root() fulfilment: Fulfilment): number | null {
    return fulfilment.warehouse?.id ?? null;
  }

  @FieldResolver(() => [RecordItem])
  async items(@Root() fulfilment: Fulfilment, @Ctx() { loaders }: GraphQLContext): Promise<RecordItem[]> {
    const loaded = loadedItems(fulfilment.items);
    if (loaded) return loaded;
    const items = await loaders
      .children('fulfilment.items', (em, ids) => em.find(FulfilmentItem, { fulfilment: { $in: ids } }, { orderBy: [{ fulfilment: 'asc' }, { lineItem: 'asc' }] }), (i) => i.fulfilment.id)
      .load(fulfilment.id);
    return toRecordItems(items);
  }
}

@Resolver(() => Shipment)
export class ShipmentFieldsResolver {
  @FieldResolver(() => Int)
  fulfilmentId(@Root() shipment: Shipment): number {
    return shipment.fulfilment.id;
  }

  @FieldResolver(() => Int, { description: 'the carrier id' })
  shippingCarrier(@Root() shipment: Shipment): number {
    return shipment.carrier.id;
  }

  @FieldResolver(() => String, { description: "the carrier's URL followed by the tracking number" })
  async trackingUrl(@Root() shipment: Shipment, @Ctx() { loaders }: GraphQLContext): Promise<string> {
    if (wrap(shipment.carrier).isInitialized()) return `${shipment.carrier.url}${shipment.trackingNumber}`;
    const carrier = await loaders.byId('shipment.carrier', (em, ids) => em.find(ShippingCarrier, { id: { $in: ids } })).load(shipment.carrier.id);
    return `${carrier?.url ?? ''}${shipment.trackingNumber}`;
  }

  @FieldResolver(() => [RecordItem])
  async items(@Root() shipment: Shipment, @Ctx() { loaders }: GraphQLContext): Promise<RecordItem[]> {
    const loaded = loadedItems(shipment.items);
    if (loaded) return loaded;
    const items = await loaders
      .children('shipment.items', (em, ids) => em.find(ShipmentItem, { shipment: { $in: ids } }, { orderBy: [{ shipment: 'asc' }, { lineItem: 'asc' }] }), (i) => i.shipment.id)
      .load(shipment.id);
    return toRecordItems(items);
  }
}

@Resolver(() => Restock)
export class RestockFieldsResolver {
  @FieldResolver(() => Int)
  warehouse(@Root() restock: Restock): number {
    return restock.warehouse.id;
  }

  @FieldResolver(() => [RecordItem])
  async items(@Root() restock: Restock, @Ctx() { loaders }: GraphQLContext): Promise<RecordItem[]> {
    const loaded = loadedItems(restock.items);
    if (loaded) return loaded;
    const items = await loaders
      .children('restock.items', (em, ids) => em.find(RestockItem, { restock: { $in: ids } }, { orderBy: [{ restock: 'asc' }, { lineItem: 'asc' }] }), (i) => i.restock.id)
      .load(restock.id);
    return toRecordItems(items);
  }
}
