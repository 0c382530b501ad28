import { field } from '../fields.js';
import type { RestResource } from '../resource.js';

/** The spec's Shipping carrier. */
export const shippingCarrierResource: RestResource = {
  name: 'ShippingCarrier',
  sortInput: 'ShippingCarrierSort',
  fields: {
    id: field(),
    title: field(),
    url: field({ description: 'website URL (tracking URL prefix)' }),
    is_deleted: field(),
  },
  expand: {},
};
