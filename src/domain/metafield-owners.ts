import type { EntityManager } from '@mikro-orm/postgresql';
import { runPrepared } from '../db/prepared-statements.js';
import { MetafieldOwnerType } from '../schema/enums/metafield-owner-type.enum.js';
import { lockCatalogueRows } from './catalogue-locks.js';
import { lockCustomers } from './customer-lock.js';
import { ConflictError } from './errors.js';
import type { EventSubject, EventType } from './events.js';

/**
 * What each kind of record that keeps metafields is to them (docs/decisions.md#custom-data-metafields):
 * where its values point from, the scopes that read and write them, and whose version (ETag) a
 * change moves and whose event records it: a variant's are its product's, as its ETag is.
 */
export interface MetafieldOwner {
  type: MetafieldOwnerType;
  /** The record's name in messages (`Order 7`). */
  record: string;
  /** The owner's table, and the value table's column that references it (fixed names, never input). */
  table: 'orders' | 'customer' | 'product' | 'product_variant' | 'collection';
  column: 'order_id' | 'customer_id' | 'product_id' | 'product_variant_id' | 'collection_id';
  readScope: string;
  writeScope: string;
  /** The versioned record a change moves and reports: the record itself, or a variant's product. */
  versioned: 'orders' | 'customer' | 'product' | 'collection';
  event: EventType;
}

export const METAFIELD_OWNERS: Readonly<Record<MetafieldOwnerType, MetafieldOwner>> = {
  [MetafieldOwnerType.ORDER]: {
    type: MetafieldOwnerType.ORDER,
    record: 'Order',
    table: 'orders',
    column: 'order_id',
    readScope: 'read_orders',
    writeScope: 'write_orders',
    versioned: 'orders',
    event: 'order.updated',
  },
  [MetafieldOwnerType.CUSTOMER]: {
    type: MetafieldOwnerType.CUSTOMER,
    record: 'Customer',
    table: 'customer',
    column: 'customer_id',
    readScope: 'read_customers',
    writeScope: 'write_customers',
    versioned: 'customer',
    event: 'customer.updated',
  },
  [MetafieldOwnerType.PRODUCT]: {
    type: MetafieldOwnerType.PRODUCT,
    record: 'Product',
    table: 'product',
    column: 'product_id',
    readScope: 'read_products',
    writeScope: 'write_products',
    versioned: 'product',
    event: 'product.updated',
  },
  [MetafieldOwnerType.PRODUCT_VARIANT]: {
    type: MetafieldOwnerType.PRODUCT_VARIANT,
    record: 'ProductVariant',
    table: 'product_variant',
    column: 'product_variant_id',
    readScope: 'read_products',
    writeScope: 'write_products',
    versioned: 'product',
    event: 'product.updated',
  },
  [MetafieldOwnerType.COLLECTION]: {
    type: MetafieldOwnerType.COLLECTION,
    record: 'Collection',
    table: 'collection',
    column: 'collection_id',
    readScope: 'read_collections',
    writeScope: 'write_collections',
    versioned: 'collection',
    event: 'collection.updated',
  },
};

/** The event subject of a versioned record (an order's is its own timeline). */
export function versionedSubject(versioned: MetafieldOwner['versioned'], id: number): EventSubject {
  switch (versioned) {
    case 'orders':
      return { subject: 'order', subjectId: id, orderId: id };
    default:
      return { subject: versioned, subjectId: id };
  }
}

/** A statement in the caller's transaction (arrays bound as arrays). */
const run = <T>(em: EntityManager, sql: string, params: readonly unknown[] = []) => runPrepared<T>(em, sql, params);

/** Which product each variant belongs to (those that exist). */
export async function productsOfVariants(em: EntityManager, ids: readonly number[]): Promise<Map<number, number>> {
  if (!ids.length) return new Map();
  const rows = await run<{ id: number; product_id: number }>(
    em,
    'select id, product_id from product_variant where id = any(?::int[])',
    [[...new Set(ids)]],
  );
  return new Map(rows.map((row) => [row.id, row.product_id]));
}

/**
 * Locks the versioned records a metafield write changes, in the store's one lock order: orders
 * (as lockOrder does), then the catalogue's order (collections, customers, products;
 * catalogue-locks.ts). Returns the ids found of each. When values are set (`setting`), an erased
 * customer is refused, as any write to it is (docs/decisions.md#erasing-a-customer), and so is an
 * order of one; deleting puts no personal data back, and goes through.
 */
export async function lockVersioned(
  em: EntityManager,
  ids: Readonly<Record<MetafieldOwner['versioned'], readonly number[]>>,
  { setting }: { setting: boolean },
): Promise<Record<MetafieldOwner['versioned'], Set<number>>> {
  const sorted = (list: readonly number[]) => [...new Set(list)].sort((a, b) => a - b);
  const orders = sorted(ids.orders).length
    ? await run<{ id: number; customer_id: number }>(
        em,
        'select id, customer_id from orders where id = any(?::int[]) order by id for update',
        [sorted(ids.orders)],
      )
    : [];
  const collections = await lockCatalogueRows(em, 'collection', ids.collection);
  const customerIds = sorted(ids.customer);
  // An erased customer's orders take no new personal data either (what an integration keeps on an
  // order may be about the person): their customers are locked and checked with the others.
  const ordersCustomers = setting ? orders.map((row) => row.customer_id) : [];
  const erasedLocked = await lockCustomers(em, sorted([...customerIds, ...ordersCustomers]));
  // Deleting from an erased customer is no write of personal data (its values are gone already).
  const erased = setting ? erasedLocked : [];
  if (erased.length) {
    const order = orders.find((row) => row.customer_id === erased[0] && !customerIds.includes(erased[0]));
    throw new ConflictError(
      order
        ? `Order ${order.id} belongs to customer ${erased[0]}, who was erased on request: its metafields cannot be set`
        : `Customer ${erased[0]} was erased on request: its metafields cannot be set`,
    );
  }
  const customers = customerIds.length
    ? await run<{ id: number }>(em, 'select id from customer where id = any(?::int[])', [customerIds])
    : [];
  const products = await lockCatalogueRows(em, 'product', ids.product);
  return {
    orders: new Set(orders.map((row) => row.id)),
    collection: new Set(collections),
    customer: new Set(customers.map((row) => row.id)),
    product: new Set(products),
  };
}

/**
 * Moves the versions (ETags) of these locked records on, and their `updated_at`: what they show
 * changed. A write that already moved its record's version (a PATCH) does not call this for it.
 */
export async function moveVersionsOf(
  em: EntityManager,
  versioned: MetafieldOwner['versioned'],
  ids: readonly number[],
  at: Date,
): Promise<void> {
  if (!ids.length) return;
  await run(em, `update ${versioned} set version = version + 1, updated_at = ? where id = any(?::int[])`, [
    at,
    [...new Set(ids)],
  ]);
}
