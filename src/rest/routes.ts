import type { FieldMap } from './fields.js';
import type { RestResource } from './resource.js';
import { FEED_SCOPES } from '../domain/event-read-scopes.js';
import { eventResource } from './resources/event.resource.js';
import { collectionBody, collectionResource } from './resources/collection.resource.js';
import { customerPatchBody, customerResource } from './resources/customer.resource.js';
import { fulfilmentRoutes } from './fulfilment-routes.js';
import { orderAddressBody, orderCustomerBody, orderNotesBody, orderResource } from './resources/order.resource.js';
import { productPatchBody, productResource } from './resources/product.resource.js';
import { shippingCarrierResource } from './resources/shipping-carrier.resource.js';
import { warehouseResource } from './resources/warehouse.resource.js';

interface RouteBase {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** Path under /api/v1, OpenAPI style (`/products/{id}`). */
  path: string;
  resource: RestResource;
  /** The GraphQL root field the route runs. */
  operation: string;
  /**
   * Scope checked before the body is read (403); the start-up check holds it equal to the
   * resolver's @Authorized, which GraphQL enforces (route-checks.ts). A list: any one of them admits.
   */
  scope: string | readonly string[];
  summary: string;
  /** Set on routes that are not in the spec but decided (docs/decisions.md#extensions-beyond-the-spec). */
  extension?: true;
}

/** A paginated list: `page`, `size`, `sort`, `fields`, `expand` → the list wrapper. */
export interface ListRoute extends RouteBase {
  kind: 'list';
  /** Path parameters passed as GraphQL Int arguments: `{ id: 'orderId' }`. */
  pathArgs?: Record<string, string>;
}

/** A list narrowed by the filters in the body; answers the wrapper, or a bare array (`bare`). */
export interface SearchRoute extends RouteBase {
  kind: 'search';
  bare?: boolean;
  /** The filter key the path's `{id}` is added to (`POST /orders/{id}/search`). */
  idFilter?: string;
}

/** Where one record lies in the list: `sort`, `size` → `{ "page": N }`. */
export interface PositionRoute extends RouteBase {
  kind: 'position';
}

/** One record by id: `fields`, `expand` → the record. */
export interface GetRoute extends RouteBase {
  kind: 'get';
}

/** A write: the body (checked against `body`) becomes the mutation's `input`; answers the record. */
export interface WriteRoute extends RouteBase {
  kind: 'write';
  /** The body's fields; omitted for writes without a body. */
  body?: FieldMap;
  /** The body is a JSON array of `body` objects, given to the input field of this name. */
  listBody?: string;
  /** GraphQL input type of `body`. */
  input?: string;
  /** Path parameters passed as GraphQL Int arguments: `{ id: 'orderId', fulfilmentId: 'fulfilmentId' }`. */
  pathArgs: Record<string, string>;
  /**
   * The mutation argument `If-Match` is passed as (the versions its ETags name; `*` passes none):
   * the use case compares it with the record's version under the row lock, 412 when stale. Writes
   * under an order guard the order. The start-up check holds it to the schema both ways: a
   * mutation taking `expectedVersion` must be given it.
   */
  ifMatch?: 'expectedVersion';
  /** 201 for a POST that creates. */
  status: 200 | 201;
}

/**
 * A cursor feed: `after`, `size`, `types`, `fields` → the events after the cursor in the list
 * wrapper, `_links.next` carrying the next cursor (docs/decisions.md#event-feed).
 */
export interface FeedRoute extends RouteBase {
  kind: 'feed';
}

export type RouteSpec = ListRoute | SearchRoute | GetRoute | PositionRoute | WriteRoute | FeedRoute;

/** The scopes a route admits (any one of them). */
export function routeScopes(route: Pick<RouteSpec, 'scope'>): readonly string[] {
  return typeof route.scope === 'string' ? [route.scope] : route.scope;
}

/** Every /api/v1 route, as data. The router, the self-check and the API docs are built from it. */
export const routes: RouteSpec[] = [
  { kind: 'list', method: 'GET', path: '/orders', resource: orderResource, operation: 'orders', scope: 'read_orders', summary: 'List orders' },
  { kind: 'search', method: 'POST', path: '/orders/search', resource: orderResource, operation: 'orders', scope: 'read_orders', summary: 'Search orders (a bare array, with pagination headers)', bare: true },
  {
    kind: 'search', method: 'POST', path: '/orders/{id}/search', resource: orderResource, operation: 'orders', scope: 'read_orders',
    summary: 'Search orders, with the id of the path added as a filter', bare: true, idFilter: 'id',
  },
  { kind: 'get', method: 'GET', path: '/orders/{id}', resource: orderResource, operation: 'order', scope: 'read_orders', summary: 'Read an order' },
  { kind: 'position', method: 'GET', path: '/orders/{id}/page', resource: orderResource, operation: 'orderPage', scope: 'read_orders', summary: 'The page on which the order lies in the list' },
  {
    kind: 'write', method: 'PATCH', path: '/orders/{id}', resource: orderResource, operation: 'updateOrder', scope: 'write_orders',
    summary: 'Edit the notes of an order', body: orderNotesBody, input: 'OrderPatch', pathArgs: { id: 'id' }, ifMatch: 'expectedVersion', status: 200,
  },
  {
    kind: 'write', method: 'PATCH', path: '/orders/{id}/address', resource: orderResource, operation: 'updateOrderAddress', scope: 'write_orders',
    summary: 'Edit the shipping and billing address of an order', body: orderAddressBody, input: 'OrderAddressPatch', pathArgs: { id: 'id' }, ifMatch: 'expectedVersion', status: 200,
  },
  {
    kind: 'write', method: 'PATCH', path: '/orders/{id}/customer', resource: orderResource, operation: 'changeOrderCustomer', scope: 'write_orders',
    summary: "Move an order to another customer (copies that customer's primary address)", body: orderCustomerBody, input: 'OrderCustomerChange', pathArgs: { id: 'id' }, ifMatch: 'expectedVersion', status: 200,
  },
  { kind: 'list', method: 'GET', path: '/products', resource: productResource, operation: 'products', scope: 'read_products', summary: 'List products' },
  { kind: 'get', method: 'GET', path: '/products/{id}', resource: productResource, operation: 'product', scope: 'read_products', summary: 'Read a product' },
  {
    kind: 'write', method: 'PATCH', path: '/products/{id}', resource: productResource, operation: 'updateProduct', scope: 'write_products',
    summary: 'Update a product: scalars, and options, variants, textareas, images, collections, tags replacing the set',
    body: productPatchBody, input: 'ProductPatch', pathArgs: { id: 'id' }, ifMatch: 'expectedVersion', status: 200,
  },
  { kind: 'list', method: 'GET', path: '/collections', resource: collectionResource, operation: 'collections', scope: 'read_collections', summary: 'List collections', extension: true },
  { kind: 'get', method: 'GET', path: '/collections/{id}', resource: collectionResource, operation: 'collection', scope: 'read_collections', summary: 'Read a collection', extension: true },
  {
    kind: 'write', method: 'POST', path: '/collections', resource: collectionResource, operation: 'createCollection', scope: 'write_collections',
    summary: 'Create a collection, manual (type 0) or rule-based (type 1)', body: collectionBody, input: 'CollectionInput', pathArgs: {}, status: 201,
  },
  {
    kind: 'write', method: 'PATCH', path: '/collections/{id}', resource: collectionResource, operation: 'updateCollection', scope: 'write_collections',
    summary: 'Update a collection', body: collectionBody, input: 'CollectionInput', pathArgs: { id: 'id' }, ifMatch: 'expectedVersion', status: 200,
  },
  { kind: 'list', method: 'GET', path: '/shipping-carriers', resource: shippingCarrierResource, operation: 'shippingCarriers', scope: 'read_shipping', summary: 'List shipping carriers' },
  { kind: 'list', method: 'GET', path: '/warehouses', resource: warehouseResource, operation: 'warehouses', scope: 'read_inventory', summary: 'List warehouses', extension: true },
  { kind: 'list', method: 'GET', path: '/customers', resource: customerResource, operation: 'customers', scope: 'read_customers', summary: 'List customers' },
  { kind: 'search', method: 'POST', path: '/customers/search', resource: customerResource, operation: 'customers', scope: 'read_customers', summary: 'Search customers' },
  { kind: 'get', method: 'GET', path: '/customers/{id}', resource: customerResource, operation: 'customer', scope: 'read_customers', summary: 'Read a customer' },
  ...fulfilmentRoutes,
  {
    kind: 'feed', method: 'GET', path: '/events', resource: eventResource, operation: 'events', scope: FEED_SCOPES,
    extension: true,
    summary: 'The event feed: events of the records the token may read, after a cursor, oldest first, in commit order',
  },
  {
    kind: 'write', method: 'PATCH', path: '/customers/{id}', resource: customerResource, operation: 'updateCustomer', scope: 'write_customers',
    summary: 'Update a customer', body: customerPatchBody, input: 'CustomerPatch', pathArgs: { id: 'id' }, ifMatch: 'expectedVersion', status: 200,
  },
];
