import type { EntityManager } from '@mikro-orm/postgresql';
import { Customer } from '../entities/customer.entity.js';
import { CustomerAddress } from '../entities/customer-address.entity.js';
import { LineItem } from '../entities/line-item.entity.js';
import { Order } from '../entities/order.entity.js';
import { PostalAddress } from '../entities/postal-address.embeddable.js';
import { ProductImage } from '../entities/product-image.entity.js';
import { ProductVariant } from '../entities/product-variant.entity.js';
import type { OrderCreate } from '../schema/inputs/order.inputs.js';
import { lockCustomers } from './customer-lock.js';
import { refreshCustomerStatistics } from './customer-statistics.js';
import { ConflictError, type FieldError, ValidationError } from './errors.js';
import { orderAddressData, seconds } from './event-data.js';
import { type Actor, orderEventSubject, recordEvent } from './events.js';
import { fromCents, MAX_AMOUNT_CENTS, toCents } from './money.js';
import { cartCents, totalCents } from './order-amounts.js';
import { mergeAddressBlock } from './postal-address.js';

const PAYMENT_TYPES = ['Visa', 'American Express', 'MasterCard', 'Discover', 'JCB', 'Diners Club', 'PayPal'];
const MAX_QUANTITY = 100_000;

/**
 * Places an order. Each line item snapshots its product and variant as they are now (later
 * catalogue edits never reach it); its amounts are exact (order-amounts.ts). Every unit starts
 * not fulfilled, so the order's status is 0.
 */
export async function placeOrder(em: EntityManager, actor: Actor, input: OrderCreate): Promise<Order> {
  const errors: FieldError[] = [];
  // The customer's figures change with this order: take its lock before anything else.
  if ((await lockCustomers(em, [input.customerId])).length)
    throw new ConflictError(`Customer ${input.customerId} was erased on request and cannot place orders`, 'customerId');
  const customer = await em.findOne(Customer, { id: input.customerId });
  if (!customer) errors.push({ field: 'customerId', message: `customer ${input.customerId} does not exist` });
  if (!input.items.length) errors.push({ field: 'items', message: 'an order needs at least one item' });
  const variantIds = input.items.map((i) => i.variantId);
  const variants = new Map(
    (await em.find(ProductVariant, { id: { $in: variantIds } }, { populate: ['product'] })).map((v) => [v.id, v]),
  );
  input.items.forEach((item, i) => {
    if (!variants.has(item.variantId))
      errors.push({ field: `items[${i}].variantId`, message: `variant ${item.variantId} does not exist` });
    if (!Number.isInteger(item.quantity) || item.quantity < 1 || item.quantity > MAX_QUANTITY) {
      errors.push({ field: `items[${i}].quantity`, message: `must be an integer from 1 to ${MAX_QUANTITY}` });
    }
  });
  if (new Set(variantIds).size !== variantIds.length)
    errors.push({ field: 'items', message: 'each variant may appear once' });
  if (![0, 1].includes(input.paid)) errors.push({ field: 'paid', message: 'a new order is NOT_PAID or PAID' });
  const payment = input.payment ?? {};
  if (payment.type != null && !PAYMENT_TYPES.includes(payment.type))
    errors.push({ field: 'payment.type', message: `must be one of ${PAYMENT_TYPES.join(', ')}` });
  if (payment.last4 != null && !/^\d{4}$/.test(payment.last4))
    errors.push({ field: 'payment.last4', message: 'must be 4 digits' });
  const shipping = input.shipping ?? { description: '', price: '0.00' };
  for (const [field, amount] of [
    ['shipping.price', shipping.price],
    ['tax', input.tax],
  ] as const) {
    if (toCents(amount) < 0n) errors.push({ field, message: 'must not be negative' });
  }

  const primary = customer
    ? await em.findOne(CustomerAddress, { customer }, { orderBy: { position: 'asc', id: 'asc' } })
    : null;
  const shippingAddress = Object.assign(new PostalAddress(), primary?.shipping ?? {});
  const billingAddress = Object.assign(new PostalAddress(), primary?.billing ?? {});
  if (input.shippingAddress) mergeAddressBlock(shippingAddress, input.shippingAddress, 'shippingAddress', errors);
  if (input.billingAddress) mergeAddressBlock(billingAddress, input.billingAddress, 'billingAddress', errors);
  if (errors.length || !customer) throw new ValidationError(errors);

  const productIds = [...new Set([...variants.values()].map((v) => v.product.id))];
  const firstImages = new Map<number, number>();
  for (const link of await em.find(
    ProductImage,
    { product: { $in: productIds } },
    { populate: ['image'], orderBy: [{ product: 'asc' }, { position: 'asc' }] },
  )) {
    if (!firstImages.has(link.product.id)) firstImages.set(link.product.id, link.image.maxSize);
  }

  const order = Object.assign(new Order(), {
    customer,
    email: customer.email,
    paid: input.paid,
    shippingDescription: shipping.description,
    shippingPrice: fromCents(toCents(shipping.price)),
    tax: fromCents(toCents(input.tax)),
    ip: input.ip,
    shippingAddress,
    billingAddress,
    phone: input.phone ?? primary?.phone ?? null,
    paymentType: payment.type ?? null,
    paymentLast4: payment.last4 ?? null,
    landingPage: input.conversion?.landingPage ?? '',
    referrer: input.conversion?.referrer ?? '',
    ipFail: input.riskLevel?.ipFail ?? false,
    addressFail: input.riskLevel?.addressFail ?? false,
    zipFail: input.riskLevel?.zipFail ?? false,
    cvcFail: input.riskLevel?.cvcFail ?? false,
    refundPossible: input.paid === 1,
    notes: input.notes ?? null,
  });
  for (const item of input.items) {
    const variant = variants.get(item.variantId)!;
    const product = variant.product;
    order.lineItems.add(
      Object.assign(new LineItem(), {
        order,
        product,
        variant,
        productRef: product.id,
        variantRef: variant.id,
        title: product.title,
        isMulti: product.isMulti,
        type: product.type,
        isGiftcard: product.isGiftcard,
        shippingWeight: product.shippingWeight,
        vendor: product.vendor,
        autoFulfilment: product.autoFulfilment,
        trackInventory: product.trackInventory,
        sku: variant.sku || product.sku,
        price: variant.price,
        comparePrice: variant.comparePrice,
        image: null,
        imageMaxSize: firstImages.get(product.id) ?? 0,
        variantValues: [...variant.optionValues],
        quantity: item.quantity,
        notFulfilled: item.quantity,
      }),
    );
  }
  const cart = cartCents(order.lineItems.getItems());
  const total = totalCents(cart, order.shippingPrice, order.tax);
  if (total > MAX_AMOUNT_CENTS)
    throw new ValidationError([{ field: 'items', message: 'the order total is too large' }]);
  order.cartPrice = fromCents(cart);
  order.total = fromCents(total);
  em.persist(order);
  await em.flush();
  await refreshCustomerStatistics(em, [customer.id]);
  recordEvent(em, actor, 'order.created', orderEventSubject(order), orderCreatedData(order));
  return order;
}

/** The new order's main fields and lines, in REST keys (the full record is one GET away). */
function orderCreatedData(order: Order): Record<string, unknown> {
  return {
    id: order.id,
    email: order.email,
    status: order.status,
    paid: order.paid,
    total: order.total,
    customer: { id: order.customer.id },
    address: (orderAddressData(order) as { address: unknown }).address,
    items: order.lineItems.getItems().map((line) => ({
      id: line.id,
      product_id: line.productRef,
      variant_id: line.variantRef,
      title: line.title,
      sku: line.sku,
      price: line.price,
      quantity: line.quantity,
    })),
    order_date: seconds(order.orderDate),
  };
}
