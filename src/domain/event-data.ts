// The data of events and webhooks: the changed record in its REST shape (snake_case keys, Unix
// seconds, money as the REST layer shows it), built by plain mappers from the entities the change
// already holds, so recording an event costs no query. The keys match src/rest/resources.
import type { Fulfilment } from '../entities/fulfilment.entity.js';
import type { Order } from '../entities/order.entity.js';
import type { PostalAddress } from '../entities/postal-address.embeddable.js';
import type { Restock } from '../entities/restock.entity.js';
import type { Shipment } from '../entities/shipment.entity.js';

type Items = { lineItem: { id: number }; quantity: number }[];

export const seconds = (date: Date | null | undefined): number | null =>
  date ? Math.floor(new Date(date).getTime() / 1000) : null;

const items = (list: Items) =>
  list.map((i) => ({ id: i.lineItem.id, quantity: i.quantity })).sort((a, b) => a.id - b.id);

/** A fulfilment record (docs/decisions.md#records) with the order it belongs to and the order's new status. */
export function fulfilmentData(order: Order, fulfilment: Fulfilment, held: Items): Record<string, unknown> {
  return {
    order_id: order.id,
    order_status: order.status,
    id: fulfilment.id,
    warehouse: fulfilment.warehouse?.id ?? null,
    items: items(held),
    created_at: seconds(fulfilment.createdAt),
    updated_at: seconds(fulfilment.updatedAt),
  };
}

/** A shipment record (docs/decisions.md#records); `trackingUrl` is the carrier's URL + the number. */
export function shipmentData(
  order: Order,
  shipment: Shipment,
  carried: Items,
  trackingUrl: string,
): Record<string, unknown> {
  return {
    order_id: order.id,
    order_status: order.status,
    id: shipment.id,
    fulfilment_id: shipment.fulfilment.id,
    tracking_number: shipment.trackingNumber,
    tracking_url: trackingUrl,
    shipping_carrier: shipment.carrier.id,
    items: items(carried),
    notify: shipment.notify,
    created_at: seconds(shipment.createdAt),
    updated_at: seconds(shipment.updatedAt),
  };
}

export function restockData(order: Order, restock: Restock, taken: Items): Record<string, unknown> {
  return {
    order_id: order.id,
    order_status: order.status,
    id: restock.id,
    warehouse: restock.warehouse.id,
    items: items(taken),
    created_at: seconds(restock.createdAt),
  };
}

export function addressBlock(block: PostalAddress): Record<string, unknown> {
  return {
    first_name: block.firstName,
    last_name: block.lastName,
    company: block.company,
    street: block.street,
    suite: block.suite,
    city: block.city,
    country: block.country,
    state: block.state,
    zip: block.zip,
  };
}

/** The order's `address` as REST shows it. */
export function orderAddressData(order: Order): Record<string, unknown> {
  return {
    id: order.id,
    address: {
      shipping: addressBlock(order.shippingAddress),
      billing: addressBlock(order.billingAddress),
      phone: order.phone,
    },
  };
}

/**
 * Input fields REST's bodies send under another key than their snake_case (the body maps of
 * src/rest/resources: `collections` for `collectionIds`, …). test/event-data-keys.test.ts holds this
 * to every write route's body, so an event's data names a field as the REST body did.
 */
export const REST_BODY_NAMES: Readonly<Record<string, string>> = {
  collectionIds: 'collections',
  imageIds: 'images',
  imageId: 'image',
  manualProductIds: 'match_products',
};

/** Money a REST record shows as a JSON number (a product's and its variants' prices, per the spec). */
const NUMBER_FIELDS = new Set(['price', 'comparePrice']);

/**
 * GraphQL input keys → the REST keys they come from (their snake_case, or REST_BODY_NAMES), deeply,
 * and a price as the JSON number REST shows: an event's data names and writes a change as the
 * REST body that made it would (docs/decisions.md#integrations: `data` in its REST shape).
 */
export function restKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(restKeys);
  if (value && typeof value === 'object' && !(value instanceof Date)) {
    return Object.fromEntries(
      Object.entries(value)
        .filter(([, v]) => v !== undefined)
        .map(([k, v]) => [
          REST_BODY_NAMES[k] ?? k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`),
          NUMBER_FIELDS.has(k) && typeof v === 'string' ? Number(v) : restKeys(v),
        ]),
    );
  }
  return value;
}
