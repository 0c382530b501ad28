import { field } from '../fields.js';
import type { RestResource } from '../resource.js';

/** The spec's Shipping carrier. */
export const shippingCarrierResource: RestResource = {
  name: 'ShippingCarrier',
  sortInput: 'ShippingCarrierSort',
  fields: {
    id: field({ sortable: true }),
    title: field({ sortable: true }),
    url: field({ sortable: true, description: 'website URL (tracking URL prefix)' }),
    is_deleted: field({ sortable: true }),
  },
  expand: {},
};
