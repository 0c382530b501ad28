import { Field, Int, ObjectType } from 'type-graphql';
import { PostalAddress } from '../../entities/postal-address.embeddable.js';
import { DecimalScalar } from '../scalars/decimal.scalar.js';

// The order's grouped fields (spec: shipping, address, payment, conversion, risk_level, customer).
// They are stored flat on the order row and grouped here, so reading them costs no query.

@ObjectType()
export class OrderShipping {
  @Field({ description: 'shipping method description' }) description!: string;
  @Field(() => DecimalScalar) price!: string;
}

@ObjectType()
export class OrderAddress {
  @Field(() => PostalAddress) shipping!: PostalAddress;
  @Field(() => PostalAddress) billing!: PostalAddress;
  @Field(() => String, { nullable: true }) phone!: string | null;
}

@ObjectType()
export class OrderPayment {
  @Field(() => String, { nullable: true, description: 'a card brand or PayPal' }) type!: string | null;
  @Field(() => String, { nullable: true, description: 'last 4 card digits, if paid by card' }) last4!: string | null;
}

@ObjectType()
export class OrderConversion {
  @Field() landingPage!: string;
  @Field() referrer!: string;
}

@ObjectType({ description: 'true means greater risk' })
export class OrderRiskLevel {
  @Field() ipFail!: boolean;
  @Field() addressFail!: boolean;
  @Field() zipFail!: boolean;
  @Field() cvcFail!: boolean;
}

@ObjectType({ description: "The order's customer as the order shows it" })
export class OrderCustomer {
  @Field(() => Int) id!: number;
  @Field() email!: string;
  @Field() firstName!: string;
  @Field() lastName!: string;
}

@ObjectType()
export class LineItemVariant {
  @Field(() => Int) id!: number;
  @Field(() => [String], { description: 'the combination of option values bought' }) variant!: string[];
}

@ObjectType({ description: 'Exclusive buckets: quantity = notFulfilled + fulfilled + shipped + restocked' })
export class LineItemCounters {
  @Field(() => Int) quantity!: number;
  @Field(() => Int) notFulfilled!: number;
  @Field(() => Int) fulfilled!: number;
  @Field(() => Int) shipped!: number;
  @Field(() => Int) restocked!: number;
}

@ObjectType({ description: 'Units of one line item in a fulfilment, shipment or restock' })
export class RecordItem {
  @Field(() => Int, { description: 'the line item id' }) id!: number;
  @Field(() => Int) quantity!: number;
}
