// PostGraphile 5 as a peer of the service's /graphql (`npm run bench -- --peer postgraphile`):
// where it lives (bench/peers/postgraphile, its own package.json and lock, never the service's
// dependencies), how it is installed, and the scenarios' operations in PostGraphile's schema with
// the mapping of its answers onto the service's shape. The answers are compared as data: names
// (`rowId` → `id`), connections (`{ nodes }` → lists), and scalar formats (status integer → enum
// name, timestamps → whole epoch seconds) are normalised; the envelope (`extensions`) is not compared.
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { FulfilmentStatus } from '../src/schema/enums/order-status.enums.js';
import type { PeerOperation } from './scenario.js';

export const POSTGRAPHILE_DIR = path.join('bench', 'peers', 'postgraphile');
export const POSTGRAPHILE_ENTRY = path.join(POSTGRAPHILE_DIR, 'server.mjs');

/** Installs the peer from its lock (`npm ci`) when its node_modules is missing; resolves with its version. */
export async function ensurePostGraphileInstalled(root: string, log: (line: string) => void): Promise<string> {
  const dir = path.join(root, POSTGRAPHILE_DIR);
  const installedVersion = () =>
    readFile(path.join(dir, 'node_modules', 'postgraphile', 'package.json'), 'utf8').then(
      (text) => (JSON.parse(text) as { version: string }).version,
    );
  const version = await installedVersion().catch(() => undefined);
  if (version) return version;
  log(`Installing PostGraphile into ${POSTGRAPHILE_DIR} (npm ci)…`);
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  await new Promise<void>((resolve, reject) => {
    const child = spawn(npm, ['ci', '--no-audit', '--no-fund'], { cwd: dir, stdio: ['ignore', 'inherit', 'inherit'] });
    child.once('error', reject);
    child.once('exit', (code) => {
      if (code === 0) resolve();
      else reject(new Error(`npm ci in ${POSTGRAPHILE_DIR} exited with ${code}`));
    });
  });
  return installedVersion();
}

interface Node<T> {
  nodes: T[];
}
interface PeerLineItem {
  rowId: number;
  title: string;
  price: string;
  quantity: number;
}
interface PeerOrder {
  rowId: number;
  total: string;
  email: string;
  status: number;
  lineItems: Node<PeerLineItem>;
}
interface PeerFulfilment {
  rowId: number;
  createdAt: string;
  warehouseId: number;
  fulfilmentItems: Node<{ lineItemId: number; quantity: number }>;
}
interface PeerOrderWithRelations extends PeerOrder {
  customer: PeerCustomer | null;
  fulfilments: Node<PeerFulfilment>;
}
interface PeerCustomer {
  rowId: number;
  email: string;
  firstName: string;
  lastName: string;
}

const LINE_ITEMS = 'lineItems { nodes { rowId title price quantity } }';
const ORDER_FIELDS = `rowId total email status ${LINE_ITEMS}`;
const CUSTOMER_FIELDS = 'rowId email firstName lastName';

const lineItem = (li: PeerLineItem) => ({
  id: li.rowId,
  title: li.title,
  price: li.price,
  counters: { quantity: li.quantity },
});
const order = (o: PeerOrder) => ({
  id: o.rowId,
  total: o.total,
  email: o.email,
  status: FulfilmentStatus[o.status],
  lineItems: o.lineItems.nodes.map(lineItem),
});
const customer = (c: PeerCustomer) => ({ id: c.rowId, email: c.email, firstName: c.firstName, lastName: c.lastName });
/** The service's Timestamp: whole seconds since the epoch, rounded down. */
const epochSeconds = (timestamp: string) => Math.floor(Date.parse(timestamp) / 1000);

function ordersPage(withCount: boolean) {
  return (data: unknown) => {
    const { orders } = data as { orders: { totalCount?: number } & Node<PeerOrder> };
    return { orders: { ...(withCount ? { totalCount: orders.totalCount } : {}), items: orders.nodes.map(order) } };
  };
}

/** Q1: twenty newest orders with their line items and the total count. */
export const PG_Q1: PeerOperation = {
  query: `query Q1 { orders(first: 20, orderBy: ROW_ID_DESC) { totalCount nodes { ${ORDER_FIELDS} } } }`,
  toServiceData: ordersPage(true),
};

/** Q1 without `totalCount`. */
export const PG_Q1_WITHOUT_COUNT: PeerOperation = {
  query: `query Q1WithoutCount { orders(first: 20, orderBy: ROW_ID_DESC) { nodes { ${ORDER_FIELDS} } } }`,
  toServiceData: ordersPage(false),
};

/** Q2: one order with line items, customer and fulfilments; `id(i)` as the service's variables. */
export function pgQ2(id: (i: number) => number): PeerOperation {
  return {
    query: `query Q2($id: Int!) { order(rowId: $id) { rowId email status total ${LINE_ITEMS}
      customer { ${CUSTOMER_FIELDS} }
      fulfilments { nodes { rowId createdAt warehouseId fulfilmentItems { nodes { lineItemId quantity } } } } } }`,
    variables: (i) => ({ id: id(i) }),
    toServiceData: (data) => {
      const o = (data as { order: PeerOrderWithRelations | null }).order;
      if (!o) return { order: null };
      return {
        order: {
          id: o.rowId,
          email: o.email,
          status: FulfilmentStatus[o.status],
          total: o.total,
          lineItems: o.lineItems.nodes.map(lineItem),
          customer: o.customer && customer(o.customer),
          fulfilments: o.fulfilments.nodes.map((f) => ({
            id: f.rowId,
            createdAt: epochSeconds(f.createdAt),
            warehouse: f.warehouseId,
            items: f.fulfilmentItems.nodes.map((x) => ({ id: x.lineItemId, quantity: x.quantity })),
          })),
        },
      };
    },
  };
}

/** Q3: fifty newest products with variants, options and images. */
export const PG_Q3: PeerOperation = {
  query: `query Q3 { products(first: 50, orderBy: ROW_ID_DESC) { nodes { rowId title
    productVariants { nodes { rowId price sku } } productOptions { nodes { title values } }
    productImages { nodes { image { rowId path maxSize } } } } } }`,
  toServiceData: (data) => {
    type Product = {
      rowId: number;
      title: string;
      productVariants: Node<{ rowId: number; price: string; sku: string | null }>;
      productOptions: Node<{ title: string; values: string[] }>;
      productImages: Node<{ image: { rowId: number; path: string; maxSize: number } }>;
    };
    const { products } = data as { products: Node<Product> };
    return {
      products: {
        items: products.nodes.map((p) => ({
          id: p.rowId,
          title: p.title,
          variants: p.productVariants.nodes.map((v) => ({ id: v.rowId, price: v.price, sku: v.sku })),
          options: p.productOptions.nodes.map((o) => ({ title: o.title, values: o.values })),
          images: p.productImages.nodes.map(({ image: i }) => ({ id: i.rowId, path: i.path, maxSize: i.maxSize })),
        })),
      },
    };
  },
};

function customersPage(data: unknown) {
  const { customers } = data as { customers: { totalCount: number } & Node<PeerCustomer> };
  return { customers: { totalCount: customers.totalCount, items: customers.nodes.map(customer) } };
}

/** Q4: customers whose last name contains "ove", with the total count. */
export const PG_Q4: PeerOperation = {
  query: `query Q4 { customers(first: 20, orderBy: ROW_ID_DESC, filter: { lastName: { includesInsensitive: "ove" } })
    { totalCount nodes { ${CUSTOMER_FIELDS} } } }`,
  toServiceData: customersPage,
};

/** Customers whose e-mail contains a term (the users workload's varied searches). */
export function pgCustomerSearch(term: (i: number) => string): PeerOperation {
  return {
    query: `query CustomerSearch($email: String!) {
      customers(first: 20, orderBy: ROW_ID_DESC, filter: { email: { includesInsensitive: $email } })
      { totalCount nodes { ${CUSTOMER_FIELDS} } } }`,
    variables: (i) => ({ email: term(i) }),
    toServiceData: customersPage,
  };
}

/** The service's order sort fields the users workload varies, as PostGraphile's `OrderOrderBy` prefix. */
const ORDER_BY: Record<string, string> = { ID: 'ROW_ID', TOTAL: 'TOTAL', ORDER_DATE: 'ORDER_DATE' };

/**
 * A page of orders in a given sort (the users workload's varied pages and sorts). The service
 * breaks ties by id in the last term's direction; PostGraphile is asked for the same explicitly.
 */
export function pgOrdersPage(
  page: (i: number) => { page: number; field: string; direction: 'ASC' | 'DESC' },
  size: number,
): PeerOperation {
  return {
    query: `query OrdersPage($offset: Int!, $orderBy: [OrderOrderBy!]) {
      orders(first: ${size}, offset: $offset, orderBy: $orderBy) { totalCount nodes { ${ORDER_FIELDS} } } }`,
    variables: (i) => {
      const p = page(i);
      const terms = [`${ORDER_BY[p.field]}_${p.direction}`];
      if (p.field !== 'ID') terms.push(`ROW_ID_${p.direction}`);
      return { offset: (p.page - 1) * size, orderBy: terms };
    },
    toServiceData: ordersPage(true),
  };
}
