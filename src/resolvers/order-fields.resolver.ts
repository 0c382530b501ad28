import { FieldResolver, Resolver, Root } from 'type-graphql';
import { Customer } from '../entities/customer.entity.js';
import { Fulfilment } from '../entities/fulfilment.entity.js';
import { LineItem } from '../entities/line-item.entity.js';
import { Order } from '../entities/order.entity.js';
import { Restock } from '../entities/restock.entity.js';
import type { StoreSettings } from '../entities/store-settings.entity.js';
import { Shipment } from '../entities/shipment.entity.js';
import { displayNumber, formatOf } from '../domain/order-number.js';
import { loaded, type ReadRow } from '../reads/read-model.js';
import {
  OrderAddress, OrderConversion, OrderCustomer, OrderPayment, OrderRiskLevel, OrderShipping,
} from '../schema/types/order-parts.type.js';

/** An order's grouped fields (from its own row) and its relations (aggregated into the order's statement by the read model). */
@Resolver(() => Order)
export class OrderFieldsResolver {
  @FieldResolver(() => String, { description: 'order number with the display prefix/suffix of the store settings' })
  displayNumber(@Root() order: ReadRow<Order>): string {
    return displayNumber(order.id, formatOf(loaded<StoreSettings | null>(order, 'numberFormat')));
  }

  @FieldResolver(() => OrderShipping)
  shipping(@Root() order: ReadRow<Order>): OrderShipping {
    return { description: order.shippingDescription, price: order.shippingPrice };
  }

  @FieldResolver(() => OrderAddress)
  address(@Root() order: ReadRow<Order>): OrderAddress {
    return { shipping: order.shippingAddress, billing: order.billingAddress, phone: order.phone };
  }

  @FieldResolver(() => OrderPayment)
  payment(@Root() order: ReadRow<Order>): OrderPayment {
    return { type: order.paymentType, last4: order.paymentLast4 };
  }

  @FieldResolver(() => OrderConversion)
  conversion(@Root() order: ReadRow<Order>): OrderConversion {
    return { landingPage: order.landingPage, referrer: order.referrer };
  }

  @FieldResolver(() => OrderRiskLevel)
  riskLevel(@Root() order: ReadRow<Order>): OrderRiskLevel {
    return { ipFail: order.ipFail, addressFail: order.addressFail, zipFail: order.zipFail, cvcFail: order.cvcFail };
  }

  @FieldResolver(() => OrderCustomer)
  customer(@Root() order: ReadRow<Order>): OrderCustomer {
    const customer = loaded<Customer | null>(order, 'customer');
    return { id: order.customer.id, email: customer?.email ?? order.email, firstName: customer?.firstName ?? '', lastName: customer?.lastName ?? '' };
  }

  @FieldResolver(() => [LineItem])
  lineItems(@Root() order: ReadRow<Order>): LineItem[] {
    return loaded(order, 'lineItems');
  }

  @FieldResolver(() => [Fulfilment])
  fulfilments(@Root() order: ReadRow<Order>): Fulfilment[] {
    return loaded(order, 'fulfilments');
  }

  @FieldResolver(() => [Shipment])
  shipments(@Root() order: ReadRow<Order>): Shipment[] {
    return loaded(order, 'shipments');
  }

  @FieldResolver(() => [Restock])
  restocks(@Root() order: ReadRow<Order>): Restock[] {
    return loaded(order, 'restocks');
  }
}
