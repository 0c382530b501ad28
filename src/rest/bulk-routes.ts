import { BULK_SCOPES } from '../domain/bulk-operation.js';
import { bulkOperationResource } from './resources/bulk-operation.resource.js';
import type { RouteSpec } from './route-spec.js';

const common = { resource: bulkOperationResource, scope: BULK_SCOPES, extension: true } as const;

/**
 * Reading and canceling bulk operations (docs/decisions.md#bulk-writes). Uploading a file and
 * reading its results are NDJSON streams, not GraphQL operations: src/bulk/bulk-http.ts serves them.
 */
export const bulkOperationRoutes: RouteSpec[] = [
  {
    ...common,
    kind: 'list',
    method: 'GET',
    path: '/bulk-operations',
    operation: 'bulkOperations',
    summary: 'List the bulk operations this token started',
  },
  {
    ...common,
    kind: 'get',
    method: 'GET',
    path: '/bulk-operations/{id}',
    operation: 'bulkOperation',
    summary: 'Read a bulk operation of this token: its status and counts',
  },
  {
    ...common,
    kind: 'write',
    method: 'POST',
    path: '/bulk-operations/{id}/cancel',
    operation: 'cancelBulkOperation',
    summary:
      'Cancel a bulk operation: the line under way is finished, no later line starts; canceling again ' +
      'answers the same, a completed or failed operation is a 409',
    pathArgs: { id: 'id' },
    status: 200,
  },
];

/**
 * The bulk routes src/bulk/bulk-http.ts serves itself (NDJSON streams, outside the table), by method
 * and path: the router counts them among a path's methods, so its 405s name them in `Allow`.
 */
export const BULK_STREAM_ROUTES: readonly { method: string; path: string }[] = [
  { method: 'POST', path: '/bulk-operations' },
  { method: 'POST', path: '/bulk-operations/uploads' },
  { method: 'GET', path: '/bulk-operations/{id}/results' },
];
