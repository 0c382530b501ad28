// Erasing a customer on request (docs/decisions.md#erasing-a-customer, GDPR art. 17): the person's
// data goes from the customer, from every order of theirs, and from every copy the service keeps of
// them (stored events, which pending webhook deliveries are built from when sent; the outbox's
// e-mails; stored Idempotency-Key answers; bulk operations' lines and results), in the mutation's
// one transaction. The metafields of the customer and of its orders go too: what an integration
// keeps there may be about the person. Order lines, amounts and statuses stay. What erasure leaves
// is in erased-data.ts.
import type { EntityManager } from '@mikro-orm/postgresql';
import { now } from '../clock.js';
import { runPrepared } from '../db/prepared-statements.js';
import { Customer } from '../entities/customer.entity.js';
import { CustomerAddress } from '../entities/customer-address.entity.js';
import { CustomerPaymentMethod } from '../entities/customer-payment-method.entity.js';
import { Order } from '../entities/order.entity.js';
import { lockCustomerAfterOrders } from './customer-lock.js';
import { eraseBulkOperations } from './erased-bulk.js';
import { customerIdOf, eraseStoredAnswers } from './erased-copies.js';
import { ERASED_NAME, erasedAddress, erasedEmail, eraseOrderData } from './erased-data.js';
import { ConflictError, NotFoundError } from './errors.js';
import { orderAddressData } from './event-data.js';
import { type Actor, orderEventSubject, recordEvent } from './events.js';
import { beginVersionedWrite, type ExpectedVersion } from './preconditions.js';

type Json = Record<string, unknown>;

/** Refuses a write that would change an erased customer, or give it new personal data: 409. */
export function refuseErased(customer: Pick<Customer, 'id' | 'erasedAt'>, what = 'updated'): void {
  if (customer.erasedAt) throw new ConflictError(`Customer ${customer.id} was erased on request and cannot be ${what}`);
}

/** The events that set an order's customer: after each, the order belongs to `data.customer.id`. */
const OWNER_EVENTS = new Set(['order.created', 'order.customer_changed']);

interface StoredEvent {
  id: number;
  order_id: number;
  type: string;
  data: Json;
}

/** The orders this customer's events name as its own: placed by it, or moved to or from it. */
async function ordersNamedByEvents(em: EntityManager, id: number): Promise<number[]> {
  const rows = await runPrepared<{ order_id: number }>(
    em,
    `select distinct order_id from event where subject = 'order' and type = any(?::text[])
     and (data->'customer'->>'id' = ? or data->>'previous_customer_id' = ?) order by order_id`,
    [[...OWNER_EVENTS], String(id), String(id)],
  );
  return rows.map((row) => row.order_id);
}

/**
 * The events of the orders this customer has or had, with its contact details erased where the
 * order was the customer's when the event was recorded (an order moved to another customer keeps
 * that customer's details in its later events; an order moved to this one has this one's in the
 * move's event). The customer's own events keep their id alone. Answers the e-mail addresses the
 * events held (for the outbox and the copies) and the orders the customer placed, by their `order.created`.
 */
async function eraseEvents(
  em: EntityManager,
  id: number,
  orders: readonly number[],
): Promise<{ emails: Set<string>; placed: Set<number> }> {
  // The addresses the customer's own events held (its earlier ones: `customer.created`, a
  // `customer.updated` that changed it) are the person's too, searched for in the copies.
  const earlier = await runPrepared<{ email: string | null }>(
    em,
    `update event e set data = jsonb_build_object('id', e.subject_id)
     from (select id, data->>'email' as email from event
       where subject = 'customer' and subject_id = ? and data <> jsonb_build_object('id', subject_id)) prior
     where e.id = prior.id returning prior.email`,
    [id],
  );
  const [owners, events] = await Promise.all([
    runPrepared<{ id: number; customer_id: number }>(
      em,
      'select id, customer_id from orders where id = any(?::int[])',
      [orders],
    ),
    runPrepared<StoredEvent>(
      em,
      'select id, order_id, type, data from event where order_id = any(?::int[]) order by order_id, id',
      [orders],
    ),
  ]);
  const currentOwner = new Map(owners.map((row) => [row.id, row.customer_id]));
  const emails = new Set(earlier.flatMap(({ email }) => (email ? [email.toLowerCase()] : [])));
  const placed = new Set<number>();
  const changed: StoredEvent[] = [];
  const byOrder = new Map<number, StoredEvent[]>();
  for (const event of events) byOrder.set(event.order_id, [...(byOrder.get(event.order_id) ?? []), event]);
  for (const [order, list] of byOrder) {
    // Whose the order was before its first kept event that sets it (order.created may be past retention).
    const setter = list.find((event) => OWNER_EVENTS.has(event.type));
    let owner: unknown = !setter
      ? currentOwner.get(order)
      : setter.type === 'order.customer_changed'
        ? setter.data.previous_customer_id
        : undefined;
    for (const event of list) {
      if (OWNER_EVENTS.has(event.type)) owner = customerIdOf(event.data);
      if (owner !== id) continue;
      if (event.type === 'order.created') placed.add(order);
      for (const email of [event.data.email, (event.data.customer as Json | undefined)?.email])
        if (typeof email === 'string') emails.add(email.toLowerCase());
      if (eraseOrderData(event.data, id)) changed.push(event);
    }
  }
  if (changed.length) {
    await runPrepared(
      em,
      'update event e set data = x.data::jsonb from unnest(?::int[], ?::text[]) x(id, data) where e.id = x.id',
      [changed.map((event) => event.id), changed.map((event) => JSON.stringify(event.data))],
    );
  }
  return { emails, placed };
}

/**
 * The outbox's e-mails to the customer (about its orders, or to any address it had): those not yet
 * sent are dropped, there being no one left to send them to; those sent keep their record with the
 * erased address, and no error text that could quote the old one.
 */
async function eraseMail(em: EntityManager, id: number, orders: readonly number[], emails: Set<string>) {
  const mine = `(payload->>'orderId')::int = any(?::int[]) or lower(payload->>'to') = any(?::text[])`;
  const params = [orders, [...emails]];
  await runPrepared(em, `delete from outbox_message where sent_at is null and (${mine})`, params);
  await runPrepared(
    em,
    `update outbox_message set payload = jsonb_set(payload, '{to}', to_jsonb(?::text)), last_error = null
     where sent_at is not null and (${mine})`,
    [erasedEmail(id), ...params],
  );
}

/**
 * `eraseCustomer` / `POST /customers/{id}/erase`: replaces the customer's names, e-mail,
 * addresses, phones, card digits and notes, and on every order of theirs the e-mail, the address
 * blocks, the phone, the IP, the conversion data and the card digits, with the fixed anonymous
 * values; removes them from stored events, the outbox, stored answers and bulk operations; records
 * `customer.erased` with the id alone. The orders are locked before the customer, as every write
 * touching both does. Erasing an erased customer changes nothing and answers it as it is.
 */
export async function eraseCustomer(
  em: EntityManager,
  actor: Actor,
  id: number,
  expected?: ExpectedVersion,
): Promise<Customer> {
  // Bulk operations that may run first, before any order or customer (a runner's transaction of
  // lines holds its operation, then writes those): this waits for their transactions under way, so
  // their results are erased below, and their runners read their lines (and document) again once
  // this commits (src/bulk/runner.ts), never running a line with the data taken out of it. Waiting
  // ones are held too: a claim skips them (SKIP LOCKED) until this commits, and reads them after.
  await runPrepared(
    em,
    `update bulk_operation set lines_version = lines_version + 1 where status in ('created', 'running')`,
    [],
  );
  // An order it placed that has since moved to another customer still holds where and how it was
  // placed (IP, conversion data, card digits): it is locked with the customer's own orders.
  const named = await ordersNamedByEvents(em, id);
  const orderIds = await lockCustomerAfterOrders(em, id, named);
  const customer = await em.findOne(Customer, { id });
  if (!customer) throw new NotFoundError('Customer', id);
  if (customer.erasedAt) return customer;
  const emails = new Set([customer.email.toLowerCase()]);
  const at = now();
  // The caller's expected version is compared only for a first erasure: erasing again (above)
  // answers the same, whatever version it read.
  beginVersionedWrite(`Customer ${id}`, customer, expected);
  Object.assign(customer, {
    email: erasedEmail(id),
    firstName: ERASED_NAME,
    lastName: ERASED_NAME,
    notes: null,
    erasedAt: at,
    updatedAt: at,
  });
  await em.nativeDelete(CustomerAddress, { customer: id });
  await em.nativeUpdate(CustomerPaymentMethod, { customer: id }, { last4: null });
  const { emails: inEvents, placed } = await eraseEvents(em, id, [...new Set([...orderIds, ...named])]);
  for (const email of inEvents) emails.add(email);
  const elsewhere = [...placed].filter((order) => !orderIds.includes(order));
  // Metafields may hold personal data (an integration's notes on the person): the customer's and
  // those of its orders go (their versions move below), each order's named in its event as a
  // deletion names them (null).
  const goneMetafields = new Map<number, Record<string, null>>();
  const gone = await runPrepared<{ order_id: number | null; name: string }>(
    em,
    `delete from metafield where customer_id = ? or order_id = any(?::int[])
      returning order_id, namespace || '.' || key as name`,
    [id, orderIds],
  );
  for (const { order_id, name } of gone)
    if (order_id !== null) goneMetafields.set(order_id, { ...goneMetafields.get(order_id), [name]: null });
  for (const order of await em.find(Order, { id: { $in: [...orderIds, ...elsewhere] } })) {
    beginVersionedWrite(`Order ${order.id}`, order, undefined);
    Object.assign(order, { ip: '', landingPage: '', referrer: '', paymentLast4: null, updatedAt: at });
    const placed = { ip: '', conversion: { landing_page: '', referrer: '' }, payment: { last4: null } };
    // Its contact details are the other customer's now: only an order still the customer's loses them.
    if (orderIds.includes(order.id)) {
      emails.add(order.email.toLowerCase());
      Object.assign(order, {
        email: erasedEmail(id),
        shippingAddress: erasedAddress(),
        billingAddress: erasedAddress(),
        phone: null,
      });
    }
    // An integration that mirrors orders from the feed or webhooks learns what changed, as of every
    // change to an order (docs/decisions.md#integrations): the erased values, in REST keys.
    const contact = orderIds.includes(order.id) ? { email: order.email, ...orderAddressData(order) } : {};
    const metafields = goneMetafields.get(order.id);
    recordEvent(em, actor, 'order.updated', orderEventSubject(order), {
      id: order.id,
      ...placed,
      ...contact,
      ...(metafields ? { metafields } : {}),
    });
  }
  await em.flush();
  await eraseMail(em, id, orderIds, emails);
  // Copies of the records in their REST shape, and writes that set its data: the same erasure.
  const person = { id, orders: orderIds, everOrders: [...new Set([...orderIds, ...named])], emails };
  await eraseStoredAnswers(em, person);
  await eraseBulkOperations(em, person);
  recordEvent(em, actor, 'customer.erased', { subject: 'customer', subjectId: id }, { id });
  return customer;
}
