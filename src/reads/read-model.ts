/**
 * The read model: for each GraphQL object type backed by an entity (type name = entity name),
 * the relations its field resolvers serve, as SQL that the read compiler (read-query.ts) nests
 * into the parent's statement when the selection asks for them. PostGraphile's way: one statement
 * per root field, child rows aggregated as JSON arrays, nothing hydrated.
 *
 * `child` and `parent` are table aliases chosen by the compiler. Every fragment here is fixed SQL;
 * nothing a client sends reaches it. A relation's result lands on the row under its own name (a
 * list or a value: the GraphQL field reads it as a property, see build-schema.ts), or as `$name`
 * for a single row, whose name is usually the reference column's too (`Order.customer`), read by a
 * field resolver (see `loaded`).
 */
export type Relation =
  /** Child rows of `type`, in order. */
  | { kind: 'many'; type: string; from: (child: string, parent: string) => string; orderBy: (child: string) => string }
  /** One row of `type`, or null. */
  | { kind: 'one'; type: string; from: (child: string, parent: string) => string }
  /** A JSON value computed in SQL (a list of ids, of tags). */
  | { kind: 'values'; sql: (parent: string) => string };

export interface TypeModel {
  relations?: Record<string, Relation>;
  /** Fields whose resolver needs relations that are not selected by name. */
  needs?: Record<string, string[]>;
  /**
   * The entity properties a field resolver reads from the row (see selected-columns.ts): a row
   * carries only the columns its selection needs. A resolved field not listed reads every column.
   */
  columns?: Record<string, string[]>;
  /** Properties every row of the type carries, whatever is selected (read by a parent's resolver). */
  always?: string[];
}

const childrenOf = (type: string, table: string, key: string, orderBy = (c: string) => `${c}.id`): Relation => ({
  kind: 'many',
  type,
  from: (c, p) => `${table} ${c} where ${c}.${key} = ${p}.id`,
  orderBy,
});
const byPosition = (c: string) => `${c}.position, ${c}.id`;

/** Images linked through a position-ordered link table (`product_image`, `variant_image`, …). */
const linkedImages = (linkTable: string, key: string): Relation => ({
  kind: 'many',
  type: 'Image',
  from: (c, p) => `${linkTable} ${c}_l join image ${c} on ${c}.id = ${c}_l.image_id where ${c}_l.${key} = ${p}.id`,
  orderBy: (c) => `${c}_l.position, ${c}_l.id`,
});

const MANUAL_COLLECTION = 0;

export const READ_MODEL: Record<string, TypeModel> = {
  Order: {
    relations: {
      lineItems: childrenOf('LineItem', 'line_item', 'order_id'),
      fulfilments: childrenOf('Fulfilment', 'fulfilment', 'order_id'),
      shipments: childrenOf('Shipment', 'shipment', 'order_id'),
      restocks: childrenOf('Restock', 'restock', 'order_id'),
      customer: { kind: 'one', type: 'Customer', from: (c, p) => `customer ${c} where ${c}.id = ${p}.customer_id` },
      events: childrenOf('StoreEvent', 'event', 'order_id'),
      // The store's one settings row, for the display number (a one-row probe per order, no extra statement).
      numberFormat: { kind: 'one', type: 'StoreSettings', from: (c) => `store_settings ${c} where ${c}.id = 1` },
    },
    needs: { displayNumber: ['numberFormat'] },
    columns: {
      shipping: ['shippingDescription', 'shippingPrice'],
      address: ['shippingAddress', 'billingAddress', 'phone'],
      payment: ['paymentType', 'paymentLast4'],
      conversion: ['landingPage', 'referrer'],
      riskLevel: ['ipFail', 'addressFail', 'zipFail', 'cvcFail'],
      customer: ['customer', 'email'],
      displayNumber: [],
    },
  },
  LineItem: {
    columns: {
      productId: ['productRef'],
      variant: ['variantRef', 'variantValues'],
      counters: ['quantity', 'notFulfilled', 'fulfilled', 'shipped', 'restocked'],
    },
  },
  Fulfilment: {
    relations: { items: childrenOf('FulfilmentItem', 'fulfilment_item', 'fulfilment_id', (c) => `${c}.line_item_id`) },
    columns: { warehouse: ['warehouse'] },
  },
  // A record's items are shown as { id: the line item, quantity }.
  FulfilmentItem: { always: ['lineItem', 'quantity'] },
  ShipmentItem: { always: ['lineItem', 'quantity'] },
  RestockItem: { always: ['lineItem', 'quantity'] },
  Shipment: {
    relations: {
      items: childrenOf('ShipmentItem', 'shipment_item', 'shipment_id', (c) => `${c}.line_item_id`),
      carrier: { kind: 'one', type: 'ShippingCarrier', from: (c, p) => `shipping_carrier ${c} where ${c}.id = ${p}.carrier_id` },
    },
    needs: { trackingUrl: ['carrier'] },
    columns: { fulfilmentId: ['fulfilment'], shippingCarrier: ['carrier'], trackingUrl: ['trackingNumber'] },
  },
  Restock: {
    relations: { items: childrenOf('RestockItem', 'restock_item', 'restock_id', (c) => `${c}.line_item_id`) },
    columns: { warehouse: ['warehouse'] },
  },
  Customer: {
    relations: {
      addresses: childrenOf('CustomerAddress', 'customer_address', 'customer_id', byPosition),
      paymentMethods: childrenOf('CustomerPaymentMethod', 'customer_payment_method', 'customer_id'),
      orderIds: { kind: 'values', sql: (p) => `coalesce((select json_agg(co.id order by co.id) from orders co where co.customer_id = ${p}.id), '[]'::json)` },
      // The current tags of every product the customer bought (docs/decisions.md#customers), distinct and sorted.
      tags: {
        kind: 'values',
        sql: (p) => `coalesce((select json_agg(distinct ct.tag order by ct.tag)
          from orders co join line_item cli on cli.order_id = co.id join product cp on cp.id = cli.product_id
          cross join lateral unnest(cp.tags) as ct(tag) where co.customer_id = ${p}.id), '[]'::json)`,
      },
    },
    columns: { statistics: ['lastPurchase', 'orderCount', 'lifetimeSpent'] },
  },
  Product: {
    relations: {
      variants: childrenOf('ProductVariant', 'product_variant', 'product_id', byPosition),
      options: childrenOf('ProductOption', 'product_option', 'product_id', byPosition),
      textareas: childrenOf('ProductTextarea', 'product_textarea', 'product_id', byPosition),
      images: linkedImages('product_image', 'product_id'),
      // Product `collections` lists manual collections only (spec); rule-based ones are computed.
      collectionIds: {
        kind: 'values',
        sql: (p) => `coalesce((select json_agg(pcp.collection_id order by pcp.collection_id) from collection_product pcp
          join collection pc on pc.id = pcp.collection_id and pc.type = ${MANUAL_COLLECTION} where pcp.product_id = ${p}.id), '[]'::json)`,
      },
      collections: {
        kind: 'many',
        type: 'Collection',
        from: (c, p) => `collection_product ${c}_l join collection ${c} on ${c}.id = ${c}_l.collection_id and ${c}.type = ${MANUAL_COLLECTION} where ${c}_l.product_id = ${p}.id`,
        orderBy: (c) => `${c}.id`,
      },
    },
  },
  ProductVariant: { relations: { images: linkedImages('variant_image', 'variant_id') }, columns: { productId: ['product'] } },
  ProductOption: { relations: { thumbnails: childrenOf('OptionThumbnail', 'option_thumbnail', 'option_id', byPosition) } },
  OptionThumbnail: { relations: { image: { kind: 'one', type: 'Image', from: (c, p) => `image ${c} where ${c}.id = ${p}.image_id` } } },
  Collection: {
    relations: {
      rules: childrenOf('CollectionRule', 'collection_rule', 'collection_id', byPosition),
      images: linkedImages('collection_image', 'collection_id'),
      manualProductIds: {
        kind: 'values',
        sql: (p) => `coalesce((select json_agg(mcp.product_id order by mcp.position, mcp.id) from collection_product mcp where mcp.collection_id = ${p}.id), '[]'::json)`,
      },
    },
    // Membership is computed from the rules when read (collection-membership.ts).
    // A rule-based collection's version follows its members (domain/collection-version.ts).
    needs: { productIds: ['rules'], products: ['rules'], version: ['rules'] },
    columns: {
      productIds: ['type', 'rulesMatchCondition'],
      products: ['type', 'rulesMatchCondition'],
      version: ['version', 'type', 'rulesMatchCondition'],
    },
  },
  WebhookDelivery: { relations: { attemptLog: childrenOf('WebhookAttempt', 'webhook_attempt', 'delivery_id', (c) => `${c}.attempt`) } },
  Warehouse: { relations: { stock: childrenOf('InventoryLevel', 'inventory_level', 'warehouse_id', (c) => `${c}.variant_id`) } },
  InventoryLevel: { columns: { variantId: ['variant'], warehouseId: ['warehouse'] } },
  StoreEvent: { columns: { actor: ['actorTokenId', 'actorName'], data: ['subject', 'data'] } },
};

/** Each relation name with its kind (a name means one kind in every type; checked once here). */
const KINDS = new Map<string, Relation['kind']>();
for (const [type, model] of Object.entries(READ_MODEL)) {
  for (const [name, relation] of Object.entries(model.relations ?? {})) {
    const kind = KINDS.get(name) ?? relation.kind;
    if ((kind === 'one') !== (relation.kind === 'one')) throw new Error(`read model: ${type}.${name} is a single row here and a list elsewhere`);
    KINDS.set(name, kind);
  }
}

/** The key a relation lands under on its parent's row: its own name, or `$name` for a single row. */
export function relationKey(relation: string): string {
  return KINDS.get(relation) === 'one' ? `$${relation}` : relation;
}

/** Whether a type's field is a list or value relation of the read model, found on the row by its own name. */
export function isRowProperty(type: string, field: string): boolean {
  const kind = READ_MODEL[type]?.relations?.[field]?.kind;
  return kind !== undefined && kind !== 'one';
}

const rowPropertyMethods = new WeakMap<object, Set<string>>();

/**
 * Marks a field resolver that only returns `loaded(row, <its field>)`, a list or value relation as
 * the read model put it on the row: the schema build may then read the field as a property instead
 * of calling the method (src/graphql/build-schema.ts). A resolver that reshapes the relation (a
 * record's items) is not marked.
 */
export function RowProperty(): MethodDecorator {
  return (prototype, method) => {
    let methods = rowPropertyMethods.get(prototype.constructor);
    if (!methods) rowPropertyMethods.set(prototype.constructor, (methods = new Set()));
    methods.add(String(method));
  };
}

/** Whether a resolver class's method is marked `@RowProperty()`. */
export function isMarkedRowProperty(resolverClass: Function, method: string): boolean {
  return rowPropertyMethods.get(resolverClass)?.has(method) ?? false;
}

/** A relation the read model put on a row. Its absence is a bug in the model, never a client's doing. */
export function loaded<T>(row: object, relation: string): T {
  const value = (row as Record<string, unknown>)[relationKey(relation)];
  if (value === undefined) throw new Error(`The read model did not load ${relation} for this row`);
  return value as T;
}

/**
 * A row of the read model, typed as its entity. Field resolvers declare `@Root()` with it: for a
 * parameter declared as a class, type-graphql builds an instance of that class from the row on
 * every call (an entity constructor per field per record); a mapped type reflects as Object,
 * so the row is passed as it is.
 */
export type ReadRow<T extends object> = Readonly<T>;
