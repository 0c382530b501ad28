import { type FieldMap, field } from '../fields.js';

/** An image as every resource shows it. */
export const imageFields: FieldMap = {
  id: field(),
  path: field({ description: 'absolute URL' }),
  max_size: field({ description: 'internal use' }),
};
