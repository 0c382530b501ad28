// The users workload (`npm run bench -- --workload users`): reads as many users send them, not
// one filter and one page repeated. Thousands of distinct search terms for customers and orders,
// pages spread with a long tail over several sorts, and ids drawn at random over the whole store.
// Each request number i draws its values from a deterministic pseudo-random sequence, so every
// side (service, baseline, PostGraphile) is sent the same requests in the same order.
import { FIRST_NAMES, LAST_NAMES } from '../src/seed/vocabulary.js';
import { CUSTOMER_SEARCH, ORDERS_PAGE, Q2 } from './graphql-queries.js';
import { pgCustomerSearch, pgOrdersPage, pgQ2 } from './postgraphile-peer.js';
import { graphqlScenario, type Scenario, uniform } from './scenario.js';

/** How many distinct search terms the workload draws from. */
export const SEARCH_TERMS = 5000;
/** The page size of the workload's lists (also written in ORDERS_PAGE). */
const PAGE_SIZE = 20;
/** Deepest page the workload asks for: a long tail (a few users page far), bounded by the store. */
const DEEPEST_PAGE = 2000;
/** Request numbers whose answers are compared between the sides: a spread, not one request. */
const COMPARE_AT = Array.from({ length: 12 }, (_, k) => k * 97 + 1);

const lower = (s: string) => s.toLowerCase().replace(/\s+/g, '');

type Term = { field: 'email' | 'last_name'; value: string };

/**
 * The search terms, as users type them into a search box: one customer's e-mail by its number
 * (`.4711@`, one match), a first and last name as e-mails spell them (`ada.lovelace`, ~1/256 of
 * the customers), and fragments of a last name (`ovel`, `torv`, also found in e-mails).
 */
export function searchTerms(customers: number): Term[] {
  const terms = new Map<string, Term>();
  for (let k = 0; terms.size < SEARCH_TERMS && k < SEARCH_TERMS * 4; k++) {
    const kind = uniform(k, 11);
    const last = LAST_NAMES[Math.floor(uniform(k, 12) * LAST_NAMES.length)];
    let term: Term;
    if (kind < 0.5) term = { field: 'email', value: `.${1 + Math.floor(uniform(k, 13) * customers)}@` };
    else if (kind < 0.7) {
      const first = FIRST_NAMES[Math.floor(uniform(k, 14) * FIRST_NAMES.length)];
      term = { field: 'email', value: `${lower(first)}.${lower(last)}` };
    } else {
      const length = 3 + Math.floor(uniform(k, 15) * 3);
      const start = Math.floor(uniform(k, 16) * Math.max(1, last.length - length + 1));
      term = { field: 'last_name', value: last.slice(start, start + length) };
    }
    terms.set(`${term.field}:${term.value}`, term);
  }
  return [...terms.values()];
}

/** A page number with a long tail: most users stay on the first pages, a few go far. */
export const pageAt = (i: number, orders: number) =>
  1 + Math.floor(uniform(i, 21) ** 3 * Math.min(DEEPEST_PAGE, Math.ceil(orders / PAGE_SIZE)));

const SORTS = [
  { rest: '', field: 'ID', direction: 'DESC' },
  { rest: 'id', field: 'ID', direction: 'ASC' },
  { rest: '!total', field: 'TOTAL', direction: 'DESC' },
  { rest: 'total', field: 'TOTAL', direction: 'ASC' },
  { rest: '!order_date', field: 'ORDER_DATE', direction: 'DESC' },
  { rest: 'order_date', field: 'ORDER_DATE', direction: 'ASC' },
] as const;
const sortAt = (i: number) => SORTS[Math.floor(uniform(i, 22) * SORTS.length)];

export function userScenarios(size: { orders: number; customers: number }): Scenario[] {
  const terms = searchTerms(size.customers);
  const termAt = (i: number, salt: number) => terms[Math.floor(uniform(i, salt) * terms.length)];
  const emailTerms = terms.filter((t) => t.field === 'email');
  const emailTermAt = (i: number) => emailTerms[Math.floor(uniform(i, 31) * emailTerms.length)].value;
  const randomId = (n: number, salt: number) => (i: number) => 1 + Math.floor(uniform(i, salt) * n);
  const orderId = randomId(size.orders, 41);
  const customerId = randomId(size.customers, 42);
  const list: Scenario[] = [
    {
      name: 'users: POST /customers/search (varied terms)',
      read: true,
      method: 'POST',
      path: () => '/api/v1/customers/search',
      body: (i) => {
        const t = termAt(i, 1);
        return { [t.field]: t.value };
      },
    },
    {
      name: 'users: POST /orders/search (customer id)',
      read: true,
      method: 'POST',
      path: () => '/api/v1/orders/search',
      body: (i) => ({ customer_id: customerId(i) }),
    },
    {
      name: 'users: POST /orders/search (e-mail term)',
      read: true,
      method: 'POST',
      path: () => '/api/v1/orders/search',
      body: (i) => ({ email: emailTermAt(i) }),
    },
    {
      name: 'users: GET /orders (varied sorts and pages)',
      read: true,
      method: 'GET',
      path: (i) => {
        const sort = sortAt(i).rest;
        return `/api/v1/orders?size=${PAGE_SIZE}&page=${pageAt(i, size.orders)}${sort ? `&sort=${sort}` : ''}`;
      },
    },
    {
      name: 'users: GET /orders/{id} (random ids)',
      read: true,
      method: 'GET',
      path: (i) => `/api/v1/orders/${orderId(i)}`,
    },
    graphqlScenario(
      'users: GraphQL customers by e-mail term',
      CUSTOMER_SEARCH,
      (i) => ({ email: [emailTermAt(i)] }),
      pgCustomerSearch(emailTermAt),
    ),
    graphqlScenario(
      'users: GraphQL orders (varied sorts and pages)',
      ORDERS_PAGE,
      (i) => {
        const s = sortAt(i);
        return { page: pageAt(i, size.orders), sort: [{ field: s.field, direction: s.direction }] };
      },
      pgOrdersPage((i) => ({ page: pageAt(i, size.orders), ...sortAt(i) }), PAGE_SIZE),
    ),
    graphqlScenario('users: GraphQL Q2 (random ids)', Q2, (i) => ({ id: orderId(i) }), pgQ2(orderId)),
  ];
  return list.map((s) => ({ ...s, compareAt: COMPARE_AT }));
}
