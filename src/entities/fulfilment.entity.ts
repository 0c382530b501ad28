import { Collection, type Rel } from '@mikro-orm/core';
import { Entity, Index, ManyToOne, OneToMany, PrimaryKey, Property } from '@mikro-orm/decorators/legacy';
import { Field, Int, ObjectType } from 'type-graphql';
import { now } from '../clock.js';
import { listFields } from '../schema/list-fields.js';
import { TimestampScalar } from '../schema/scalars/timestamp.scalar.js';
import { FulfilmentItem } from './fulfilment-item.entity.js';
import { Order } from './order.entity.js';
import { Warehouse } from './warehouse.entity.js';

/** Units of an order sent to fulfilment, drawn from one warehouse when the products track stock. */
@ObjectType({ description: 'Units of an order sent to fulfilment' })
@Entity()
@Index({ properties: ['order'] })
export class Fulfilment {
  @Field(() => Int, { description: 'Fulfilment id' })
  @PrimaryKey({ type: 'integer' })
  id!: number;

  @ManyToOne({ entity: () => Order, deleteRule: 'cascade' })
  order!: Rel<Order>;

  @ManyToOne({ entity: () => Warehouse, nullable: true, deleteRule: 'restrict' })
  warehouse: Rel<Warehouse> | null = null;

  @Field(() => TimestampScalar, { description: 'When the fulfilment was created' })
  @Property({ type: 'timestamptz', onCreate: () => now() })
  createdAt: Date = now();

  @Field(() => TimestampScalar, { nullable: true, description: 'When the fulfilment last changed, or null' })
  @Property({ type: 'timestamptz', nullable: true })
  updatedAt: Date | null = null;

  @OneToMany({ entity: () => FulfilmentItem, mappedBy: 'fulfilment', orderBy: { lineItem: 'asc' } })
  items = new Collection<Rel<FulfilmentItem>>(this);
}

/** What a list of an order's fulfilments sorts by (src/schema/list-fields.ts). */
export const fulfilmentList = listFields(Fulfilment, {
  id: { sort: true },
  createdAt: { sort: true },
  updatedAt: { sort: true },
});
