import type { Rel } from '@mikro-orm/core';
import { Check, Entity, ManyToOne, PrimaryKey, Property, Unique } from '@mikro-orm/decorators/legacy';
import { LineItem } from './line-item.entity.js';
import { Shipment } from './shipment.entity.js';

/** How many units of one line item a shipment carries. */
@Entity()
@Unique({ properties: ['shipment', 'lineItem'] })
@Check({ name: 'shipment_item_quantity_positive', expression: 'quantity > 0' })
export class ShipmentItem {
  @PrimaryKey({ type: 'integer' })
  id!: number;

  @ManyToOne({ entity: () => Shipment, deleteRule: 'cascade' })
  shipment!: Rel<Shipment>;

  @ManyToOne({ entity: () => LineItem, deleteRule: 'cascade' })
  lineItem!: Rel<LineItem>;

  @Property({ type: 'integer' })
  quantity!: number;
}
