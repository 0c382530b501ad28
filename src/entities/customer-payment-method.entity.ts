import type { Rel } from '@mikro-orm/core';
import { Check, Entity, Index, ManyToOne, PrimaryKey, Property } from '@mikro-orm/decorators/legacy';
import { Field, ObjectType } from 'type-graphql';
import { Customer } from './customer.entity.js';

/** A payment method a customer has used: card brand or PayPal, with the card's last 4 digits. */
@ObjectType({ description: 'A payment method a customer used' })
@Entity()
@Index({ properties: ['customer'] })
@Check({
  name: 'customer_payment_method_type_valid',
  expression: "type in ('Visa', 'American Express', 'MasterCard', 'Discover', 'JCB', 'Diners Club', 'PayPal')",
})
export class CustomerPaymentMethod {
  @PrimaryKey({ type: 'integer' })
  id!: number;

  @ManyToOne({ entity: () => Customer, deleteRule: 'cascade' })
  customer!: Rel<Customer>;

  @Field({ description: 'Visa, American Express, MasterCard, Discover, JCB, Diners Club or PayPal' })
  @Property({ type: 'text' })
  type!: string;

  @Field(() => String, { nullable: true, description: 'Last 4 card digits, if paid by card' })
  @Property({ type: 'string', columnType: 'varchar(4)', nullable: true })
  last4: string | null = null;
}
