import type { Rel } from '@mikro-orm/core';
import { Check, Entity, ManyToOne, PrimaryKey, Property, Unique } from '@mikro-orm/decorators/legacy';
import { LineItem } from './line-item.entity.js';
import { Restock } from './restock.entity.js';

/** How many units of one line item a restock took back. */
@Entity()
@Unique({ properties: ['restock', 'lineItem'] })
@Check({ name: 'restock_item_quantity_positive', expression: 'quantity > 0' })
export class RestockItem {
  @PrimaryKey({ type: 'integer' })
  id!: number;

  @ManyToOne({ entity: () => Restock, deleteRule: 'cascade' })
  restock!: Rel<Restock>;

  @ManyToOne({ entity: () => LineItem, deleteRule: 'cascade' })
  lineItem!: Rel<LineItem>;

  @Property({ type: 'integer' })
  quantity!: number;
}
