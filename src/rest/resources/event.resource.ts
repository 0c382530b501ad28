import { field } from '../fields.js';
import type { RestResource } from '../resource.js';

/** Events of the order timeline (docs/decisions.md#order-timeline), listed by GET /orders/{id}/events. */
export const eventResource: RestResource = {
  name: 'Event',
  sortInput: 'EventSort',
  fields: {
    id: field({
      description: 'increasing in the order changes were made; the webhook de-duplication key',
    }),
    type: field({
      description: 'e.g. order.created, order.address_changed, fulfilment.created, shipment.deleted, restock.created',
    }),
    created_at: field(),
    actor: field.nested({ token_id: field(), name: field() }, { description: 'the API token that made the change' }),
    data: field({
      description: 'the changed record (or the fields changed) in its REST shape: snake_case keys, Unix seconds',
    }),
  },
  expand: {},
};
