import { field } from '../fields.js';
import type { RestResource } from '../resource.js';

/** Events of the order timeline (docs/decisions.md#order-timeline), listed by GET /orders/{id}/events. */
export const eventResource: RestResource = {
  name: 'Event',
  sortInput: 'EventSort',
  fields: {
    id: field.integer({ sortable: true, description: 'increasing in the order changes were made; the webhook de-duplication key' }),
    type: field.string({ sortable: true, description: 'e.g. order.created, order.address_changed, fulfilment.created, shipment.deleted, restock.created' }),
    created_at: field.timestamp({ sortable: true }),
    actor: field.nullable(field.object({ token_id: field.integer(), name: field.string() }, { description: 'the API token that made the change' })),
    data: { schema: { type: 'object', additionalProperties: true, description: 'the changed record (or the fields changed) in its REST shape: snake_case keys, Unix seconds' } },
  },
  expand: {},
};
