import { type FieldMap, field, INLINE } from '../fields.js';
import type { RestResource } from '../resource.js';
import { addressBlockFields } from './address.fields.js';

const sortable = { sortable: true } as const;
const recordItems = field.nested({ id: field({ description: 'line item id' }), quantity: field() });

/** LineItem (`items[].data`): the product as bought. Money as strings with two decimals. */
const lineItemFields: FieldMap = {
  id: field(),
  product_id: field(),
  title: field(),
  is_multi: field(),
  type: field(),
  is_giftcard: field(),
  shipping_weight: field(),
  vendor: field(),
  auto_fulfilment: field(),
  track_inventory: field(),
  sku: field(),
  price: field(),
  compare_price: field(),
  image: field(),
  image_max_size: field(),
  variant: field.nested({ id: field(), variant: field() }),
};

const counters: FieldMap = {
  quantity: field(),
  not_fulfilled: field(),
  fulfilled: field(),
  shipped: field(),
  restocked: field(),
};

/**
 * The spec's Order (docs/decisions.md#spec-order), with the fulfilment, shipment and restock
 * records (docs/decisions.md#records). `status` and `paid` are GraphQL enums of the spec's integer
 * codes: REST shows (and filters by) the codes.
 */
export const orderResource: RestResource = {
  name: 'Order',
  versioned: 'Order',
  sortInput: 'OrderSort',
  filterInput: 'OrderFilter',
  fields: {
    id: field({ ...sortable, description: 'same as the order number' }),
    display_number: field({ ...sortable, description: 'order number with the display prefix/suffix' }),
    email: field(sortable),
    status: field({
      ...sortable,
      description:
        'fulfilment status, derived from the counters: 0 not sent to fulfilment; 1 partially ' +
        'sent to fulfilment; 2 partially sent to fulfilment and shipped; 3 sent to fulfilment; 4 ' +
        'partially shipped; 5 shipped',
    }),
    paid: field({ ...sortable, description: '0 not paid; 1 paid; -1 partially refunded; -2 fully refunded' }),
    discounts: {
      schema: { type: 'array', items: { type: 'object', description: 'a discount as the shop recorded it' } },
      description: 'discounts applied to the order',
    },
    shipping: field.nested({ description: field(), price: field() }),
    tax: field(sortable),
    total: field(sortable),
    ip: field(sortable),
    items: field.nested(
      { data: field.nested(lineItemFields, { gql: INLINE }), status: field.nested(counters, { gql: 'counters' }) },
      { gql: 'lineItems' },
    ),
    fulfilments: field.nested({
      id: field(),
      warehouse: field(),
      items: recordItems,
      created_at: field(),
      updated_at: field(),
    }),
    shipments: field.nested({
      id: field(),
      fulfilment_id: field(),
      tracking_number: field(),
      tracking_url: field(),
      shipping_carrier: field(),
      items: recordItems,
      notify: field(),
      created_at: field(),
      updated_at: field(),
    }),
    restocks: field.nested({ id: field(), warehouse: field(), items: recordItems, created_at: field() }),
    customer: field.nested({ id: field(), email: field(), first_name: field(), last_name: field() }),
    address: field.nested({
      shipping: field.nested(addressBlockFields),
      billing: field.nested(addressBlockFields),
      phone: field(),
    }),
    payment: field.nested({ type: field(), last4: field() }),
    conversion: field.nested({ landing_page: field(), referrer: field() }),
    risk_level: field.nested({ ip_fail: field(), address_fail: field(), zip_fail: field(), cvc_fail: field() }),
    refunded: field(sortable),
    refund_possible: field(sortable),
    order_date: field(sortable),
    updated_at: field({ ...sortable, description: 'null when never updated' }),
    notes: field(sortable),
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
    id: {},
    display_number: {},
    email: {},
    status: {},
    paid: {},
    shipping_description: {},
    shipping_price: {},
    tax: {},
    cart_price: { description: 'sum of item prices × quantities' },
    total: {},
    ip: {},
    customer_id: {},
    payment_method: {},
    last4: {},
    ip_fail: {},
    address_fail: {},
    zip_fail: {},
    cvc_fail: {},
    refunded: {},
    refund_possible: {},
    order_date: {},
    updated_at: {},
    notes: {},
    full_name: { description: '"first last" of the customer, shipping or billing name' },
  },
};

export const orderNotesBody: FieldMap = { notes: field() };
export const orderAddressBody: FieldMap = {
  shipping: field.nested(addressBlockFields),
  billing: field.nested(addressBlockFields),
  phone: field({ description: "the order's phone number; null clears it" }),
};
export const orderCustomerBody: FieldMap = { id: field({ description: 'the new customer' }) };
