import { FulfilmentStatus, PaymentStatus } from '../../schema/enums/order-status.enums.js';
import { field, INLINE, type FieldMap } from '../fields.js';
import type { RestResource } from '../resource.js';
import { addressBlockFields, addressBlockPatch } from './address.fields.js';

const sortable = { sortable: true } as const;
const recordItems = field.list({ id: field.integer({ description: 'line item id' }), quantity: field.integer() });

/** LineItem (`items[].data`): the product as bought. Money as strings with two decimals. */
const lineItemFields: FieldMap = {
  id: field.integer(),
  product_id: field.integer(),
  title: field.string(),
  is_multi: field.boolean(),
  type: field.string(),
  is_giftcard: field.boolean(),
  shipping_weight: field.number(),
  vendor: field.nullable(field.string()),
  auto_fulfilment: field.boolean(),
  track_inventory: field.boolean(),
  sku: field.string(),
  price: field.decimalString(),
  compare_price: field.nullable(field.decimalString()),
  image: field.nullable(field.string()),
  image_max_size: field.integer(),
  variant: field.object({ id: field.integer(), variant: field.strings() }),
};

const counters: FieldMap = {
  quantity: field.integer(),
  not_fulfilled: field.integer(),
  fulfilled: field.integer(),
  shipped: field.integer(),
  restocked: field.integer(),
};

/**
 * The spec's Order (docs/decisions.md#spec-order), with the fulfilment, shipment and restock
 * records (docs/decisions.md#records).
 */
export const orderResource: RestResource = {
  name: 'Order',
  versioned: 'Order',
  sortInput: 'OrderSort',
  filterInput: 'OrderFilter',
  fields: {
    id: field.integer({ ...sortable, description: 'same as the order number' }),
    display_number: field.string({ ...sortable, description: 'order number with the display prefix/suffix' }),
    email: field.string(sortable),
    status: field.integer({
      ...sortable,
      description: 'fulfilment status, derived from the counters: 0 not sent to fulfilment; 1 partially sent to fulfilment; 2 partially sent to fulfilment and shipped; 3 sent to fulfilment; 4 partially shipped; 5 shipped',
      out: (name: keyof typeof FulfilmentStatus) => FulfilmentStatus[name],
    }),
    paid: field.integer({ ...sortable, description: '0 not paid; 1 paid; -1 partially refunded; -2 fully refunded', out: (name: keyof typeof PaymentStatus) => PaymentStatus[name] }),
    discounts: { schema: { type: 'array', items: { type: 'object', description: 'a discount as the shop recorded it' } }, description: 'discounts applied to the order' },
    shipping: field.object({ description: field.string(), price: field.decimalString() }),
    tax: field.decimalString(sortable),
    total: field.decimalString(sortable),
    ip: field.string(sortable),
    items: field.list({ data: field.object(lineItemFields, { gql: INLINE }), status: field.object(counters, { gql: 'counters' }) }, { gql: 'lineItems' }),
    fulfilments: field.list({
      id: field.integer(),
      warehouse: field.nullable(field.integer()),
      items: recordItems,
      created_at: field.timestamp(),
      updated_at: field.nullable(field.timestamp()),
    }),
    shipments: field.list({
      id: field.integer(),
      fulfilment_id: field.integer(),
      tracking_number: field.string(),
      tracking_url: field.string(),
      shipping_carrier: field.integer(),
      items: recordItems,
      notify: field.boolean(),
      created_at: field.timestamp(),
      updated_at: field.nullable(field.timestamp()),
    }),
    restocks: field.list({ id: field.integer(), warehouse: field.integer(), items: recordItems, created_at: field.timestamp() }),
    customer: field.object({ id: field.integer(), email: field.string(), first_name: field.string(), last_name: field.string() }),
    address: field.object({ shipping: field.object(addressBlockFields), billing: field.object(addressBlockFields), phone: field.nullable(field.string()) }),
    payment: field.object({ type: field.nullable(field.string()), last4: field.nullable(field.string()) }),
    conversion: field.object({ landing_page: field.string(), referrer: field.string() }),
    risk_level: field.object({ ip_fail: field.boolean(), address_fail: field.boolean(), zip_fail: field.boolean(), cvc_fail: field.boolean() }),
    refunded: field.decimalString(sortable),
    refund_possible: field.boolean(sortable),
    order_date: field.timestamp(sortable),
    updated_at: field.nullable(field.timestamp({ ...sortable, description: 'null when never updated' })),
    notes: field.nullable(field.string(sortable)),
  },
  expand: {},
  extraSorts: {
    'shipping.description': 'shippingDescription',
    'shipping.price': 'shippingPrice',
    cart_price: 'cartPrice',
    'customer.id': 'customerId',
    'payment.type': 'paymentMethod',
  },
  filters: {
    id: { gql: 'id', kind: 'id' },
    display_number: { gql: 'displayNumber', kind: 'text' },
    email: { gql: 'email', kind: 'text' },
    status: { gql: 'status', kind: 'int', enumOf: FulfilmentStatus },
    paid: { gql: 'paid', kind: 'int', enumOf: PaymentStatus },
    shipping_description: { gql: 'shippingDescription', kind: 'text' },
    shipping_price: { gql: 'shippingPrice', kind: 'money' },
    tax: { gql: 'tax', kind: 'money' },
    cart_price: { gql: 'cartPrice', kind: 'money', description: 'sum of item prices × quantities' },
    total: { gql: 'total', kind: 'money' },
    ip: { gql: 'ip', kind: 'text' },
    customer_id: { gql: 'customerId', kind: 'id' },
    payment_method: { gql: 'paymentMethod', kind: 'text' },
    last4: { gql: 'last4', kind: 'text' },
    ip_fail: { gql: 'ipFail', kind: 'bool' },
    address_fail: { gql: 'addressFail', kind: 'bool' },
    zip_fail: { gql: 'zipFail', kind: 'bool' },
    cvc_fail: { gql: 'cvcFail', kind: 'bool' },
    refunded: { gql: 'refunded', kind: 'money' },
    refund_possible: { gql: 'refundPossible', kind: 'bool' },
    order_date: { gql: 'orderDate', kind: 'timestamp' },
    updated_at: { gql: 'updatedAt', kind: 'timestamp' },
    notes: { gql: 'notes', kind: 'text' },
    full_name: { gql: 'fullName', kind: 'text', description: '"first last" of the customer, shipping or billing name' },
  },
};

export const orderNotesBody: FieldMap = { notes: field.nullable(field.string()) };
export const orderAddressBody: FieldMap = {
  shipping: field.object(addressBlockPatch),
  billing: field.object(addressBlockPatch),
  phone: field.nullable(field.string({ description: "the order's phone number; null clears it" })),
};
export const orderCustomerBody: FieldMap = { id: field.required(field.integer({ description: 'the new customer' })) };
