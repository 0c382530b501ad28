import { field } from '../fields.js';
import type { JsonSchema } from '../json-schema.js';
import type { RestResource } from '../resource.js';

/** REST shows a status as its lower-case name (`running`), as docs/decisions.md#bulk-writes writes it. */

/**
 * Bulk operations (docs/decisions.md#bulk-writes): `GET /bulk-operations`, `/bulk-operations/{id}`,
 * the answer of a cancel and of an upload. Their lines' results are NDJSON of their own (src/bulk).
 */
export const bulkOperationResource: RestResource = {
  name: 'BulkOperation',
  sortInput: 'BulkOperationSort',
  fields: {
    id: field(),
    status: field({
      shown: 'lowerCase',
      schema: (graphql: JsonSchema) => ({
        type: 'string',
        enum: (graphql.enum as string[]).map((value) => value.toLowerCase()),
      }),
    }),
    total_lines: field(),
    processed_lines: field(),
    failed_lines: field(),
    error: field(),
    created_at: field(),
    completed_at: field(),
  },
  expand: {},
};
