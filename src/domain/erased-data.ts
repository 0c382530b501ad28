// What erasing a customer leaves (docs/decisions.md#erasing-a-customer): fixed anonymous values in
// place of the personal data, on the records and on every copy of them in their REST shape (event
// data, stored Idempotency-Key answers, bulk results), and in the writes kept to run or show again
// (bulk lines, GraphQL answers). One place, so the records, the events and the answers replayed all
// show the same values.
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
export const isObject = (value: unknown): value is Json =>
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

/** The record a copy is about, for the copies erasure rewrites (src/domain/erased-copies.ts). */
export type ErasedKind = 'customer' | 'order';

const blank = () => '';
const cleared = () => null;
const erasedName = () => ERASED_NAME;

/**
 * The keys of the person's data in what a write takes and in GraphQL's records, by both APIs'
 * names, and what each becomes: the anonymous values the records get, where an input takes them
 * (the IP and conversion data are non-null inputs, so empty; a customer's names too, so `Erased`).
 */
const WRITTEN = new Map<string, (customerId: number) => unknown>([
  ['email', erasedEmail],
  ...['first_name', 'firstName', 'last_name', 'lastName'].map((key) => [key, erasedName] as const),
  ...['company', 'street', 'suite', 'city', 'country', 'state', 'zip', 'phone', 'last4'].map(
    (key) => [key, cleared] as const,
  ),
  ...['ip', 'landing_page', 'landingPage', 'referrer'].map((key) => [key, blank] as const),
]);

/**
 * A write's input about the person (a bulk line's REST body or GraphQL variables) or a GraphQL
 * record of theirs, with their data erased wherever it sits: each string under a key of WRITTEN
 * gets its anonymous value, a customer's notes null (an order's notes stay, as on the record),
 * metafield values null (a write's null deletes one) and shown metafields none. Keys and types stay
 * what the input takes, so a line not yet run still runs, and meets the erased customer's 409.
 * Answers a new value; `data` is not changed.
 */
export function eraseWrittenData(data: unknown, customerId: number, kind: ErasedKind): unknown {
  if (Array.isArray(data)) return data.map((item) => eraseWrittenData(item, customerId, kind));
  if (!isObject(data)) return data;
  // Entries, not assignment: a JSON key `__proto__` stays a key.
  return Object.fromEntries(
    Object.entries(data).map(([key, value]) => {
      if (key === 'metafields' && Array.isArray(value)) return [key, []];
      if (key === 'metafields' && isObject(value))
        return [key, Object.fromEntries(Object.keys(value).map((n) => [n, null]))];
      if (key === 'metafield') return [key, null];
      if (key === 'metafieldValues') return [key, {}];
      if (typeof value === 'string' && WRITTEN.has(key)) return [key, WRITTEN.get(key)!(customerId)];
      if (typeof value === 'string' && key === 'notes' && kind === 'customer') return [key, null];
      return [key, eraseWrittenData(value, customerId, kind)];
    }),
  );
}
