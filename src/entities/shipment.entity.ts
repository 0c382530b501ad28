import { Collection, type Rel } from '@mikro-orm/core';
import { Entity, Index, ManyToOne, OneToMany, PrimaryKey, Property } from '@mikro-orm/decorators/legacy';
import { Fulfilment } from './fulfilment.entity.js';
import { Order } from './order.entity.js';
import { ShipmentItem } from './shipment-item.entity.js';
import { ShippingCarrier } from './shipping-carrier.entity.js';

/** A parcel sent from a fulfilment; a fulfilment with shipments cannot be deleted. */
@Entity()
@Index({ properties: ['order'] })
@Index({ properties: ['fulfilment'] })
export class Shipment {
  @PrimaryKey({ type: 'integer' })
  id!: number;

  @ManyToOne({ entity: () => Order, deleteRule: 'cascade' })
  order!: Rel<Order>;

  @ManyToOne({ entity: () => Fulfilment, deleteRule: 'restrict' })
  fulfilment!: Rel<Fulfilment>;

  @ManyToOne({ entity: () => ShippingCarrier, deleteRule: 'restrict' })
  carrier!: Rel<ShippingCarrier>;

  @Property({ type: 'text' })
  trackingNumber!: string;

  @Property({ type: 'boolean', default: false })
  notify: boolean = false;

  @Property({ type: 'timestamptz', onCreate: () => new Date() })
  createdAt: Date = new Date();

  @Property({ type: 'timestamptz', nullable: true })
  updatedAt: Date | null = null;

  @OneToMany({ entity: () => ShipmentItem, mappedBy: 'shipment', orderBy: { lineItem: 'asc' } })
  items = new Collection<Rel<ShipmentItem>>(this);
}
