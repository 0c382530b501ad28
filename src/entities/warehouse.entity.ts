import { Collection, type Rel } from '@mikro-orm/core';
import { Entity, OneToMany, PrimaryKey, Property } from '@mikro-orm/decorators/legacy';
import { Field, Int, ObjectType } from 'type-graphql';
import { listFields } from '../schema/list-fields.js';
import { InventoryLevel } from './inventory-level.entity.js';

/** A place that holds stock; fulfilments of tracked products draw from one. */
@ObjectType({ description: 'A warehouse holding stock' })
@Entity()
export class Warehouse {
  @Field(() => Int, { description: 'Warehouse id' })
  @PrimaryKey({ type: 'integer' })
  id!: number;

  @Field({ description: 'Name' })
  @Property({ type: 'text' })
  title!: string;

  @Field(() => [InventoryLevel], { description: 'Units held, per variant' })
  @OneToMany({ entity: () => InventoryLevel, mappedBy: 'warehouse', orderBy: { variant: 'asc' } })
  stock = new Collection<Rel<InventoryLevel>>(this);
}

/** What a list of warehouses sorts by (src/schema/list-fields.ts). */
export const warehouseList = listFields(Warehouse, {
  id: { sort: true },
  title: { sort: true },
});
