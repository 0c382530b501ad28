import { type FieldMap, field } from '../fields.js';

/** An address block (orders' and customers' shipping and billing), shown and written alike. */
export const addressBlockFields: FieldMap = {
  first_name: field(),
  last_name: field(),
  company: field(),
  street: field(),
  suite: field(),
  city: field(),
  country: field({ description: 'ISO 3166-1 alpha-2' }),
  state: field({ description: 'subdivision part of ISO 3166-2' }),
  zip: field(),
};

/** The customers' billing block: the spec's samples omit company, so it is neither shown nor taken. */
export const billingBlockFields: FieldMap = Object.fromEntries(
  Object.entries(addressBlockFields).filter(([key]) => key !== 'company'),
);
