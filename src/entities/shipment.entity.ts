import { Collection, type Rel } from '@mikro-orm/core';
import { Entity, Index, ManyToOne, OneToMany, PrimaryKey, Property } from '@mikro-orm/decorators/legacy';
import { Field, Int, ObjectType } from 'type-graphql';
import { now } from '../clock.js';
import { listFields } from '../schema/list-fields.js';
import { TimestampScalar } from '../schema/scalars/timestamp.scalar.js';
import { Fulfilment } from './fulfilment.entity.js';
import { Order } from './order.entity.js';
import { ShipmentItem } from './shipment-item.entity.js';
import { ShippingCarrier } from './shipping-carrier.entity.js';

/** A parcel sent from a fulfilment; a fulfilment with shipments cannot be deleted. */
@ObjectType({ description: 'A parcel sent from a fulfilment' })
@Entity()
@Index({ properties: ['order'] })
@Index({ properties: ['fulfilment'] })
export class Shipment {
  @Field(() => Int, { description: 'Shipment id' })
  @PrimaryKey({ type: 'integer' })
  id!: number;

  @ManyToOne({ entity: () => Order, deleteRule: 'cascade' })
  order!: Rel<Order>;

  @ManyToOne({ entity: () => Fulfilment, deleteRule: 'restrict' })
  fulfilment!: Rel<Fulfilment>;

  @ManyToOne({ entity: () => ShippingCarrier, deleteRule: 'restrict' })
  carrier!: Rel<ShippingCarrier>;

  @Field({ description: 'Carrier tracking number' })
  @Property({ type: 'text' })
  trackingNumber!: string;

  @Field({ description: 'Whether the customer was e-mailed about it' })
  @Property({ type: 'boolean', default: false })
  notify: boolean = false;

  @Field(() => TimestampScalar, { description: 'When the shipment was created' })
  @Property({ type: 'timestamptz', onCreate: () => now() })
  createdAt: Date = now();

  @Field(() => TimestampScalar, { nullable: true, description: 'When the shipment last changed, or null' })
  @Property({ type: 'timestamptz', nullable: true })
  updatedAt: Date | null = null;

  @OneToMany({ entity: () => ShipmentItem, mappedBy: 'shipment', orderBy: { lineItem: 'asc' } })
  items = new Collection<Rel<ShipmentItem>>(this);
}

/** What a list of an order's shipments sorts by (src/schema/list-fields.ts). */
export const shipmentList = listFields(Shipment, {
  id: { sort: true },
  trackingNumber: { sort: true },
  createdAt: { sort: true },
  updatedAt: { sort: true },
});
