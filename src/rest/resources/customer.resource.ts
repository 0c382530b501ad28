import { camelCase, type FieldMap, field } from '../fields.js';
import type { FilterMap } from '../filters.js';
import type { RestResource } from '../resource.js';
import { retyped } from '../type-schemas.js';
import { addressBlockFields, billingBlockFields } from './address.fields.js';

const sortable = { sortable: true } as const;

/** Whole units, rounded half up, from a decimal string: no float touches the amount. */
export function roundedUnits(decimal: string): number {
  const negative = decimal.startsWith('-');
  const [whole, fraction = '0'] = decimal.replace('-', '').split('.');
  const units = Number(whole) + (Number(fraction.padEnd(2, '0').slice(0, 1)) >= 5 ? 1 : 0);
  return negative ? -units : units;
}

const blockFilters = (kind: 'shipping' | 'billing', keys: string[]): FilterMap =>
  Object.fromEntries(keys.map((key) => [`address.${kind}.${key}`, { gql: `${kind}.${camelCase(key)}` }]));

/** The spec's Customer; `orders`, `statistics` and `tags` are derived from the customer's orders. */
export const customerResource: RestResource = {
  name: 'Customer',
  versioned: 'Customer',
  sortInput: 'CustomerSort',
  filterInput: 'CustomerFilter',
  fields: {
    id: field(sortable),
    email: field(sortable),
    first_name: field(sortable),
    last_name: field(sortable),
    address: field.nested(
      {
        id: field(),
        shipping: field.nested(addressBlockFields),
        billing: field.nested(billingBlockFields),
        phone: field(),
      },
      { gql: 'addresses', description: 'the first is the primary address' },
    ),
    payment: field.nested({ type: field(), last4: field() }, { gql: 'paymentMethods' }),
    notes: field(sortable),
    statistics: field.nested({
      last_purchase: field(),
      order_count: field(),
      lifetime_spent: field({
        out: roundedUnits,
        shown: 'wholeUnits',
        schema: (graphql) => retyped(graphql, 'integer'),
        description: 'whole units, rounded',
      }),
    }),
    orders: field({ gql: 'orderIds', description: "the customer's order ids" }),
    tags: field({ description: 'tags of all products bought' }),
    created_at: field(sortable),
    updated_at: field.timestampOrZero(sortable),
    erased_at: field({ description: 'when its personal data was erased (POST /customers/{id}/erase); null if not' }),
  },
  expand: {},
  extraSorts: {
    'statistics.order_count': 'orderCount',
    'statistics.lifetime_spent': 'lifetimeSpent',
    'statistics.last_purchase': 'lastPurchase',
  },
  filters: {
    email: {},
    first_name: {},
    last_name: {},
    notes: {},
    'address.phone': { gql: 'phone' },
    ...blockFilters('shipping', [
      'first_name',
      'last_name',
      'company',
      'street',
      'suite',
      'city',
      'country',
      'state',
      'zip',
    ]),
    ...blockFilters('billing', ['first_name', 'last_name', 'street', 'suite', 'city', 'country', 'state', 'zip']),
    'address.shipping_country': { gql: 'shippingCountry' },
    orders: { description: 'customers having any of these order ids' },
    order_count: {},
  },
};

/** PATCH /customers/{id}: all optional; `address` is merged into the primary address. */
export const customerPatchBody: FieldMap = {
  email: field(),
  first_name: field(),
  last_name: field(),
  notes: field(),
  address: field.nested({
    shipping: field.nested(addressBlockFields),
    billing: field.nested(billingBlockFields),
    phone: field(),
  }),
};
