import { field, type FieldMap } from '../fields.js';

const text = () => field.nullable(field.string());

/** An address block (orders' and customers' shipping and billing). */
export const addressBlockFields: FieldMap = {
  first_name: text(),
  last_name: text(),
  company: text(),
  street: text(),
  suite: text(),
  city: text(),
  country: field.nullable(field.string({ description: 'ISO 3166-1 alpha-2' })),
  state: field.nullable(field.string({ description: 'subdivision part of ISO 3166-2' })),
  zip: text(),
};

/** The customers' billing block: the spec's samples omit company. */
export const billingBlockFields: FieldMap = Object.fromEntries(Object.entries(addressBlockFields).filter(([key]) => key !== 'company'));

/** In a request: any of the block's fields, null to clear one. */
export const addressBlockPatch: FieldMap = addressBlockFields;

/** The customers' billing block in a request: no company, as it is never shown. */
export const billingBlockPatch: FieldMap = billingBlockFields;
