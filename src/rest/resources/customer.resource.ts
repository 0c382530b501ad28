import { field, type FieldMap } from '../fields.js';
import type { FilterMap } from '../filters.js';
import type { RestResource } from '../resource.js';
import { addressBlockFields, addressBlockPatch, billingBlockFields, billingBlockPatch } from './address.fields.js';

const sortable = { sortable: true } as const;

/** Whole units, rounded half up, from a decimal string: no float touches the amount. */
export function roundedUnits(decimal: string): number {
  const negative = decimal.startsWith('-');
  const [whole, fraction = '0'] = decimal.replace('-', '').split('.');
  const units = Number(whole) + (Number(fraction.padEnd(2, '0').slice(0, 1)) >= 5 ? 1 : 0);
  return negative ? -units : units;
}

const blockFilters = (kind: 'shipping' | 'billing', keys: string[]): FilterMap =>
  Object.fromEntries(
    keys.map((key) => [`address.${kind}.${key}`, { gql: `${kind}.${key.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase())}`, kind: 'text' as const }]),
  );

/** The spec's Customer; `orders`, `statistics` and `tags` are derived from the customer's orders. */
export const customerResource: RestResource = {
  name: 'Customer',
  versioned: 'Customer',
  sortInput: 'CustomerSort',
  filterInput: 'CustomerFilter',
  fields: {
    id: field.integer(sortable),
    email: field.string(sortable),
    first_name: field.string(sortable),
    last_name: field.string(sortable),
    address: field.list(
      {
        id: field.integer(),
        shipping: field.object(addressBlockFields),
        billing: field.object(billingBlockFields),
        phone: field.nullable(field.string()),
      },
      { gql: 'addresses', description: 'the first is the primary address' },
    ),
    payment: field.list({ type: field.string(), last4: field.nullable(field.string()) }, { gql: 'paymentMethods' }),
    notes: field.nullable(field.string(sortable)),
    statistics: field.object({
      last_purchase: field.nullable(field.timestamp()),
      order_count: field.integer(),
      lifetime_spent: field.integer({ out: roundedUnits, description: 'whole units, rounded' }),
    }),
    orders: field.integers({ gql: 'orderIds', description: "the customer's order ids" }),
    tags: field.strings({ description: 'tags of all products bought' }),
    created_at: field.timestamp(sortable),
    updated_at: field.timestampOrZero(sortable),
  },
  expand: {},
  extraSorts: {
    'statistics.order_count': 'orderCount',
    'statistics.lifetime_spent': 'lifetimeSpent',
    'statistics.last_purchase': 'lastPurchase',
  },
  filters: {
    email: { gql: 'email', kind: 'text' },
    first_name: { gql: 'firstName', kind: 'text' },
    last_name: { gql: 'lastName', kind: 'text' },
    notes: { gql: 'notes', kind: 'text' },
    'address.phone': { gql: 'phone', kind: 'text' },
    ...blockFilters('shipping', ['first_name', 'last_name', 'company', 'street', 'suite', 'city', 'country', 'state', 'zip']),
    ...blockFilters('billing', ['first_name', 'last_name', 'street', 'suite', 'city', 'country', 'state', 'zip']),
    'address.shipping_country': { gql: 'shippingCountry', kind: 'text' },
    orders: { gql: 'orders', kind: 'id', description: 'customers having any of these order ids' },
    order_count: { gql: 'orderCount', kind: 'int' },
  },
};

/** PATCH /customers/{id}: all optional; `address` is merged into the primary address. */
export const customerPatchBody: FieldMap = {
  email: field.string(),
  first_name: field.string(),
  last_name: field.string(),
  notes: field.nullable(field.string()),
  address: field.object({
    shipping: field.object(addressBlockPatch),
    billing: field.object(billingBlockPatch),
    phone: field.nullable(field.string()),
  }),
};
