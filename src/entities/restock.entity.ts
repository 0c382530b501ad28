import { Collection, type Rel } from '@mikro-orm/core';
import { Entity, Index, ManyToOne, OneToMany, PrimaryKey, Property } from '@mikro-orm/decorators/legacy';
import { Field, Int, ObjectType } from 'type-graphql';
import { now } from '../clock.js';
import { TimestampScalar } from '../schema/scalars/timestamp.scalar.js';
import { Order } from './order.entity.js';
import { RestockItem } from './restock-item.entity.js';
import { Warehouse } from './warehouse.entity.js';

/** Shipped units taken back into a warehouse's stock. */
@ObjectType({ description: 'Shipped units taken back into stock' })
@Entity()
@Index({ properties: ['order'] })
export class Restock {
  @Field(() => Int, { description: 'Restock id' })
  @PrimaryKey({ type: 'integer' })
  id!: number;

  @ManyToOne({ entity: () => Order, deleteRule: 'cascade' })
  order!: Rel<Order>;

  @ManyToOne({ entity: () => Warehouse, deleteRule: 'restrict' })
  warehouse!: Rel<Warehouse>;

  @Field(() => TimestampScalar, { description: 'When the units were restocked' })
  @Property({ type: 'timestamptz', onCreate: () => now() })
  createdAt: Date = now();

  @OneToMany({ entity: () => RestockItem, mappedBy: 'restock', orderBy: { lineItem: 'asc' } })
  items = new Collection<Rel<RestockItem>>(this);
}
