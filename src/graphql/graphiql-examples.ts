/**
 * The GraphiQL page's example tabs: store-specific operations a new user can run as soon as a
 * token is set. test/graphiql.test.ts validates each against the schema.
 */
export const GRAPHIQL_EXAMPLES: { query: string; variables?: string }[] = [
  {
    query:
      `# Orders partly or fully sent to fulfilment, newest first, with their fulfilments
query OrdersWithFulfilments {
  orders(size: 5, sort: [{ field: ORDER_DATE, direction: DESC }], ` +
      `filter: { status: [PARTIALLY_FULFILLED, FULFILLED] }) {
    totalCount
    items {
      id
      displayNumber
      status
      paid
      total
      lineItems { id title counters { quantity notFulfilled fulfilled shipped } }
      fulfilments { id warehouse createdAt items { id quantity } }
    }
  }
}
`,
  },
  {
    query: `# One product with its options, variants and images
query ProductWithVariants($id: Int!) {
  product(id: $id) {
    id
    title
    price
    options { title values }
    variants { id variant sku price default }
    images { id path }
  }
}
`,
    variables: JSON.stringify({ id: 2 }, null, 2),
  },
  {
    query: `# Customers whose last name contains any of the given strings, with their statistics
query CustomerSearch($lastName: [String!]) {
  customers(size: 10, filter: { lastName: $lastName }, sort: [{ field: LIFETIME_SPENT, direction: DESC }]) {
    totalCount
    items { id email firstName lastName statistics { orderCount lifetimeSpent lastPurchase } }
  }
}
`,
    variables: JSON.stringify({ lastName: ['son'] }, null, 2),
  },
  {
    query: `# A mutation with variables: set the notes of an order
mutation UpdateOrderNotes($id: Int!, $notes: String) {
  updateOrder(id: $id, input: { notes: $notes }) {
    id
    notes
    updatedAt
    version
  }
}
`,
    variables: JSON.stringify({ id: 1, notes: 'Gift wrap, please' }, null, 2),
  },
  {
    query: `# Stock of one variant in every warehouse, and its ledger: every change, newest first, with why and by whom
query InventoryLedger($variantId: Int) {
  inventoryLevels(variantId: $variantId, sort: [{ field: WAREHOUSE_ID }]) {
    items { id warehouseId quantity }
  }
  inventoryMovements(variantId: $variantId, size: 10) {
    totalCount
    items { id warehouseId delta quantityAfter reason reference createdAt actor { name } }
  }
}
`,
    variables: JSON.stringify({ variantId: 1 }, null, 2),
  },
  {
    query: `# Adjust stock by deltas, all or none. With changeFromQuantity, a level that holds any other number
# refuses the whole adjustment (PRECONDITION_FAILED naming the units now): read the levels first.
mutation AdjustInventory($changes: [InventoryChange!]!) {
  adjustInventory(changes: $changes, reason: "received", reference: "PO-1017") {
    variantId
    warehouseId
    quantity
  }
}
`,
    variables: JSON.stringify(
      { changes: [{ variantId: 1, warehouseId: 1, delta: 12, changeFromQuantity: null }] },
      null,
      2,
    ),
  },
  {
    query: `# Custom data (metafields), step 1, once: define a typed metafield of orders (needs write_orders)
mutation DefineMetafield {
  createMetafieldDefinition(
    ownerType: ORDER
    namespace: "erp"
    key: "order_no"
    type: "single_line_text_field"
    name: "ERP order number"
  ) {
    id
    namespace
    key
    type
  }
}
`,
  },
  {
    query: `# Step 2: set metafields on records, up to 25 at once, all or none (each value of its definition's type)
mutation SetMetafields($metafields: [MetafieldsSetInput!]!) {
  metafieldsSet(metafields: $metafields) {
    namespace
    key
    type
    value
    updatedAt
  }
}
`,
    variables: JSON.stringify(
      { metafields: [{ ownerType: 'ORDER', ownerId: 1, namespace: 'erp', key: 'order_no', value: 'A-1017' }] },
      null,
      2,
    ),
  },
  {
    query: `# Step 3: find orders by a metafield's exact value, and read their metafields
query OrdersByMetafield($value: String!) {
  orders(filter: { metafields: [{ namespace: "erp", key: "order_no", value: $value }] }) {
    totalCount
    items {
      id
      metafields { namespace key type value updatedAt }
      metafieldValues
    }
  }
}
`,
    variables: JSON.stringify({ value: 'A-1017' }, null, 2),
  },
  {
    query: `# Irreversible: erase a customer's personal data on request (GDPR art. 17), on the customer and on
# every order of theirs; lines, amounts and statuses stay. Put the customer's id in the variables.
mutation EraseCustomer($id: Int!) {
  eraseCustomer(id: $id) {
    id
    email
    firstName
    lastName
    erasedAt
  }
}
`,
    variables: JSON.stringify({ id: 0 }, null, 2),
  },
  {
    query: `# Live over WebSocket: every order, fulfilment and shipment event as it commits, until Stop.
# Set \`after\` to the last id received to resume without missing one (omit it: only what commits from now on).
subscription OrderEvents($after: Int) {
  events(after: $after, types: ["order.*", "fulfilment.*", "shipment.*"]) {
    id
    type
    orderId
    createdAt
    actor { name }
    data
  }
}
`,
  },
];
