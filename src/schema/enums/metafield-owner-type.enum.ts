import { registerEnumType } from 'type-graphql';

/** The kinds of record that keep metafields (docs/decisions.md#custom-data-metafields), stored as their names. */
export enum MetafieldOwnerType {
  ORDER = 'ORDER',
  CUSTOMER = 'CUSTOMER',
  PRODUCT = 'PRODUCT',
  PRODUCT_VARIANT = 'PRODUCT_VARIANT',
  COLLECTION = 'COLLECTION',
}

registerEnumType(MetafieldOwnerType, {
  name: 'MetafieldOwnerType',
  description: 'The kind of record a metafield definition and its values belong to',
  valuesConfig: {
    ORDER: { description: 'Orders (scopes read_orders, write_orders)' },
    CUSTOMER: { description: 'Customers (scopes read_customers, write_customers)' },
    PRODUCT: { description: 'Products (scopes read_products, write_products)' },
    PRODUCT_VARIANT: { description: "Products' variants (scopes read_products, write_products)" },
    COLLECTION: { description: 'Collections (scopes read_collections, write_collections)' },
  },
});
