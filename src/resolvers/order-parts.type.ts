import { Field, Int, ObjectType } from 'type-graphql';
import { PostalAddress } from '../entities/postal-address.embeddable.js';
import { DecimalScalar } from '../schema/scalars/decimal.scalar.js';

// The order's grouped fields (spec: shipping, address, payment, conversion, risk_level, customer).
// They are stored flat on the order row and grouped here, so reading them costs no query.

@ObjectType({ description: 'The shipping method chosen for an order' })
export class OrderShipping {
  @Field({ description: 'Shipping method description' }) description!: string;
  @Field(() => DecimalScalar, { description: 'Shipping price' }) price!: string;
}

@ObjectType({ description: 'The addresses of an order' })
export class OrderAddress {
  @Field(() => PostalAddress, { description: 'Where the order is shipped' }) shipping!: PostalAddress;
  @Field(() => PostalAddress, { description: 'The billing address' }) billing!: PostalAddress;
  @Field(() => String, { nullable: true, description: 'Phone number, or null' }) phone!: string | null;
}

@ObjectType({ description: 'How an order was paid' })
export class OrderPayment {
  @Field(() => String, { nullable: true, description: 'A card brand or PayPal' }) type!: string | null;
  @Field(() => String, { nullable: true, description: 'Last 4 card digits, if paid by card' }) last4!: string | null;
}

@ObjectType({ description: 'Where the buyer came from' })
export class OrderConversion {
  @Field({ description: 'First page the buyer visited' }) landingPage!: string;
  @Field({ description: 'Page that referred the buyer' }) referrer!: string;
}

@ObjectType({ description: 'True means greater risk' })
export class OrderRiskLevel {
  @Field({ description: 'The IP check failed' }) ipFail!: boolean;
  @Field({ description: 'The address check failed' }) addressFail!: boolean;
  @Field({ description: 'The postal code check failed' }) zipFail!: boolean;
  @Field({ description: 'The card security code check failed' }) cvcFail!: boolean;
}

@ObjectType({ description: "The order's customer as the order shows it" })
export class OrderCustomer {
  @Field(() => Int, { description: 'Customer id' }) id!: number;
  @Field({ description: 'Customer e-mail' }) email!: string;
  @Field({ description: 'Customer first name' }) firstName!: string;
  @Field({ description: 'Customer last name' }) lastName!: string;
}

@ObjectType({ description: 'The variant a line item was bought as' })
export class LineItemVariant {
  @Field(() => Int, { description: 'Variant id' }) id!: number;
  @Field(() => [String], { description: 'The combination of option values bought' }) variant!: readonly string[];
}

@ObjectType({ description: 'Exclusive buckets: quantity = notFulfilled + fulfilled + shipped + restocked' })
export class LineItemCounters {
  @Field(() => Int, { description: 'Units ordered' }) quantity!: number;
  @Field(() => Int, { description: 'Units not yet sent to fulfilment' }) notFulfilled!: number;
  @Field(() => Int, { description: 'Units in a fulfilment, not shipped' }) fulfilled!: number;
  @Field(() => Int, { description: 'Units shipped' }) shipped!: number;
  @Field(() => Int, { description: 'Units taken back into stock' }) restocked!: number;
}

@ObjectType({ description: 'Units of one line item in a fulfilment, shipment or restock' })
export class RecordItem {
  @Field(() => Int, { description: 'The line item id' }) id!: number;
  @Field(() => Int, { description: 'Units' }) quantity!: number;
}
