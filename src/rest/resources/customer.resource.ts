import { type FieldMap, field } from '../fields.js';
import type { RestResource } from '../resource.js';
import { retyped } from '../type-schemas.js';
import { addressBlockFields, billingBlockFields } from './address.fields.js';
import { metafieldsBodyField, metafieldsField } from './metafield.fields.js';

/** The spec's Customer; `orders`, `statistics` and `tags` are derived from the customer's orders. */
export const customerResource: RestResource = {
  name: 'Customer',
  versioned: 'Customer',
  sortInput: 'CustomerSort',
  filterInput: 'CustomerFilter',
  fields: {
    id: field(),
    email: field(),
    first_name: field(),
    last_name: field(),
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
    notes: field(),
    statistics: field.nested({
      last_purchase: field(),
      order_count: field(),
      lifetime_spent: field({
        shown: 'wholeUnits',
        schema: (graphql) => retyped(graphql, 'integer'),
        description: 'whole units, rounded',
      }),
    }),
    orders: field({ gql: 'orderIds', description: "the customer's order ids" }),
    tags: field({ description: 'tags of all products bought' }),
    created_at: field(),
    updated_at: field.timestampOrZero(),
    erased_at: field({ description: 'when its personal data was erased (POST /customers/{id}/erase); null if not' }),
  },
  expand: { metafields: metafieldsField },
  sortNames: {
    orderCount: 'statistics.order_count',
    lifetimeSpent: 'statistics.lifetime_spent',
    lastPurchase: 'statistics.last_purchase',
  },
  // The address filters are under `address`, as the record shows them; its billing block has no company.
  filterNames: {
    phone: 'address.phone',
    shipping: 'address.shipping',
    billing: 'address.billing',
    'billing.company': null,
    shippingCountry: 'address.shipping_country',
  },
  filterDescriptions: { orders: 'customers having any of these order ids' },
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
  metafields: metafieldsBodyField,
};
