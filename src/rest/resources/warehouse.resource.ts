import { field } from '../fields.js';
import type { RestResource } from '../resource.js';

/** Warehouses (docs/decisions.md#extensions-beyond-the-spec): `expand=stock` adds the units held per variant. */
export const warehouseResource: RestResource = {
  name: 'Warehouse',
  sortInput: 'WarehouseSort',
  fields: {
    id: field(),
    title: field(),
  },
  expand: {
    stock: field.nested({ variant_id: field(), quantity: field() }),
  },
};
