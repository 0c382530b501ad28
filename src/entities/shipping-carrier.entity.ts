import { Entity, PrimaryKey, Property } from '@mikro-orm/decorators/legacy';
import { Field, Int, ObjectType } from 'type-graphql';

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
