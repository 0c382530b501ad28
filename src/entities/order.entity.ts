import { Collection, type Rel } from '@mikro-orm/core';
import {
  Check,
  Embedded,
  Entity,
  Index,
  ManyToOne,
  OneToMany,
  PrimaryKey,
  Property,
} from '@mikro-orm/decorators/legacy';
import { GraphQLJSON } from 'graphql-scalars';
import { Field, Int, ObjectType } from 'type-graphql';
import { now } from '../clock.js';
import { FulfilmentStatus, PaymentStatus } from '../schema/enums/order-status.enums.js';
import { METAFIELDS_FILTER_DESCRIPTION, MetafieldFilter } from '../schema/inputs/metafield.inputs.js';
import { DecimalFilter, TimestampFilter } from '../schema/inputs/range-filters.js';
import { type FilterOf, filterBy, listFields } from '../schema/list-fields.js';
import { DecimalScalar } from '../schema/scalars/decimal.scalar.js';
import { TimestampScalar } from '../schema/scalars/timestamp.scalar.js';
import { Customer } from './customer.entity.js';
import { Fulfilment } from './fulfilment.entity.js';
import { LineItem } from './line-item.entity.js';
import { Metafield } from './metafield.entity.js';
import { PostalAddress } from './postal-address.embeddable.js';
import { Restock } from './restock.entity.js';
import { Shipment } from './shipment.entity.js';

/**
 * An order. `status` is derived from the line items' counters and stored by the transaction that
 * moves them, so it can be filtered, sorted and counted in SQL; `cartPrice` (Σ price × quantity)
 * likewise. Every mutation locks this row first (`FOR UPDATE`).
 */
@ObjectType({ description: 'An order' })
@Entity({ tableName: 'orders' })
// Sort keys with the id tie-breaker, so `ORDER BY x, id LIMIT n` (either direction) is an index scan.
@Index({ properties: ['orderDate', 'id'] })
@Index({ properties: ['total', 'id'] })
@Index({ properties: ['status', 'id'] })
@Index({ properties: ['email', 'id'] })
@Index({ properties: ['customer', 'id'] })
// Search by e-mail substring (ILIKE '%…%'): a trigram index, as the customers' (pg_trgm), so it scans no order list.
@Index({
  name: 'orders_email_trgm',
  expression: 'create index "orders_email_trgm" on "orders" using gin ("email" gin_trgm_ops)',
})
// Checks in the form PostgreSQL echoes them back (no `between`), so `npm run migration:create` sees no change.
@Check({ name: 'orders_status_valid', expression: 'status >= 0 and status <= 5' })
@Check({ name: 'orders_paid_valid', expression: 'paid >= -2 and paid <= 1' })
export class Order {
  @Field(() => Int, { description: 'Same as the order number' })
  @PrimaryKey({ type: 'integer' })
  id!: number;

  @ManyToOne({ entity: () => Customer, deleteRule: 'restrict' })
  customer!: Rel<Customer>;

  @Field({ description: 'Customer e-mail' })
  @Property({ type: 'text' })
  email!: string;

  @Field(() => FulfilmentStatus, { description: 'Fulfilment status, derived from the line item counters' })
  @Property({ type: 'smallint', default: 0 })
  status: FulfilmentStatus = FulfilmentStatus.NOT_FULFILLED;

  @Field(() => PaymentStatus, { description: 'Payment status' })
  @Property({ type: 'smallint', default: 0 })
  paid: PaymentStatus = PaymentStatus.NOT_PAID;

  @Field(() => GraphQLJSON, { description: 'Discounts applied, as the shop recorded them (a JSON array)' })
  @Property({ type: 'jsonb', defaultRaw: "'[]'" })
  discounts: unknown = [];

  @Property({ type: 'text', default: '' })
  shippingDescription: string = '';

  @Property({ type: 'decimal', precision: 12, scale: 2, default: 0 })
  shippingPrice: string = '0.00';

  @Field(() => DecimalScalar, { description: 'Tax paid' })
  @Property({ type: 'decimal', precision: 12, scale: 2, default: 0 })
  tax: string = '0.00';

  @Field(() => DecimalScalar, { description: 'Σ item price × quantity' })
  @Property({ type: 'decimal', precision: 12, scale: 2, default: 0 })
  cartPrice: string = '0.00';

  @Field(() => DecimalScalar, { description: 'Amount charged for the order' })
  @Property({ type: 'decimal', precision: 12, scale: 2, default: 0 })
  total: string = '0.00';

  @Field({ description: 'IP used to place the order' })
  @Property({ type: 'text', default: '' })
  ip: string = '';

  @Embedded({ entity: () => PostalAddress, prefix: 'shipping_' })
  shippingAddress: PostalAddress = new PostalAddress();

  @Embedded({ entity: () => PostalAddress, prefix: 'billing_' })
  billingAddress: PostalAddress = new PostalAddress();

  @Property({ type: 'text', nullable: true })
  phone: string | null = null;

  @Property({ type: 'text', nullable: true })
  paymentType: string | null = null;

  @Property({ type: 'string', columnType: 'varchar(4)', nullable: true })
  paymentLast4: string | null = null;

  @Property({ type: 'text', default: '' })
  landingPage: string = '';

  @Property({ type: 'text', default: '' })
  referrer: string = '';

  @Property({ type: 'boolean', default: false })
  ipFail: boolean = false;

  @Property({ type: 'boolean', default: false })
  addressFail: boolean = false;

  @Property({ type: 'boolean', default: false })
  zipFail: boolean = false;

  @Property({ type: 'boolean', default: false })
  cvcFail: boolean = false;

  @Field(() => DecimalScalar, { description: 'Amount refunded so far' })
  @Property({ type: 'decimal', precision: 12, scale: 2, default: 0 })
  refunded: string = '0.00';

  @Field({ description: 'Whether a refund can still be made' })
  @Property({ type: 'boolean', default: true })
  refundPossible: boolean = true;

  @Field(() => TimestampScalar, { description: 'When the order was placed' })
  @Property({ type: 'timestamptz', onCreate: () => now() })
  orderDate: Date = now();

  @Field(() => TimestampScalar, { nullable: true, description: 'Null when never updated' })
  @Property({ type: 'timestamptz', nullable: true })
  updatedAt: Date | null = null;

  @Field(() => String, { nullable: true, description: 'Merchant notes, or null' })
  @Property({ type: 'text', nullable: true })
  notes: string | null = null;

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

  @Field(() => [LineItem], { description: 'Line items, in the order they were added' })
  @OneToMany({ entity: () => LineItem, mappedBy: 'order', orderBy: { id: 'asc' } })
  lineItems = new Collection<Rel<LineItem>>(this);

  @Field(() => [Fulfilment], { description: 'Fulfilments, oldest first' })
  @OneToMany({ entity: () => Fulfilment, mappedBy: 'order', orderBy: { id: 'asc' } })
  fulfilments = new Collection<Rel<Fulfilment>>(this);

  @Field(() => [Shipment], { description: 'Shipments, oldest first' })
  @OneToMany({ entity: () => Shipment, mappedBy: 'order', orderBy: { id: 'asc' } })
  shipments = new Collection<Rel<Shipment>>(this);

  @Field(() => [Restock], { description: 'Restocks, oldest first' })
  @OneToMany({ entity: () => Restock, mappedBy: 'order', orderBy: { id: 'asc' } })
  restocks = new Collection<Rel<Restock>>(this);

  /**
   * Its metafields' rows, for the search by a metafield's value (src/domain/metafield-search.ts, a
   * filter of a cached shape). GraphQL and REST read them as the computed `metafields`
   * (src/resolvers/metafield-relations.ts): this relation is no field.
   */
  @OneToMany({ entity: () => Metafield, mappedBy: 'order' })
  metafieldRows = new Collection<Rel<Metafield>>(this);
}

/**
 * What a list of orders sorts and filters by (src/schema/list-fields.ts): `sort` makes the field a
 * value of OrderSortField, `filter` a field of OrderFilter, both on `column` (the field's own
 * property when not given). REST sorts and searches by the same fields (src/rest/resources/order.resource.ts
 * names those it shows otherwise).
 */
export const orderList = listFields(
  Order,
  {
    id: { sort: true, filter: filterBy.anyOf(Int, 'Any of these order ids') },
    displayNumber: {
      column: 'id',
      sort: true,
      filter: filterBy.own(() => [String], 'The number with its display prefix/suffix'),
    },
    email: { sort: true, filter: filterBy.text('Any of these substrings of the e-mail') },
    status: { sort: true, filter: filterBy.anyOf(FulfilmentStatus, 'Any of these fulfilment statuses') },
    paid: { sort: true, filter: filterBy.anyOf(PaymentStatus, 'Any of these payment statuses') },
    shippingDescription: { sort: true, filter: filterBy.text('Any of these substrings of the shipping method') },
    shippingPrice: { sort: true, filter: filterBy.range(DecimalFilter, 'Shipping price') },
    tax: { sort: true, filter: filterBy.range(DecimalFilter, 'Tax') },
    cartPrice: { sort: true, filter: filterBy.range(DecimalFilter, 'Σ item price × quantity') },
    total: { sort: true, filter: filterBy.range(DecimalFilter, 'Total') },
    ip: { sort: true, filter: filterBy.text('Any of these substrings of the IP') },
    customerId: { column: 'customer', sort: true, filter: filterBy.anyOf(Int, 'Any of these customer ids') },
    paymentMethod: {
      column: 'paymentType',
      sort: true,
      filter: filterBy.text('Any of these substrings of the payment type'),
    },
    last4: {
      column: 'paymentLast4',
      sort: true,
      filter: filterBy.text("Any of these substrings of the card's last 4 digits"),
    },
    ipFail: { sort: true, filter: filterBy.anyOf(Boolean, 'Any of these IP check results') },
    addressFail: { sort: true, filter: filterBy.anyOf(Boolean, 'Any of these address check results') },
    zipFail: { sort: true, filter: filterBy.anyOf(Boolean, 'Any of these postal code check results') },
    cvcFail: { sort: true, filter: filterBy.anyOf(Boolean, 'Any of these card security code check results') },
    refunded: { sort: true, filter: filterBy.range(DecimalFilter, 'Amount refunded') },
    refundPossible: { sort: true, filter: filterBy.anyOf(Boolean, 'Any of these refund-possible flags') },
    orderDate: { sort: true, filter: filterBy.range(TimestampFilter, 'When the order was placed') },
    updatedAt: { sort: true, filter: filterBy.range(TimestampFilter, 'When the order last changed') },
    notes: { sort: true, filter: filterBy.text('Any of these substrings of the notes') },
    phone: { sort: true },
    landingPage: { sort: true },
    referrer: { sort: true },
    fullName: { filter: filterBy.own(() => [String], '"first last" of the customer, shipping or billing name') },
    metafields: { filter: filterBy.own(() => [MetafieldFilter], METAFIELDS_FILTER_DESCRIPTION) },
  },
  { filter: 'Order search: strings match any of the given substrings case-insensitively; lists mean any of' },
);

/** The order list's filter, as the domain receives it. */
export type OrderFilter = FilterOf<typeof orderList.fields>;
