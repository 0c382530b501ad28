import { field, type FieldMap } from '../fields.js';
import type { RestResource } from '../resource.js';

const recordItems = () => field.list({ id: field.integer({ description: 'line item id' }), quantity: field.integer() });
const requiredItems = (sub: FieldMap) => field.required(field.list(sub));
const recordItem: FieldMap = { id: field.required(field.integer({ description: 'line item id of the order' })), quantity: field.required(field.integer()) };

/** Fulfilment records (docs/decisions.md#records), listed by GET /orders/{id}/fulfilments. */
export const fulfilmentResource: RestResource = {
  name: 'Fulfilment',
  sortInput: 'FulfilmentSort',
  fields: {
    id: field.integer({ sortable: true }),
    warehouse: field.nullable(field.integer()),
    items: recordItems(),
    created_at: field.timestamp({ sortable: true }),
    updated_at: field.nullable(field.timestamp({ sortable: true })),
  },
  expand: {},
};

/** Shipment records (docs/decisions.md#records), listed by GET /orders/{id}/shipments. */
export const shipmentResource: RestResource = {
  name: 'Shipment',
  sortInput: 'ShipmentSort',
  fields: {
    id: field.integer({ sortable: true }),
    fulfilment_id: field.integer(),
    tracking_number: field.string({ sortable: true }),
    tracking_url: field.string({ description: 'carrier URL + tracking number' }),
    shipping_carrier: field.integer(),
    items: recordItems(),
    notify: field.boolean(),
    created_at: field.timestamp({ sortable: true }),
    updated_at: field.nullable(field.timestamp({ sortable: true })),
  },
  expand: {},
};

export const fulfilmentCreateBody: FieldMap = {
  items: requiredItems({ ...recordItem, warehouse: field.integer({ description: 'required when the product tracks inventory' }) }),
};

/** One element of PATCH /orders/{id}/fulfilments (the body is an array of these). */
export const fulfilmentsChangeBody: FieldMap = {
  id: field.required(field.integer({ description: 'the fulfilment' })),
  items: requiredItems(recordItem),
};

export const fulfilmentPatchBody: FieldMap = {
  items: field.list(recordItem, { description: 'absolute quantities; 0 removes a line; unlisted lines stay' }),
  warehouse: field.integer(),
};

const shipmentFields: FieldMap = {
  fulfilment_id: field.required(field.integer()),
  tracking_number: field.required(field.string()),
  shipping_carrier: field.required(field.integer({ description: 'carrier id' })),
  items: field.list(recordItem, { description: 'omitted: everything the fulfilment holds unshipped' }),
};

export const shipmentCreateBody: FieldMap = {
  data: field.required(field.oneOrMany(shipmentFields, { description: 'one shipment, or an array of them' })),
  notify: field.boolean({ description: 'e-mail the customer' }),
};

export const shipmentsChangeBody: FieldMap = {
  data: field.required(field.list({ id: field.required(field.integer()), tracking_number: field.string(), shipping_carrier: field.integer() })),
  notify: field.boolean(),
};

export const shipmentPatchBody: FieldMap = {
  data: field.required(field.object({ tracking_number: field.string(), shipping_carrier: field.integer() })),
  notify: field.boolean(),
};
