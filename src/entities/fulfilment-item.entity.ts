import type { Rel } from '@mikro-orm/core';
import { Check, Entity, ManyToOne, PrimaryKey, Property, Unique } from '@mikro-orm/decorators/legacy';
import { Fulfilment } from './fulfilment.entity.js';
import { LineItem } from './line-item.entity.js';

/** How many units of one line item a fulfilment holds. */
@Entity()
@Unique({ properties: ['fulfilment', 'lineItem'] })
@Check({ name: 'fulfilment_item_quantity_positive', expression: 'quantity > 0' })
export class FulfilmentItem {
  @PrimaryKey({ type: 'integer' })
  id!: number;

  @ManyToOne({ entity: () => Fulfilment, deleteRule: 'cascade' })
  fulfilment!: Rel<Fulfilment>;

  @ManyToOne({ entity: () => LineItem, deleteRule: 'cascade' })
  lineItem!: Rel<LineItem>;

  @Property({ type: 'integer' })
  quantity!: number;
}
