import { FEED_SCOPES } from '../domain/event-read-scopes.js';
import { eventResource } from './resources/event.resource.js';
import { collectionBody, collectionResource } from './resources/collection.resource.js';
import { customerPatchBody, customerResource } from './resources/customer.resource.js';
import { fulfilmentRoutes } from './fulfilment-routes.js';
import type { RouteSpec } from './route-spec.js';
import { orderAddressBody, orderCustomerBody, orderNotesBody, orderResource } from './resources/order.resource.js';
import { productPatchBody, productResource } from './resources/product.resource.js';
import { shippingCarrierResource } from './resources/shipping-carrier.resource.js';
import { warehouseResource } from './resources/warehouse.resource.js';

/** Every /api/v1 route, as data. The router, the self-check and the API docs are built from it. */
export const routes: RouteSpec[] = [
  { kind: 'list', method: 'GET', path: '/orders', resource: orderResource, operation: 'orders', scope: 'read_orders', summary: 'List orders' },
  { kind: 'search', method: 'POST', path: '/orders/search', resource: orderResource, operation: 'orders', scope: 'read_orders', summary: 'Search orders (a bare array, with pagination headers)', bare: true },
  {
    kind: 'search', method: 'POST', path: '/orders/{id}/search', resource: orderResource, operation: 'orders', scope: 'read_orders',
    summary: 'Search orders, with the id of the path added as a filter', bare: true, idFilter: 'id',
  },
  // Before `/orders/{id}`: the router tries routes in this order.
  {
    kind: 'export', method: 'GET', path: '/orders/export', resource: orderResource, operation: 'orders',
    scope: 'read_orders', summary: 'Export every order (NDJSON)',
  },
  {
    kind: 'export', method: 'POST', path: '/orders/export', resource: orderResource, operation: 'orders',
    scope: 'read_orders', summary: 'Export the orders matching the search body (NDJSON)', filtered: true,
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
  {
    kind: 'export', method: 'GET', path: '/products/export', resource: productResource, operation: 'products',
    scope: 'read_products', summary: 'Export every product (NDJSON)',
  },
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
  {
    kind: 'export', method: 'GET', path: '/customers/export', resource: customerResource, operation: 'customers',
    scope: 'read_customers', summary: 'Export every customer (NDJSON)',
  },
  {
    kind: 'export', method: 'POST', path: '/customers/export', resource: customerResource, operation: 'customers',
    scope: 'read_customers',
    summary: 'Export the customers matching the search body (NDJSON)', filtered: true,
  },
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
