import { FieldResolver, Resolver, Root } from 'type-graphql';
import { displayNumber, formatOf } from '../domain/order-number.js';
import type { Customer } from '../entities/customer.entity.js';
import { Order } from '../entities/order.entity.js';
import { StoreSettings } from '../entities/store-settings.entity.js';
import { Computed, Reads } from '../reads/field-reads.js';
import type { ReadRow } from '../reads/read-row.js';
import {
  OrderAddress,
  OrderConversion,
  OrderCustomer,
  OrderPayment,
  OrderRiskLevel,
  OrderShipping,
} from './order-parts.type.js';

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

  @Reads('shippingDescription', 'shippingPrice')
  @FieldResolver(() => OrderShipping, { description: 'Shipping method and its price' })
  shipping(@Root() order: ReadRow<Order>): OrderShipping {
    return { description: order.shippingDescription, price: order.shippingPrice };
  }

  @Reads('shippingAddress', 'billingAddress', 'phone')
  @FieldResolver(() => OrderAddress, { description: 'Shipping and billing address and phone' })
  address(@Root() order: ReadRow<Order>): OrderAddress {
    return { shipping: order.shippingAddress, billing: order.billingAddress, phone: order.phone };
  }

  @Reads('paymentType', 'paymentLast4')
  @FieldResolver(() => OrderPayment, { description: 'How the order was paid' })
  payment(@Root() order: ReadRow<Order>): OrderPayment {
    return { type: order.paymentType, last4: order.paymentLast4 };
  }

  @Reads('landingPage', 'referrer')
  @FieldResolver(() => OrderConversion, { description: 'Where the buyer came from' })
  conversion(@Root() order: ReadRow<Order>): OrderConversion {
    return { landingPage: order.landingPage, referrer: order.referrer };
  }

  @Reads('ipFail', 'addressFail', 'zipFail', 'cvcFail')
  @FieldResolver(() => OrderRiskLevel, { description: 'Fraud checks that failed' })
  riskLevel(@Root() order: ReadRow<Order>): OrderRiskLevel {
    return { ipFail: order.ipFail, addressFail: order.addressFail, zipFail: order.zipFail, cvcFail: order.cvcFail };
  }

  @Reads('customer', 'email', 'customer.email', 'customer.firstName', 'customer.lastName')
  @FieldResolver(() => OrderCustomer, { description: 'The customer who placed the order' })
  customer(@Root() order: ReadRow<Order, { $customer: ReadRow<Customer> | null }>): OrderCustomer {
    const customer = order.$customer;
    return {
      id: order.customer,
      email: customer?.email ?? order.email,
      firstName: customer?.firstName ?? '',
      lastName: customer?.lastName ?? '',
    };
  }
}
