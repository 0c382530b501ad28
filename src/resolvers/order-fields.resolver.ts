import { FieldResolver, Resolver, Root } from 'type-graphql';
import { Customer } from '../entities/customer.entity.js';
import { Fulfilment } from '../entities/fulfilment.entity.js';
import { LineItem } from '../entities/line-item.entity.js';
import { Order } from '../entities/order.entity.js';
import { Restock } from '../entities/restock.entity.js';
import type { StoreSettings } from '../entities/store-settings.entity.js';
import { Shipment } from '../entities/shipment.entity.js';
import { displayNumber, formatOf } from '../domain/order-number.js';
import { loaded, RowProperty, type ReadRow } from '../reads/read-model.js';
import {
  OrderAddress, OrderConversion, OrderCustomer, OrderPayment, OrderRiskLevel, OrderShipping,
} from './order-parts.type.js';

/** An order's grouped fields (from its own row) and its relations (aggregated into the order's statement by the read model). */
@Resolver(() => Order)
export class OrderFieldsResolver {
  @FieldResolver(() => String, { description: 'Order number with the display prefix/suffix of the store settings' })
  displayNumber(@Root() order: ReadRow<Order>): string {
    return displayNumber(order.id, formatOf(loaded<StoreSettings | null>(order, 'numberFormat')));
  }

  @FieldResolver(() => OrderShipping, { description: 'Shipping method and its price' })
  shipping(@Root() order: ReadRow<Order>): OrderShipping {
    return { description: order.shippingDescription, price: order.shippingPrice };
  }

  @FieldResolver(() => OrderAddress, { description: 'Shipping and billing address and phone' })
  address(@Root() order: ReadRow<Order>): OrderAddress {
    return { shipping: order.shippingAddress, billing: order.billingAddress, phone: order.phone };
  }

  @FieldResolver(() => OrderPayment, { description: 'How the order was paid' })
  payment(@Root() order: ReadRow<Order>): OrderPayment {
    return { type: order.paymentType, last4: order.paymentLast4 };
  }

  @FieldResolver(() => OrderConversion, { description: 'Where the buyer came from' })
  conversion(@Root() order: ReadRow<Order>): OrderConversion {
    return { landingPage: order.landingPage, referrer: order.referrer };
  }

  @FieldResolver(() => OrderRiskLevel, { description: 'Fraud checks that failed' })
  riskLevel(@Root() order: ReadRow<Order>): OrderRiskLevel {
    return { ipFail: order.ipFail, addressFail: order.addressFail, zipFail: order.zipFail, cvcFail: order.cvcFail };
  }

  @FieldResolver(() => OrderCustomer, { description: 'The customer who placed the order' })
  customer(@Root() order: ReadRow<Order>): OrderCustomer {
    const customer = loaded<Customer | null>(order, 'customer');
    return { id: order.customer.id, email: customer?.email ?? order.email, firstName: customer?.firstName ?? '', lastName: customer?.lastName ?? '' };
  }

  @RowProperty()
  @FieldResolver(() => [LineItem], { description: 'Line items, in the order they were added' })
  lineItems(@Root() order: ReadRow<Order>): LineItem[] {
    return loaded(order, 'lineItems');
  }

  @RowProperty()
  @FieldResolver(() => [Fulfilment], { description: 'Fulfilments, oldest first' })
  fulfilments(@Root() order: ReadRow<Order>): Fulfilment[] {
    return loaded(order, 'fulfilments');
  }

  @RowProperty()
  @FieldResolver(() => [Shipment], { description: 'Shipments, oldest first' })
  shipments(@Root() order: ReadRow<Order>): Shipment[] {
    return loaded(order, 'shipments');
  }

  @RowProperty()
  @FieldResolver(() => [Restock], { description: 'Restocks, oldest first' })
  restocks(@Root() order: ReadRow<Order>): Restock[] {
    return loaded(order, 'restocks');
  }
}
