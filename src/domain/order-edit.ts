import type { EntityManager } from '@mikro-orm/postgresql';
import { now } from '../clock.js';
import { Customer } from '../entities/customer.entity.js';
import { CustomerAddress } from '../entities/customer-address.entity.js';
import type { Order } from '../entities/order.entity.js';
import { PostalAddress } from '../entities/postal-address.embeddable.js';
import { MetafieldOwnerType } from '../schema/enums/metafield-owner-type.enum.js';
import type { OrderAddressPatch, OrderPatch } from '../schema/inputs/order.inputs.js';
import { lockCustomers } from './customer-lock.js';
import { refreshCustomerStatistics } from './customer-statistics.js';
import { ConflictError, type FieldError, ValidationError } from './errors.js';
import { orderAddressData } from './event-data.js';
import { type Actor, orderEventSubject, recordEvent } from './events.js';
import { checkText } from './input-checks.js';
import { METAFIELD_OWNERS } from './metafield-owners.js';
import { changesFromMap, writeRecordMetafields } from './metafield-values.js';
import { lockOrder } from './order-lock.js';
import { mergeAddressBlock } from './postal-address.js';
import type { ExpectedVersion } from './preconditions.js';

const NOTES_LIMIT = 10_000;

function touched(order: Order): Order {
  order.updatedAt = now();
  return order;
}

/** Only notes, address and customer of an order can be edited (spec); this is notes. */
export async function updateOrderNotes(
  em: EntityManager,
  actor: Actor,
  id: number,
  patch: OrderPatch,
  expected?: ExpectedVersion,
): Promise<Order> {
  const order = await lockOrder(em, id, expected);
  const errors: FieldError[] = [];
  if (patch.notes !== undefined && patch.notes !== null && patch.notes.length > NOTES_LIMIT)
    errors.push({ field: 'notes', message: `must be at most ${NOTES_LIMIT} characters` });
  const metafields =
    patch.metafields && (await changesFromMap(em, MetafieldOwnerType.ORDER, patch.metafields, 'metafields', errors));
  if (errors.length) throw new ValidationError(errors);
  // An erased customer's orders take no new personal data (docs/decisions.md#erasing-a-customer).
  const setting = metafields?.some((change) => change.value !== null);
  if (setting && (await lockCustomers(em, [order.customer.id])).length)
    throw new ConflictError(
      `Order ${order.id} belongs to customer ${order.customer.id}, who was erased on request: ` +
        'its metafields cannot be set',
      'metafields',
    );
  if (patch.notes !== undefined) order.notes = patch.notes;
  touched(order);
  // A PATCH of metafields alone is an `order.updated`; notes (or nothing at all) an `order.notes_changed`.
  if (patch.notes !== undefined || !metafields)
    recordEvent(em, actor, 'order.notes_changed', orderEventSubject(order), { id: order.id, notes: order.notes });
  if (metafields) {
    const owner = METAFIELD_OWNERS[MetafieldOwnerType.ORDER];
    const written = await writeRecordMetafields(em, owner, order.id, metafields, order.updatedAt!);
    recordEvent(em, actor, 'order.updated', orderEventSubject(order), { id: order.id, metafields: written.data });
  }
  await em.flush();
  return order;
}

/**
 * Merges partial shipping/billing blocks into the order. The customer's profile gains the order's
 * address only when it has none (an order's address may affect the profile, not the reverse).
 */
export async function updateOrderAddress(
  em: EntityManager,
  actor: Actor,
  id: number,
  patch: OrderAddressPatch,
  expected?: ExpectedVersion,
): Promise<Order> {
  const order = await lockOrder(em, id, expected);
  const errors: FieldError[] = [];
  if (patch.shipping) mergeAddressBlock(order.shippingAddress, patch.shipping, 'shipping', errors);
  if (patch.billing) mergeAddressBlock(order.billingAddress, patch.billing, 'billing', errors);
  if (patch.phone !== undefined) {
    checkText(patch.phone, 'phone', errors, { limit: 50 });
    order.phone = patch.phone;
  }
  if (errors.length) throw new ValidationError(errors);
  touched(order);
  recordEvent(em, actor, 'order.address_changed', orderEventSubject(order), orderAddressData(order));
  // Lock the customer so that concurrent edits of several of its orders add at most one address.
  // An erased customer's orders take no new personal data (docs/decisions.md#erasing-a-customer).
  if ((await lockCustomers(em, [order.customer.id])).length)
    throw new ConflictError(
      `Order ${order.id} belongs to customer ${order.customer.id}, who was erased on request: ` +
        'its address cannot be set',
    );
  const hasAddress = (await em.count(CustomerAddress, { customer: order.customer })) > 0;
  if (!hasAddress) {
    em.persist(
      Object.assign(new CustomerAddress(), {
        customer: order.customer,
        position: 0,
        shipping: Object.assign(new PostalAddress(), order.shippingAddress),
        billing: Object.assign(new PostalAddress(), order.billingAddress),
        phone: order.phone,
      }),
    );
    // The profile's addresses are part of the customer's record: it is updated (its version, its
    // ETag, its updated_at), and says so as a customer PATCH of its address would.
    await em
      .getConnection()
      .execute(
        'update customer set version = version + 1, updated_at = ? where id = ?',
        [now(), order.customer.id],
        'run',
        em.getTransactionContext(),
      );
    const { address } = orderAddressData(order);
    recordEvent(
      em,
      actor,
      'customer.updated',
      { subject: 'customer', subjectId: order.customer.id },
      { id: order.customer.id, address },
    );
  }
  await em.flush();
  return order;
}

/**
 * Moves the order to another customer (spec rule 3): the new customer's primary address and
 * e-mail go into the order, and both customers' derived figures follow in the same transaction.
 * Both customer rows are locked in id order, so two opposite moves cannot deadlock.
 */
export async function changeOrderCustomer(
  em: EntityManager,
  actor: Actor,
  id: number,
  customerId: number,
  expected?: ExpectedVersion,
): Promise<Order> {
  const order = await lockOrder(em, id, expected);
  const previous = order.customer.id;
  // The customer it has already (a form saved as it was): nothing moves, the order's own address
  // edits stay, no event, no figures refreshed, and its version (which lockOrder moved on) stays.
  if (customerId === previous) {
    order.version -= 1;
    return order;
  }
  const ids = [previous, customerId].sort((a, b) => a - b);
  const erased = await lockCustomers(em, ids);
  if (erased.includes(customerId))
    throw new ConflictError(`Customer ${customerId} was erased on request and cannot be given orders`, 'id');
  const customers = await em.find(Customer, { id: { $in: ids } });
  const customer = customers.find((c) => c.id === customerId);
  if (!customer) throw new ValidationError([{ field: 'id', message: `customer ${customerId} does not exist` }]);
  const primary = await em.findOne(CustomerAddress, { customer }, { orderBy: { position: 'asc', id: 'asc' } });
  const named = () =>
    Object.assign(new PostalAddress(), { firstName: customer.firstName, lastName: customer.lastName });
  order.customer = customer;
  order.email = customer.email;
  order.shippingAddress = primary ? Object.assign(new PostalAddress(), primary.shipping) : named();
  order.billingAddress = primary ? Object.assign(new PostalAddress(), primary.billing) : named();
  order.phone = primary?.phone ?? null;
  touched(order);
  recordEvent(em, actor, 'order.customer_changed', orderEventSubject(order), {
    ...orderAddressData(order),
    email: order.email,
    customer: { id: customer.id, email: customer.email, first_name: customer.firstName, last_name: customer.lastName },
    previous_customer_id: previous,
  });
  await em.flush();
  await refreshCustomerStatistics(em, ids);
  return order;
}
