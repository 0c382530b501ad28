import { field } from '../fields.js';
import type { RestResource } from '../resource.js';

/** The spec's Shipping carrier. */
export const shippingCarrierResource: RestResource = {
  name: 'ShippingCarrier',
  sortInput: 'ShippingCarrierSort',
  fields: {
    id: field.integer({ sortable: true }),
    title: field.string({ sortable: true }),
    url: field.string({ sortable: true, description: 'website URL (tracking URL prefix)' }),
    is_deleted: field.boolean({ sortable: true }),
  },
  expand: {},
};
