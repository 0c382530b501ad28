import { field } from '../fields.js';
import type { RestResource } from '../resource.js';

/** Warehouses (docs/decisions.md#extensions-beyond-the-spec): `expand=stock` adds the units held per variant. */
export const warehouseResource: RestResource = {
  name: 'Warehouse',
  sortInput: 'WarehouseSort',
  fields: {
    id: field.integer({ sortable: true }),
    title: field.string({ sortable: true }),
  },
  expand: {
    stock: field.list({ variant_id: field.integer(), quantity: field.integer() }),
  },
};
