import { Ctx, FieldResolver, Resolver, Root } from 'type-graphql';
import { Customer } from '../entities/customer.entity.js';
import { Fulfilment } from '../entities/fulfilment.entity.js';
import { LineItem } from '../entities/line-item.entity.js';
import { Order } from '../entities/order.entity.js';
import { Restock } from '../entities/restock.entity.js';
import { Shipment } from '../entities/shipment.entity.js';
import { StoreSettings } from '../entities/store-settings.entity.js';
import type { GraphQLContext } from '../schema/context.js';
import {
  OrderAddress, OrderConversion, OrderCustomer, OrderPayment, OrderRiskLevel, OrderShipping,
} from '../schema/types/order-parts.type.js';

const byOrder = { orderBy: [{ order: 'asc' as const }, { id: 'asc' as const }] };
/**
 * Records come with their items (and shipments with their carrier) in the same statement, joined:
 * one query per kind of record instead of two or three. The record field resolvers use what is
 * loaded and fall back to their own batched loaders for records read elsewhere.
 */
const withItems = <K extends string>(extra: K[] = []) =>
  ({ populate: ['items', ...extra], strategy: 'joined', orderBy: [{ order: 'asc' }, { id: 'asc' }, { items: { lineItem: 'asc' } }] }) as never;

/** An order's grouped fields (from its own row) and its relations (one batched query each). */
@Resolver(() => Order)
export class OrderFieldsResolver {
  @FieldResolver(() => String, { description: 'order number with the display prefix/suffix of the store settings' })
  async displayNumber(@Root() order: Order, @Ctx() { loaders }: GraphQLContext): Promise<string> {
    const settings = await loaders.byId('storeSettings', (em, ids) => em.find(StoreSettings, { id: { $in: ids } })).load(1);
    return `${settings?.orderNumberPrefix ?? ''}${order.id}${settings?.orderNumberSuffix ?? ''}`;
  }

  @FieldResolver(() => OrderShipping)
  shipping(@Root() order: Order): OrderShipping {
    return { description: order.shippingDescription, price: order.shippingPrice };
  }

  @FieldResolver(() => OrderAddress)
  address(@Root() order: Order): OrderAddress {
    return { shipping: order.shippingAddress, billing: order.billingAddress, phone: order.phone };
  }

  @FieldResolver(() => OrderPayment)
  payment(@Root() order: Order): OrderPayment {
    return { type: order.paymentType, last4: order.paymentLast4 };
  }

  @FieldResolver(() => OrderConversion)
  conversion(@Root() order: Order): OrderConversion {
    return { landingPage: order.landingPage, referrer: order.referrer };
  }

  @FieldResolver(() => OrderRiskLevel)
  riskLevel(@Root() order: Order): OrderRiskLevel {
    return { ipFail: order.ipFail, addressFail: order.addressFail, zipFail: order.zipFail, cvcFail: order.cvcFail };
  }

  @FieldResolver(() => OrderCustomer)
  async customer(@Root() order: Order, @Ctx() { loaders }: GraphQLContext): Promise<OrderCustomer> {
    const customer = await loaders
      .byId('order.customer', (em, ids) => em.find(Customer, { id: { $in: ids } }, { fields: ['id', 'email', 'firstName', 'lastName'] }))
      .load(order.customer.id);
    return { id: order.customer.id, email: customer?.email ?? order.email, firstName: customer?.firstName ?? '', lastName: customer?.lastName ?? '' };
  }

  @FieldResolver(() => [LineItem])
  lineItems(@Root() order: Order, @Ctx() { loaders }: GraphQLContext) {
    return loaders.children('order.lineItems', (em, ids) => em.find(LineItem, { order: { $in: ids } }, byOrder), (li) => li.order.id).load(order.id);
  }

  @FieldResolver(() => [Fulfilment])
  fulfilments(@Root() order: Order, @Ctx() { loaders }: GraphQLContext) {
    return loaders.children('order.fulfilments', (em, ids) => em.find(Fulfilment, { order: { $in: ids } }, withItems()), (f) => f.order.id).load(order.id);
  }

  @FieldResolver(() => [Shipment])
  shipments(@Root() order: Order, @Ctx() { loaders }: GraphQLContext) {
    return loaders.children('order.shipments', (em, ids) => em.find(Shipment, { order: { $in: ids } }, withItems(['carrier'])), (s) => s.order.id).load(order.id);
  }

  @FieldResolver(() => [Restock])
  restocks(@Root() order: Order, @Ctx() { loaders }: GraphQLContext) {
    return loaders.children('order.restocks', (em, ids) => em.find(Restock, { order: { $in: ids } }, withItems()), (r) => r.order.id).load(order.id);
  }
}
