import { field } from '../fields.js';
import type { RestResource } from '../resource.js';

/** Warehouses (docs/decisions.md#extensions-beyond-the-spec): `expand=stock` adds the units held per variant. */
export const warehouseResource: RestResource = {
  name: 'Warehouse',
  sortInput: 'WarehouseSort',
  fields: {
    id: field({ sortable: true }),
    title: field({ sortable: true }),
  },
  expand: {
    stock: field.nested({ variant_id: field(), quantity: field() }),
  },
};
