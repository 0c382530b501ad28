import type { RouteSpec } from './route-spec.js';
import {
  fulfilmentCreateBody, fulfilmentPatchBody, fulfilmentResource, fulfilmentsChangeBody, shipmentCreateBody, shipmentPatchBody,
  shipmentResource, shipmentsChangeBody,
} from './resources/fulfilment.resource.js';
import { eventResource } from './resources/event.resource.js';
import { orderResource } from './resources/order.resource.js';

const orderArg = { id: 'orderId' };
/** Every write under an order answers the order and compares If-Match with the order's ETag. */
const common = { resource: orderResource, scope: 'write_orders', ifMatch: 'expectedVersion' } as const;

/**
 * Fulfilments and shipments of an order (spec "Fulfilments/Shipments of an order"): each write answers
 * the whole Order.
 */
export const fulfilmentRoutes: RouteSpec[] = [
  {
    kind: 'list', method: 'GET', path: '/orders/{id}/fulfilments', resource: fulfilmentResource, operation: 'orderFulfilments', scope: 'read_orders',
    summary: 'List the fulfilments of an order', pathArgs: orderArg, extension: true,
  },
  {
    kind: 'list', method: 'GET', path: '/orders/{id}/shipments', resource: shipmentResource, operation: 'orderShipments', scope: 'read_orders',
    summary: 'List the shipments of an order', pathArgs: orderArg, extension: true,
  },
  {
    kind: 'list', method: 'GET', path: '/orders/{id}/events', resource: eventResource, operation: 'orderEvents', scope: 'read_orders',
    summary: 'The timeline of an order: every change to it (order, fulfilments, shipments, restocks) ' +
      'with the token that made it', pathArgs: orderArg, extension: true,
  },
  {
    ...common, kind: 'write', method: 'POST', path: '/orders/{id}/fulfilments', operation: 'createFulfilment', summary: 'Send units to fulfilment',
    body: fulfilmentCreateBody, input: 'FulfilmentCreate', pathArgs: orderArg, status: 201,
  },
  {
    ...common, kind: 'write', method: 'PATCH', path: '/orders/{id}/fulfilments', operation: 'updateFulfilments', summary: 'Set the quantities of several fulfilments',
    body: fulfilmentsChangeBody, listBody: 'fulfilments', input: 'FulfilmentsChange', pathArgs: orderArg, status: 200,
  },
  {
    ...common, kind: 'write', method: 'PATCH', path: '/orders/{id}/fulfilments/{fulfilmentId}', operation: 'updateFulfilment',
    summary: 'Set the quantities or the warehouse of a fulfilment', body: fulfilmentPatchBody, input: 'FulfilmentPatch',
    pathArgs: { ...orderArg, fulfilmentId: 'fulfilmentId' }, status: 200,
  },
  {
    ...common, kind: 'write', method: 'DELETE', path: '/orders/{id}/fulfilments/{fulfilmentId}', operation: 'deleteFulfilment',
    summary: 'Unmark a fulfilment (its units return to not fulfilled)', pathArgs: { ...orderArg, fulfilmentId: 'fulfilmentId' }, status: 200,
  },
  {
    ...common, kind: 'write', method: 'POST', path: '/orders/{id}/shipments', operation: 'createShipments', summary: 'Ship units of fulfilments (one shipment or several)',
    body: shipmentCreateBody, input: 'ShipmentsCreate', pathArgs: orderArg, status: 201,
  },
  {
    ...common, kind: 'write', method: 'PATCH', path: '/orders/{id}/shipments', operation: 'updateShipments', summary: 'Change tracking numbers or carriers of several shipments',
    body: shipmentsChangeBody, input: 'ShipmentsChange', pathArgs: orderArg, status: 200,
  },
  {
    ...common, kind: 'write', method: 'PATCH', path: '/orders/{id}/shipments/{shipmentId}', operation: 'updateShipment',
    summary: 'Change the tracking number or carrier of a shipment', body: shipmentPatchBody, input: 'ShipmentPatch',
    pathArgs: { ...orderArg, shipmentId: 'shipmentId' }, status: 200,
  },
  {
    ...common, kind: 'write', method: 'DELETE', path: '/orders/{id}/shipments/{shipmentId}', operation: 'deleteShipment',
    summary: 'Unmark a shipment (its units return to fulfilled)', pathArgs: { ...orderArg, shipmentId: 'shipmentId' }, status: 200,
  },
];
