import type { Rel } from '@mikro-orm/core';
import { Embedded, Entity, Index, ManyToOne, PrimaryKey, Property } from '@mikro-orm/decorators/legacy';
import { Field, Int, ObjectType } from 'type-graphql';
import { Customer } from './customer.entity.js';
import { PostalAddress } from './postal-address.embeddable.js';

/** An address of a customer's profile; the first by position is the primary address. */
@ObjectType({ description: 'An address of a customer profile; the first is the primary one' })
@Entity()
@Index({ properties: ['customer'] })
export class CustomerAddress {
  @Field(() => Int, { description: 'Address id' })
  @PrimaryKey({ type: 'integer' })
  id!: number;

  @ManyToOne({ entity: () => Customer, deleteRule: 'cascade' })
  customer!: Rel<Customer>;

  @Property({ type: 'smallint', default: 0 })
  position: number = 0;

  @Field(() => PostalAddress, { description: 'Shipping address block' })
  @Embedded({ entity: () => PostalAddress, prefix: 'shipping_' })
  shipping: PostalAddress = new PostalAddress();

  @Field(() => PostalAddress, { description: 'Billing address block' })
  @Embedded({ entity: () => PostalAddress, prefix: 'billing_' })
  billing: PostalAddress = new PostalAddress();

  @Field(() => String, { nullable: true, description: 'Phone number, or null' })
  @Property({ type: 'text', nullable: true })
  phone: string | null = null;
}
