import { Field, InputType, Int } from 'type-graphql';
import { PaymentStatus } from '../enums/order-status.enums.js';
import { Optional } from '../optional-field.js';
import { DecimalScalar } from '../scalars/decimal.scalar.js';
import { AddressBlockPatch } from './customer.inputs.js';
import { MetafieldsPatch } from './metafield.inputs.js';

@InputType({ description: 'Order fields to change' })
export class OrderPatch {
  @Field(() => String, { nullable: true, description: 'Null clears' }) notes?: string | null;
  @MetafieldsPatch() metafields?: Record<string, unknown>;
}

@InputType({ description: 'Parts of the order address to change; omitted fields are kept' })
export class OrderAddressPatch {
  @Optional(() => AddressBlockPatch, { description: 'Shipping address fields to set' }) shipping?: AddressBlockPatch;
  @Optional(() => AddressBlockPatch, { description: 'Billing address fields to set' }) billing?: AddressBlockPatch;
  @Field(() => String, { nullable: true, description: 'Phone number of the order; null clears, omitted keeps it' })
  phone?: string | null;
}

@InputType({ description: 'The customer an order moves to' })
export class OrderCustomerChange {
  @Field(() => Int, { description: 'The new customer' }) id!: number;
}

@InputType({ description: 'A variant and the quantity ordered' })
export class OrderLineInput {
  @Field(() => Int, { description: 'Product variant id' }) variantId!: number;
  @Field(() => Int, { description: 'Units, ≥ 1' }) quantity!: number;
}

@InputType({ description: 'Shipping method and price' })
export class OrderShippingInput {
  @Field({ defaultValue: '', description: 'Shipping method' }) description!: string;
  @Field(() => DecimalScalar, { defaultValue: '0.00', description: 'Shipping price' }) price!: string;
}

@InputType({ description: 'How the order was paid' })
export class OrderPaymentInput {
  @Field(() => String, {
    nullable: true,
    description: 'Visa, American Express, MasterCard, Discover, JCB, Diners Club or PayPal',
  })
  type?: string | null;
  @Field(() => String, { nullable: true, description: 'Last 4 card digits' }) last4?: string | null;
}

@InputType({ description: 'Where the buyer came from' })
export class OrderConversionInput {
  @Field({ defaultValue: '', description: 'First page the buyer visited' }) landingPage!: string;
  @Field({ defaultValue: '', description: 'Page that referred the buyer' }) referrer!: string;
}

@InputType({ description: 'Fraud checks that failed' })
export class OrderRiskInput {
  @Field({ defaultValue: false, description: 'The IP check failed' }) ipFail!: boolean;
  @Field({ defaultValue: false, description: 'The address check failed' }) addressFail!: boolean;
  @Field({ defaultValue: false, description: 'The postal code check failed' }) zipFail!: boolean;
  @Field({ defaultValue: false, description: 'The card security code check failed' }) cvcFail!: boolean;
}

@InputType({ description: "A new order; addresses default to the customer's primary address" })
export class OrderCreate {
  @Field(() => Int, { description: 'The customer placing the order' }) customerId!: number;
  @Field(() => [OrderLineInput], { description: 'Variants and quantities' }) items!: OrderLineInput[];
  @Field(() => AddressBlockPatch, { nullable: true, description: "Shipping address; defaults to the customer's" })
  shippingAddress?: AddressBlockPatch;
  @Field(() => AddressBlockPatch, { nullable: true, description: "Billing address; defaults to the customer's" })
  billingAddress?: AddressBlockPatch;
  @Field(() => String, { nullable: true, description: "Phone number; defaults to the customer's" }) phone?:
    | string
    | null;
  @Field(() => OrderShippingInput, { nullable: true, description: 'Shipping method and price' })
  shipping?: OrderShippingInput;
  @Field(() => DecimalScalar, { defaultValue: '0.00', description: 'Tax paid' }) tax!: string;
  @Field(() => PaymentStatus, { defaultValue: PaymentStatus.PAID, description: 'Payment status: NOT_PAID or PAID' })
  paid!: PaymentStatus;
  @Field(() => OrderPaymentInput, { nullable: true, description: 'How the order was paid' })
  payment?: OrderPaymentInput;
  @Field(() => OrderConversionInput, { nullable: true, description: 'Where the buyer came from' })
  conversion?: OrderConversionInput;
  @Field(() => OrderRiskInput, { nullable: true, description: 'Fraud checks that failed' }) riskLevel?: OrderRiskInput;
  @Field({ defaultValue: '', description: 'IP the order was placed from' }) ip!: string;
  @Field(() => String, { nullable: true, description: 'Merchant notes' }) notes?: string | null;
}
