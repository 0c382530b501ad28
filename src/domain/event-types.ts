// The names of events, apart from the entity that stores them, so the REST docs can list them.

/** Every event type, by the record it belongs to. Webhook subscriptions choose among these. */
export const EVENT_TYPES = [
  'order.created',
  'order.notes_changed',
  'order.address_changed',
  'order.customer_changed',
  'order.updated',
  'fulfilment.created',
  'fulfilment.updated',
  'fulfilment.deleted',
  'shipment.created',
  'shipment.updated',
  'shipment.deleted',
  'restock.created',
  'product.created',
  'product.updated',
  'product.deleted',
  'customer.created',
  'customer.updated',
  'customer.deleted',
  'customer.erased',
  'collection.created',
  'collection.updated',
  'collection.deleted',
  'inventory.adjusted',
  'bulk_operation.finished',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

/** What each event's `data` holds (REST shape), for the API docs. */
export const EVENT_DATA: Record<string, string> = {
  order:
    'order.created: the new order (id, email, status, paid, total, customer, address, items, ' +
    'order_date); order.notes_changed: {id, notes}; order.address_changed: {id, address}; ' +
    'order.customer_changed: {id, address, email, customer, previous_customer_id}; order.updated: {id, ' +
    'metafields} (the metafields the change set, typed as REST shows them, null for each one deleted), or, ' +
    'when its customer is erased, {id, ip, conversion, payment: {last4}} with the erased values (and email ' +
    'and address on an order still theirs)',
  fulfilment:
    'the fulfilment record (id, warehouse, items, created_at, updated_at) with order_id and ' +
    "the order's status after the change (order_status); for .deleted, the record as it was",
  shipment:
    'the shipment record (id, fulfilment_id, tracking_number, tracking_url, ' +
    'shipping_carrier, items, notify, created_at, updated_at) with order_id and ' +
    'order_status; for .deleted, the record as it was',
  restock: 'the restock record (id, warehouse, items, created_at) with order_id and order_status',
  product:
    '{id} and the fields the change sent, named as the REST body names them (collections, images), prices as ' +
    'numbers (metafields: those set, null for each one deleted; ' +
    "a variant's as variants: [{id, metafields}]); .deleted: {id, title}",
  customer:
    '{id} and the fields the change sent, in REST keys (metafields: those set, null for each one deleted); ' +
    '.deleted: {id, email}; .erased: {id} alone ' +
    "(the customer's personal data was erased, its earlier events' included)",
  collection:
    '{id} and the fields the change sent, in REST keys (metafields: those set, null for each one deleted); ' +
    '.deleted: {id, title}',
  inventory:
    'an adjustment or a level set by hand: {reason, reference, movements: [{id, variant_id, warehouse_id, ' +
    'delta, quantity_after}]} (the movements of fulfilments and restocks come with their own events)',
  bulk_operation:
    'a bulk operation completed, failed or was canceled: {id, status, total_lines, processed_lines, ' +
    'failed_lines, error, created_at, completed_at}; only the token that started it sees it (feed, ' +
    'subscriptions) or is sent it (webhook subscriptions it made)',
};
