// What erasing a customer leaves (docs/decisions.md#erasing-a-customer): fixed anonymous values in
// place of the personal data, on the records and on every copy of them in their REST shape (event
// data, stored Idempotency-Key answers). One place, so the records, the events and the answers
// replayed all show the same values.
import { PostalAddress } from '../entities/postal-address.embeddable.js';

/** The names an erased customer, and the address blocks of its orders, show. */
export const ERASED_NAME = 'Erased';

/** The e-mail an erased customer and its orders show: unique per customer, never deliverable. */
export const erasedEmail = (customerId: number) => `erased-${customerId}@invalid`;

/** An address block as erasure leaves it: the names `Erased`, every other line null. */
export function erasedAddress(): PostalAddress {
  return Object.assign(new PostalAddress(), { firstName: ERASED_NAME, lastName: ERASED_NAME });
}

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A REST address block (`{first_name, …, zip}`) with its keys kept and their values erased. */
function erasedBlock(block: unknown): unknown {
  if (!isObject(block)) return block;
  return Object.fromEntries(
    Object.keys(block).map((key) => [key, key === 'first_name' || key === 'last_name' ? ERASED_NAME : null]),
  );
}

/** Sets each of `keys` that `record` has to `value(key)`; answers whether anything changed. */
function erase(record: Json, keys: readonly string[], value: (key: string) => unknown): boolean {
  let changed = false;
  for (const key of keys) {
    if (!(key in record)) continue;
    const next = value(key);
    if (JSON.stringify(record[key]) !== JSON.stringify(next)) changed = true;
    record[key] = next;
  }
  return changed;
}

/**
 * An order in its REST shape, or the data of an order event (`order.created`,
 * `order.address_changed`, `order.customer_changed`), with the customer's personal data erased:
 * e-mail, the customer's names, the address blocks and phone, the IP, the conversion data, the
 * card's last digits and the metafields (`order.updated`'s, or an expanded record's). The keys
 * stay; only what they hold changes. Mutates `data`; answers whether anything changed.
 */
export function eraseOrderData(data: Json, customerId: number): boolean {
  let changed = erase(data, ['email'], () => erasedEmail(customerId));
  changed = erase(data, ['ip'], () => '') || changed;
  if (isObject(data.customer)) {
    const customer = { ...data.customer };
    if (erase(customer, ['email'], () => erasedEmail(customerId))) changed = true;
    if (erase(customer, ['first_name', 'last_name'], () => ERASED_NAME)) changed = true;
    data.customer = customer;
  }
  if (isObject(data.address)) {
    const address = { ...data.address };
    if (erase(address, ['shipping', 'billing'], (key) => erasedBlock(address[key]))) changed = true;
    if (erase(address, ['phone'], () => null)) changed = true;
    data.address = address;
  }
  if (isObject(data.conversion)) {
    const conversion = { ...data.conversion };
    if (erase(conversion, ['landing_page', 'referrer'], () => '')) changed = true;
    data.conversion = conversion;
  }
  if (isObject(data.payment)) {
    const payment = { ...data.payment };
    if (erase(payment, ['last4'], () => null)) changed = true;
    data.payment = payment;
  }
  // Metafields may hold anything an integration keeps about the person: erasure removes them all.
  changed = erase(data, ['metafields'], () => ({})) || changed;
  return changed;
}

/**
 * A customer in its REST shape with its personal data erased, as the record itself is: e-mail,
 * names, notes, no addresses, no card digits, no metafields. Mutates `data`; answers whether anything changed.
 */
export function eraseCustomerRecord(data: Json, customerId: number): boolean {
  let changed = erase(data, ['email'], () => erasedEmail(customerId));
  changed = erase(data, ['first_name', 'last_name'], () => ERASED_NAME) || changed;
  changed = erase(data, ['notes'], () => null) || changed;
  changed = erase(data, ['address'], () => []) || changed;
  changed = erase(data, ['metafields'], () => ({})) || changed;
  if (Array.isArray(data.payment)) {
    const payment = data.payment.map((method) => (isObject(method) ? { ...method, last4: null } : method));
    changed = erase(data, ['payment'], () => payment) || changed;
  }
  return changed;
}
