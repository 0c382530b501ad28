import { type EntityManager, LockMode, UniqueConstraintViolationException } from '@mikro-orm/postgresql';
import validator from 'validator';
import { now } from '../clock.js';
import { Customer } from '../entities/customer.entity.js';
import { CustomerAddress } from '../entities/customer-address.entity.js';
import { Order } from '../entities/order.entity.js';
import { MetafieldOwnerType } from '../schema/enums/metafield-owner-type.enum.js';
import type { CustomerAddressPatch, CustomerCreate, CustomerPatch } from '../schema/inputs/customer.inputs.js';
import { refuseErased } from './customer-erasure.js';
import { lockCustomerAfterOrders, lockCustomers, moveOrderVersions } from './customer-lock.js';
import { ConflictError, type FieldError, NotFoundError, ValidationError } from './errors.js';
import { restKeys } from './event-data.js';
import { type Actor, recordEvent } from './events.js';
import { METAFIELD_OWNERS } from './metafield-owners.js';
import { changesFromMap, writeRecordMetafields } from './metafield-values.js';
import { mergeAddressBlock } from './postal-address.js';
import { beginVersionedWrite, type ExpectedVersion } from './preconditions.js';
import { likeEscape } from './text-match.js';

const NAME_LIMIT = 255;
const NOTES_LIMIT = 10_000;

function checkText(
  value: string | null | undefined,
  field: string,
  limit: number,
  errors: FieldError[],
  required = false,
) {
  if (value === undefined || value === null) return;
  if (required && !value.trim()) errors.push({ field, message: 'must not be empty' });
  if (value.length > limit) errors.push({ field, message: `must be at most ${limit} characters` });
}

function normaliseEmail(email: string | undefined, errors: FieldError[]): string | undefined {
  if (email === undefined) return undefined;
  const trimmed = email.trim();
  if (!validator.isEmail(trimmed)) errors.push({ field: 'email', message: `"${email}" is not an e-mail address` });
  return trimmed;
}

async function primaryAddress(em: EntityManager, customer: Customer): Promise<CustomerAddress> {
  const existing = await em.findOne(CustomerAddress, { customer }, { orderBy: { position: 'asc', id: 'asc' } });
  if (existing) return existing;
  const created = Object.assign(new CustomerAddress(), { customer, position: 0 });
  em.persist(created);
  return created;
}

async function applyAddress(
  em: EntityManager,
  customer: Customer,
  patch: CustomerAddressPatch | undefined,
  errors: FieldError[],
) {
  // An empty block changes nothing (a customer without an address gains no empty one).
  if (!patch || Object.values(patch).every((value) => value === undefined)) return;
  const address = await primaryAddress(em, customer);
  if (patch.shipping) mergeAddressBlock(address.shipping, patch.shipping, 'address.shipping', errors);
  if (patch.billing) mergeAddressBlock(address.billing, patch.billing, 'address.billing', errors);
  if (patch.phone !== undefined) {
    checkText(patch.phone, 'address.phone', 50, errors);
    address.phone = patch.phone;
  }
}

async function ensureEmailFree(em: EntityManager, email: string, except?: number) {
  const clash = await em.findOne(Customer, {
    email: { $ilike: likeEscape(email) },
    ...(except ? { id: { $ne: except } } : {}),
  });
  if (clash) throw new ConflictError(`The e-mail ${email} belongs to customer ${clash.id}`, 'email');
}

async function flushUnique(em: EntityManager, email: string | undefined) {
  try {
    await em.flush();
  } catch (error) {
    // A concurrent request took the address between our check and the write.
    if (error instanceof UniqueConstraintViolationException)
      throw new ConflictError(`The e-mail ${email} is already used`, 'email');
    throw error;
  }
}

/** PATCH a customer: names, notes, e-mail (unique, 409 when taken) and the primary address. */
export async function updateCustomer(
  em: EntityManager,
  actor: Actor,
  id: number,
  patch: CustomerPatch,
  expected?: ExpectedVersion,
): Promise<Customer> {
  // Its orders show its e-mail and name: a write that may change them locks them first.
  const touchesOrders = patch.email !== undefined || patch.firstName !== undefined || patch.lastName !== undefined;
  const orders = touchesOrders ? await lockCustomerAfterOrders(em, id) : [];
  if (!touchesOrders) await lockCustomers(em, [id]);
  const customer = await em.findOne(Customer, { id });
  if (!customer) throw new NotFoundError('Customer', id);
  refuseErased(customer);
  beginVersionedWrite(`Customer ${id}`, customer, expected);
  const shownOnOrders = () => [customer.email, customer.firstName, customer.lastName].join('\n');
  const before = shownOnOrders();
  const errors: FieldError[] = [];
  const email = normaliseEmail(patch.email, errors);
  checkText(patch.firstName, 'firstName', NAME_LIMIT, errors);
  checkText(patch.lastName, 'lastName', NAME_LIMIT, errors);
  checkText(patch.notes, 'notes', NOTES_LIMIT, errors);
  await applyAddress(em, customer, patch.address, errors);
  const metafields =
    patch.metafields && (await changesFromMap(em, MetafieldOwnerType.CUSTOMER, patch.metafields, 'metafields', errors));
  // Every bad value is reported at once; a refusal rolls the transaction back, merged address included.
  if (errors.length) throw new ValidationError(errors);
  if (email !== undefined && email.toLowerCase() !== customer.email.toLowerCase()) await ensureEmailFree(em, email, id);
  if (email !== undefined) customer.email = email;
  if (patch.firstName !== undefined) customer.firstName = patch.firstName;
  if (patch.lastName !== undefined) customer.lastName = patch.lastName;
  if (patch.notes !== undefined) customer.notes = patch.notes;
  customer.updatedAt = now();
  await flushUnique(em, email);
  if (shownOnOrders() !== before) await moveOrderVersions(em, orders);
  const owner = METAFIELD_OWNERS[MetafieldOwnerType.CUSTOMER];
  const written = metafields && (await writeRecordMetafields(em, owner, id, metafields, customer.updatedAt));
  const { metafields: _typed, ...fields } = patch;
  recordEvent(
    em,
    actor,
    'customer.updated',
    { subject: 'customer', subjectId: id },
    { id, ...(restKeys(fields) as object), ...(written ? { metafields: written.data } : {}) },
  );
  return customer;
}

export async function createCustomer(em: EntityManager, actor: Actor, input: CustomerCreate): Promise<Customer> {
  const errors: FieldError[] = [];
  const email = normaliseEmail(input.email, errors)!;
  checkText(input.firstName, 'firstName', NAME_LIMIT, errors);
  checkText(input.lastName, 'lastName', NAME_LIMIT, errors);
  checkText(input.notes, 'notes', NOTES_LIMIT, errors);
  if (errors.length) throw new ValidationError(errors);
  // Checked before anything is persisted: a query would auto-flush the new customer first.
  await ensureEmailFree(em, email);
  const customer = Object.assign(new Customer(), {
    email,
    firstName: input.firstName ?? '',
    lastName: input.lastName ?? '',
    notes: input.notes ?? null,
  });
  em.persist(customer);
  await applyAddress(em, customer, input.address, errors);
  if (errors.length) throw new ValidationError(errors);
  await flushUnique(em, email);
  recordEvent(
    em,
    actor,
    'customer.created',
    { subject: 'customer', subjectId: customer.id },
    { id: customer.id, ...(restKeys({ ...input, email }) as object) },
  );
  return customer;
}

/** Deleting a customer who has orders would orphan them: refused with a conflict. */
export async function deleteCustomer(
  em: EntityManager,
  actor: Actor,
  id: number,
  expected?: ExpectedVersion,
): Promise<number> {
  const customer = await em.findOne(Customer, { id }, { lockMode: LockMode.PESSIMISTIC_WRITE });
  if (!customer) throw new NotFoundError('Customer', id);
  beginVersionedWrite(`Customer ${id}`, customer, expected);
  const orders = await em.count(Order, { customer: id });
  if (orders > 0) throw new ConflictError(`Customer ${id} has ${orders} orders and cannot be deleted`);
  em.remove(customer);
  await em.flush();
  recordEvent(em, actor, 'customer.deleted', { subject: 'customer', subjectId: id }, { id, email: customer.email });
  return id;
}
