import { Entity, PrimaryKey, Property } from '@mikro-orm/decorators/legacy';
import { Field, Int, ObjectType } from 'type-graphql';
import { listFields } from '../schema/list-fields.js';

/** A shipping carrier; a shipment's tracking URL is the carrier's `url` followed by the number. */
@ObjectType({ description: 'A shipping carrier' })
@Entity()
export class ShippingCarrier {
  @Field(() => Int, { description: 'Carrier id' })
  @PrimaryKey({ type: 'integer' })
  id!: number;

  @Field({ description: 'Name' })
  @Property({ type: 'text' })
  title!: string;

  @Field({ description: 'Website URL, used as the tracking URL prefix' })
  @Property({ type: 'text' })
  url!: string;

  @Field({ description: 'Deleted carriers stay for old shipments but take no new ones' })
  @Property({ type: 'boolean', default: false })
  isDeleted: boolean = false;
}

/** What a list of shipping carriers sorts by (src/schema/list-fields.ts). */
export const shippingCarrierList = listFields(ShippingCarrier, {
  id: { sort: true },
  title: { sort: true },
  url: { sort: true },
  isDeleted: { sort: true },
});
