import { Collection, type Rel } from '@mikro-orm/core';
import { Entity, Index, OneToMany, PrimaryKey, Property } from '@mikro-orm/decorators/legacy';
import { Field, Int, ObjectType } from 'type-graphql';
import { now } from '../clock.js';
import { AddressBlockFilter } from '../schema/inputs/customer.inputs.js';
import { METAFIELDS_FILTER_DESCRIPTION, MetafieldFilter } from '../schema/inputs/metafield.inputs.js';
import { IntFilter } from '../schema/inputs/range-filters.js';
import { type FilterOf, filterBy, listFields } from '../schema/list-fields.js';
import { TimestampScalar } from '../schema/scalars/timestamp.scalar.js';
import { CustomerAddress } from './customer-address.entity.js';
import { CustomerPaymentMethod } from './customer-payment-method.entity.js';
import { Metafield } from './metafield.entity.js';
import { Order } from './order.entity.js';

/**
 * A customer. `orderCount`, `lifetimeSpent` and `lastPurchase` are derived from the customer's
 * orders and kept in columns by the same transaction that changes an order, so lists can sort and
 * filter on them in SQL. E-mail is unique case-insensitively (index in the migration).
 */
@ObjectType({ description: 'A customer of the store' })
@Entity()
@Index({ properties: ['lastName', 'id'] })
// Substring search (ILIKE '%…%') on names and e-mail: trigram indexes (pg_trgm, created in the migration).
@Index({
  name: 'customer_last_name_trgm',
  expression: 'create index "customer_last_name_trgm" on "customer" using gin ("last_name" gin_trgm_ops)',
})
@Index({
  name: 'customer_first_name_trgm',
  expression: 'create index "customer_first_name_trgm" on "customer" using gin ("first_name" gin_trgm_ops)',
})
@Index({
  name: 'customer_email_trgm',
  expression: 'create index "customer_email_trgm" on "customer" using gin ("email" gin_trgm_ops)',
})
// The same searches on the lower-case copies, with LIKE (domain/text-fold.ts).
@Index({
  name: 'customer_email_folded_trgm',
  expression: 'create index "customer_email_folded_trgm" on "customer" using gin ("email_folded" gin_trgm_ops)',
})
@Index({
  name: 'customer_first_name_folded_trgm',
  expression:
    'create index "customer_first_name_folded_trgm" on "customer" using gin ("first_name_folded" gin_trgm_ops)',
})
@Index({
  name: 'customer_last_name_folded_trgm',
  expression: 'create index "customer_last_name_folded_trgm" on "customer" using gin ("last_name_folded" gin_trgm_ops)',
})
export class Customer {
  @Field(() => Int, { description: 'Customer id' })
  @PrimaryKey({ type: 'integer' })
  id!: number;

  @Field({ description: 'E-mail address, unique in the store' })
  @Property({ type: 'text' })
  email!: string;

  @Field({ description: 'First name' })
  @Property({ type: 'text', default: '' })
  firstName: string = '';

  @Field({ description: 'Last name' })
  @Property({ type: 'text', default: '' })
  lastName: string = '';

  @Field(() => String, { nullable: true, description: 'Set by the store owner' })
  @Property({ type: 'text', nullable: true })
  notes: string | null = null;

  // Lower-case copies kept by PostgreSQL for case-insensitive search (domain/text-fold.ts); never
  // written by the ORM, and not loaded with the customer.
  @Property({ type: 'text', generated: '(lower(email)) stored', lazy: true, hidden: true })
  emailFolded?: string;

  @Property({ type: 'text', generated: '(lower(first_name)) stored', lazy: true, hidden: true })
  firstNameFolded?: string;

  @Property({ type: 'text', generated: '(lower(last_name)) stored', lazy: true, hidden: true })
  lastNameFolded?: string;

  @Property({ type: 'integer', default: 0 })
  orderCount: number = 0;

  @Property({ type: 'decimal', precision: 20, scale: 2, default: 0 })
  lifetimeSpent: string = '0.00';

  @Property({ type: 'timestamptz', nullable: true })
  lastPurchase: Date | null = null;

  @Field(() => TimestampScalar, { description: 'When the customer was created' })
  @Property({ type: 'timestamptz', onCreate: () => now() })
  createdAt: Date = now();

  @Field(() => TimestampScalar, { nullable: true, description: 'Null when never updated' })
  @Property({ type: 'timestamptz', nullable: true })
  updatedAt: Date | null = null;

  // Set once by eraseCustomer (domain/customer-erasure.ts): from then on the record only shows the
  // anonymous values, and every write to it is refused.
  @Field(() => TimestampScalar, {
    nullable: true,
    description:
      "When the customer's personal data was erased (eraseCustomer); null while it is not. An erased customer " +
      'shows fixed anonymous values and cannot be updated',
  })
  @Property({ type: 'timestamptz', nullable: true })
  erasedAt: Date | null = null;

  // Moved on by the domain under the row lock, once per write (domain/preconditions.ts), not by the
  // ORM: the ORM's version only moves when this row changes, and a write may change only rows of
  // other tables (fulfilments, variants, addresses) that are part of this record all the same.
  @Field(() => Int, {
    description:
      'Moves on with every write to the record, its parts included: the REST ETag, and what ' +
      '`expectedVersion` compares with',
  })
  @Property({ type: 'integer', default: 1 })
  version: number = 1;

  @Field(() => [CustomerAddress], { description: 'The first is the primary address' })
  @OneToMany({ entity: () => CustomerAddress, mappedBy: 'customer', orderBy: { position: 'asc', id: 'asc' } })
  addresses = new Collection<Rel<CustomerAddress>>(this);

  @Field(() => [CustomerPaymentMethod], { description: 'Payment methods the customer has used' })
  @OneToMany({ entity: () => CustomerPaymentMethod, mappedBy: 'customer', orderBy: { id: 'asc' } })
  paymentMethods = new Collection<Rel<CustomerPaymentMethod>>(this);

  @OneToMany({ entity: () => Order, mappedBy: 'customer' })
  orders = new Collection<Rel<Order>>(this);

  /**
   * Its metafields' rows, for the search by a metafield's value (src/domain/metafield-search.ts, a
   * filter of a cached shape). GraphQL and REST read them as the computed `metafields`
   * (src/resolvers/metafield-relations.ts): this relation is no field.
   */
  @OneToMany({ entity: () => Metafield, mappedBy: 'customer' })
  metafieldRows = new Collection<Rel<Metafield>>(this);
}

/**
 * What a list of customers sorts and filters by (src/schema/list-fields.ts). The filters on a
 * customer's addresses and orders are the domain's own (src/domain/customer-search.ts): every
 * address condition must hold on one and the same address.
 */
export const customerList = listFields(
  Customer,
  {
    id: { sort: true },
    email: { sort: true, filter: filterBy.text('Any of these substrings of the e-mail', { folded: true }) },
    firstName: { sort: true, filter: filterBy.text('Any of these substrings of the first name', { folded: true }) },
    lastName: { sort: true, filter: filterBy.text('Any of these substrings of the last name', { folded: true }) },
    notes: { sort: true, filter: filterBy.text('Any of these substrings of the notes') },
    phone: { filter: filterBy.own(() => [String], "Phone of one of the customer's addresses") },
    shipping: { filter: filterBy.own(() => AddressBlockFilter, 'Shipping address fields to match') },
    billing: { filter: filterBy.own(() => AddressBlockFilter, 'Billing address fields to match') },
    shippingCountry: { filter: filterBy.own(() => [String], 'Shipping country of one of the addresses') },
    orders: { filter: filterBy.own(() => [Int], 'Customers having any of these orders') },
    metafields: { filter: filterBy.own(() => [MetafieldFilter], METAFIELDS_FILTER_DESCRIPTION) },
    orderCount: { sort: true, filter: filterBy.range(IntFilter, 'Number of orders') },
    lifetimeSpent: { sort: true },
    lastPurchase: { sort: true },
    createdAt: { sort: true },
    updatedAt: { sort: true },
    erasedAt: { sort: true },
  },
  { filter: 'Customer search: strings match any of the given substrings, case-insensitively' },
);

/** The customer list's filter, as the domain receives it. */
export type CustomerFilter = FilterOf<typeof customerList.fields>;
