import { field, type FieldMap } from '../fields.js';

/** An image as every resource shows it. */
export const imageFields: FieldMap = {
  id: field.integer(),
  path: field.string({ description: 'absolute URL' }),
  max_size: field.integer({ description: 'internal use' }),
};
