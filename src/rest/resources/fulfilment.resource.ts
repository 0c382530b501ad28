import { type FieldMap, field } from '../fields.js';
import type { RestResource } from '../resource.js';

const recordItems = () => field.nested({ id: field({ description: 'line item id' }), quantity: field() });
const recordItem: FieldMap = { id: field({ description: 'line item id of the order' }), quantity: field() };

/** Fulfilment records (docs/decisions.md#records), listed by GET /orders/{id}/fulfilments. */
export const fulfilmentResource: RestResource = {
  name: 'Fulfilment',
  sortInput: 'FulfilmentSort',
  fields: {
    id: field(),
    warehouse: field(),
    items: recordItems(),
    created_at: field(),
    updated_at: field(),
  },
  expand: {},
};

/** Shipment records (docs/decisions.md#records), listed by GET /orders/{id}/shipments. */
export const shipmentResource: RestResource = {
  name: 'Shipment',
  sortInput: 'ShipmentSort',
  fields: {
    id: field(),
    fulfilment_id: field(),
    tracking_number: field(),
    tracking_url: field({ description: 'carrier URL + tracking number' }),
    shipping_carrier: field(),
    items: recordItems(),
    notify: field(),
    created_at: field(),
    updated_at: field(),
  },
  expand: {},
};

export const fulfilmentCreateBody: FieldMap = {
  items: field.nested({
    ...recordItem,
    warehouse: field({ description: 'required when the product tracks inventory' }),
  }),
};

/** One element of PATCH /orders/{id}/fulfilments (the body is an array of these). */
export const fulfilmentsChangeBody: FieldMap = {
  id: field({ description: 'the fulfilment' }),
  items: field.nested(recordItem),
};

export const fulfilmentPatchBody: FieldMap = {
  items: field.nested(recordItem, { description: 'absolute quantities; 0 removes a line; unlisted lines stay' }),
  warehouse: field(),
};

const shipmentFields: FieldMap = {
  fulfilment_id: field(),
  tracking_number: field(),
  shipping_carrier: field({ description: 'carrier id' }),
  items: field.nested(recordItem, { description: 'omitted: everything the fulfilment holds unshipped' }),
};

export const shipmentCreateBody: FieldMap = {
  data: field.oneOrMany(shipmentFields, { description: 'one shipment, or an array of them' }),
  notify: field({ description: 'e-mail the customer' }),
};

export const shipmentsChangeBody: FieldMap = {
  data: field.nested({ id: field(), tracking_number: field(), shipping_carrier: field() }),
  notify: field(),
};

export const shipmentPatchBody: FieldMap = {
  data: field.nested({ tracking_number: field(), shipping_carrier: field() }),
  notify: field(),
};
