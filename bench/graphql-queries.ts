// The GraphQL operations the benchmark sends to `/graphql`, verbatim from the read-path work's
// scenario list (docs/performance.md#running-the-benchmark). The one place they are written: the
// runner sends them, and the baseline recognises each by its exact text. If the schema renames
// something (a sort field, an argument), change it here only.

/** Twenty newest orders with their line items and the total count. */
export const Q1 =
  'query Q1 { orders(size: 20, sort: [{ field: ID, direction: DESC }]) ' +
  '{ totalCount items { id total email status lineItems { id title price counters { quantity } } } } }';

/** Q1 without `totalCount`: a list that does not ask for its count should not pay for it. */
export const Q1_WITHOUT_COUNT =
  'query Q1WithoutCount { orders(size: 20, sort: [{ field: ID, direction: DESC }]) ' +
  '{ items { id total email status lineItems { id title price counters { quantity } } } } }';

/** One order (variable `id`) with line items, customer and fulfilments. */
export const Q2 =
  'query Q2($id: Int!) { order(id: $id) { id email status total lineItems { id title price counters { quantity } } ' +
  'customer { id email firstName lastName } fulfilments { id createdAt warehouse items { id quantity } } } }';

/** Fifty newest products with variants, options and images. */
export const Q3 =
  'query Q3 { products(size: 50, sort: [{ field: ID, direction: DESC }]) ' +
  '{ items { id title variants { id price sku } options { title values } images { id path maxSize } } } }';

/** Customers whose last name contains "ove", with the total count. */
export const Q4 =
  'query Q4 { customers(size: 20, sort: [{ field: ID, direction: DESC }], filter: { lastName: ["ove"] }) ' +
  '{ totalCount items { id email firstName lastName } } }';

/** The users workload: a page of orders in a given sort (variables `page`, `sort`). */
export const ORDERS_PAGE =
  'query OrdersPage($page: Int!, $sort: [OrderSort!]) { orders(size: 20, page: $page, sort: $sort) ' +
  '{ totalCount items { id total email status lineItems { id title price counters { quantity } } } } }';

/** The users workload: customers whose e-mail contains any of the terms (variable `email`), with the total count. */
export const CUSTOMER_SEARCH =
  'query CustomerSearch($email: [String!]) { customers(size: 20, sort: [{ field: ID, direction: DESC }], ' +
  'filter: { email: $email }) ' +
  '{ totalCount items { id email firstName lastName } } }';
