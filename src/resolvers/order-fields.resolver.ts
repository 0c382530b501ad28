import { FieldResolver, Resolver, Root } from 'type-graphql';
import { displayNumber, formatOf } from '../domain/order-number.js';
import type { Customer } from '../entities/customer.entity.js';
import { Order } from '../entities/order.entity.js';
import { StoreSettings } from '../entities/store-settings.entity.js';
import { Computed, Projects, Reads } from '../reads/field-reads.js';
import { type Projection, projectRow } from '../reads/projection.js';
import type { ReadRow } from '../reads/read-row.js';
import {
  OrderAddress,
  OrderConversion,
  OrderCustomer,
  OrderPayment,
  OrderRiskLevel,
  OrderShipping,
} from './order-parts.type.js';

const SHIPPING = { fields: { description: 'shippingDescription', price: 'shippingPrice' } } satisfies Projection;
const PAYMENT = { fields: { type: 'paymentType', last4: 'paymentLast4' } } satisfies Projection;
const CONVERSION = { fields: { landingPage: 'landingPage', referrer: 'referrer' } } satisfies Projection;
const RISK_LEVEL = {
  fields: { ipFail: 'ipFail', addressFail: 'addressFail', zipFail: 'zipFail', cvcFail: 'cvcFail' },
} satisfies Projection;
/** The customer as the order shows it: the order's own e-mail and empty names when the row is gone. */
const CUSTOMER = {
  fields: {
    id: 'customer',
    email: ['customer.email', 'email'],
    firstName: ['customer.firstName', { constant: '' }],
    lastName: ['customer.lastName', { constant: '' }],
  },
} satisfies Projection;

/** An order's grouped fields, from its own row (its relations are the entity's, read by the read plan). */
@Resolver(() => Order)
export class OrderFieldsResolver {
  // The store's one settings row, for the display number (a one-row probe per order, no extra statement).
  @Computed({ kind: 'one', entity: () => StoreSettings, where: (settings) => `${settings}.id = 1` }, 'numberFormat')
  @Reads('numberFormat.orderNumberPrefix', 'numberFormat.orderNumberSuffix')
  @FieldResolver(() => String, { description: 'Order number with the display prefix/suffix of the store settings' })
  displayNumber(@Root() order: ReadRow<Order, { $numberFormat: ReadRow<StoreSettings> | null }>): string {
    return displayNumber(order.id, formatOf(order.$numberFormat));
  }

  @Projects(SHIPPING)
  @FieldResolver(() => OrderShipping, { description: 'Shipping method and its price' })
  shipping(@Root() order: ReadRow<Order>): OrderShipping {
    return projectRow(order, SHIPPING);
  }

  @Reads('shippingAddress', 'billingAddress', 'phone')
  @FieldResolver(() => OrderAddress, { description: 'Shipping and billing address and phone' })
  address(@Root() order: ReadRow<Order>): OrderAddress {
    return { shipping: order.shippingAddress, billing: order.billingAddress, phone: order.phone };
  }

  @Projects(PAYMENT)
  @FieldResolver(() => OrderPayment, { description: 'How the order was paid' })
  payment(@Root() order: ReadRow<Order>): OrderPayment {
    return projectRow(order, PAYMENT);
  }

  @Projects(CONVERSION)
  @FieldResolver(() => OrderConversion, { description: 'Where the buyer came from' })
  conversion(@Root() order: ReadRow<Order>): OrderConversion {
    return projectRow(order, CONVERSION);
  }

  @Projects(RISK_LEVEL)
  @FieldResolver(() => OrderRiskLevel, { description: 'Fraud checks that failed' })
  riskLevel(@Root() order: ReadRow<Order>): OrderRiskLevel {
    return projectRow(order, RISK_LEVEL);
  }

  @Projects(CUSTOMER)
  @FieldResolver(() => OrderCustomer, { description: 'The customer who placed the order' })
  customer(@Root() order: ReadRow<Order, { $customer: ReadRow<Customer> | null }>): OrderCustomer {
    return projectRow(order, CUSTOMER);
  }
}
