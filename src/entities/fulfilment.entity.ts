import { Collection, type Rel } from '@mikro-orm/core';
import { Entity, Index, ManyToOne, OneToMany, PrimaryKey, Property } from '@mikro-orm/decorators/legacy';
import { FulfilmentItem } from './fulfilment-item.entity.js';
import { Order } from './order.entity.js';
import { Warehouse } from './warehouse.entity.js';

/** Units of an order sent to fulfilment, drawn from one warehouse when the products track stock. */
@Entity()
@Index({ properties: ['order'] })
export class Fulfilment {
  @PrimaryKey({ type: 'integer' })
  id!: number;

  @ManyToOne({ entity: () => Order, deleteRule: 'cascade' })
  order!: Rel<Order>;

  @ManyToOne({ entity: () => Warehouse, nullable: true, deleteRule: 'restrict' })
  warehouse: Rel<Warehouse> | null = null;

  @Property({ type: 'timestamptz', onCreate: () => new Date() })
  createdAt: Date = new Date();

  @Property({ type: 'timestamptz', nullable: true })
  updatedAt: Date | null = null;

  @OneToMany({ entity: () => FulfilmentItem, mappedBy: 'fulfilment', orderBy: { lineItem: 'asc' } })
  items = new Collection<Rel<FulfilmentItem>>(this);
}
