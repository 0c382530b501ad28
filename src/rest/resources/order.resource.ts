import { type FieldMap, field, INLINE } from '../fields.js';
import type { RestResource } from '../resource.js';
import { addressBlockFields } from './address.fields.js';
import { metafieldsBodyField, metafieldsField } from './metafield.fields.js';

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
    id: field({ description: 'same as the order number' }),
    display_number: field({ description: 'order number with the display prefix/suffix' }),
    email: field(),
    status: field({
      description:
        'fulfilment status, derived from the counters: 0 not sent to fulfilment; 1 partially ' +
        'sent to fulfilment; 2 partially sent to fulfilment and shipped; 3 sent to fulfilment; 4 ' +
        'partially shipped; 5 shipped',
    }),
    paid: field({ description: '0 not paid; 1 paid; -1 partially refunded; -2 fully refunded' }),
    discounts: {
      schema: { type: 'array', items: { type: 'object', description: 'a discount as the shop recorded it' } },
      description: 'discounts applied to the order',
    },
    shipping: field.nested({ description: field(), price: field() }),
    tax: field(),
    total: field(),
    ip: field(),
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
    refunded: field(),
    refund_possible: field(),
    order_date: field(),
    updated_at: field({ description: 'null when never updated' }),
    notes: field(),
  },
  expand: { metafields: metafieldsField },
  // The spec's sort keys of values shown nested; its search keys are the filter's fields snake_cased.
  sortNames: {
    shippingDescription: 'shipping.description',
    shippingPrice: 'shipping.price',
    customerId: 'customer.id',
    paymentMethod: 'payment.type',
    last4: 'payment.last4',
    ipFail: 'risk_level.ip_fail',
    addressFail: 'risk_level.address_fail',
    zipFail: 'risk_level.zip_fail',
    cvcFail: 'risk_level.cvc_fail',
    phone: 'address.phone',
    landingPage: 'conversion.landing_page',
    referrer: 'conversion.referrer',
  },
  filterDescriptions: {
    cart_price: 'sum of item prices × quantities',
    full_name: '"first last" of the customer, shipping or billing name',
  },
};

export const orderNotesBody: FieldMap = { notes: field(), metafields: metafieldsBodyField };
export const orderAddressBody: FieldMap = {
  shipping: field.nested(addressBlockFields),
  billing: field.nested(addressBlockFields),
  phone: field({ description: "the order's phone number; null clears it" }),
};
export const orderCustomerBody: FieldMap = { id: field({ description: 'the new customer' }) };
