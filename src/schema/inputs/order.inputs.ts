import { Field, InputType, Int } from 'type-graphql';
import { DecimalScalar } from '../scalars/decimal.scalar.js';
import { AddressBlockPatch } from './customer.inputs.js';
import { DecimalFilter, IntFilter, TimestampFilter } from './range-filters.js';

@InputType({ description: 'Order search: strings match any of the given substrings case-insensitively; lists mean any of' })
export class OrderFilter {
  @Field(() => [Int], { nullable: true }) id?: number[];
  @Field(() => [String], { nullable: true, description: 'the number with its display prefix/suffix' }) displayNumber?: string[];
  @Field(() => [String], { nullable: true }) email?: string[];
  @Field(() => IntFilter, { nullable: true }) status?: IntFilter;
  @Field(() => IntFilter, { nullable: true }) paid?: IntFilter;
  @Field(() => [String], { nullable: true }) shippingDescription?: string[];
  @Field(() => DecimalFilter, { nullable: true }) shippingPrice?: DecimalFilter;
  @Field(() => DecimalFilter, { nullable: true }) tax?: DecimalFilter;
  @Field(() => DecimalFilter, { nullable: true, description: 'Σ item price × quantity' }) cartPrice?: DecimalFilter;
  @Field(() => DecimalFilter, { nullable: true }) total?: DecimalFilter;
  @Field(() => [String], { nullable: true }) ip?: string[];
  @Field(() => [Int], { nullable: true }) customerId?: number[];
  @Field(() => [String], { nullable: true }) paymentMethod?: string[];
  @Field(() => [String], { nullable: true }) last4?: string[];
  @Field(() => [Boolean], { nullable: true }) ipFail?: boolean[];
  @Field(() => [Boolean], { nullable: true }) addressFail?: boolean[];
  @Field(() => [Boolean], { nullable: true }) zipFail?: boolean[];
  @Field(() => [Boolean], { nullable: true }) cvcFail?: boolean[];
  @Field(() => DecimalFilter, { nullable: true }) refunded?: DecimalFilter;
  @Field(() => [Boolean], { nullable: true }) refundPossible?: boolean[];
  @Field(() => TimestampFilter, { nullable: true }) orderDate?: TimestampFilter;
  @Field(() => TimestampFilter, { nullable: true }) updatedAt?: TimestampFilter;
  @Field(() => [String], { nullable: true }) notes?: string[];
  @Field(() => [String], { nullable: true, description: '"first last" of the customer, shipping or billing name' }) fullName?: string[];
}

@InputType()
export class OrderPatch {
  @Field(() => String, { nullable: true, description: 'null clears' }) notes?: string | null;
}

@InputType({ description: 'Parts of the order address to change; omitted fields are kept' })
export class OrderAddressPatch {
  @Field(() => AddressBlockPatch, { nullable: true }) shipping?: AddressBlockPatch;
  @Field(() => AddressBlockPatch, { nullable: true }) billing?: AddressBlockPatch;
}

@InputType()
export class OrderCustomerChange {
  @Field(() => Int, { description: 'the new customer' }) id!: number;
}

@InputType()
export class OrderLineInput {
  @Field(() => Int) variantId!: number;
  @Field(() => Int) quantity!: number;
}

@InputType()
export class OrderShippingInput {
  @Field({ defaultValue: '' }) description!: string;
  @Field(() => DecimalScalar, { defaultValue: '0.00' }) price!: string;
}

@InputType()
export class OrderPaymentInput {
  @Field(() => String, { nullable: true }) type?: string | null;
  @Field(() => String, { nullable: true }) last4?: string | null;
}

@InputType()
export class OrderConversionInput {
  @Field({ defaultValue: '' }) landingPage!: string;
  @Field({ defaultValue: '' }) referrer!: string;
}

@InputType()
export class OrderRiskInput {
  @Field({ defaultValue: false }) ipFail!: boolean;
  @Field({ defaultValue: false }) addressFail!: boolean;
  @Field({ defaultValue: false }) zipFail!: boolean;
  @Field({ defaultValue: false }) cvcFail!: boolean;
}

@InputType({ description: "A new order; addresses default to the customer's primary address" })
export class OrderCreate {
  @Field(() => Int) customerId!: number;
  @Field(() => [OrderLineInput]) items!: OrderLineInput[];
  @Field(() => AddressBlockPatch, { nullable: true }) shippingAddress?: AddressBlockPatch;
  @Field(() => AddressBlockPatch, { nullable: true }) billingAddress?: AddressBlockPatch;
  @Field(() => String, { nullable: true }) phone?: string | null;
  @Field(() => OrderShippingInput, { nullable: true }) shipping?: OrderShippingInput;
  @Field(() => DecimalScalar, { defaultValue: '0.00' }) tax!: string;
  @Field(() => Int, { defaultValue: 1, description: 'payment status: 0 not paid; 1 paid' }) paid!: number;
  @Field(() => OrderPaymentInput, { nullable: true }) payment?: OrderPaymentInput;
  @Field(() => OrderConversionInput, { nullable: true }) conversion?: OrderConversionInput;
  @Field(() => OrderRiskInput, { nullable: true }) riskLevel?: OrderRiskInput;
  @Field({ defaultValue: '' }) ip!: string;
  @Field(() => String, { nullable: true }) notes?: string | null;
}
