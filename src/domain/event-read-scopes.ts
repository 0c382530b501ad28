import type { EventSubject } from './events.js';

/**
 * Which read scope shows the events of each kind of record (docs/decisions.md#event-feed): a token
 * sees in the feed only the events of records it may read. Keyed by the event's `subject`: the
 * events of fulfilments, shipments and restocks belong to their order (subject `order`), so
 * `read_orders` covers them. One table, as data; the feed's SQL filters on it.
 */
export const EVENT_READ_SCOPES: Readonly<Record<EventSubject['subject'], string>> = {
  order: 'read_orders',
  product: 'read_products',
  customer: 'read_customers',
  collection: 'read_collections',
};

/** Every scope that shows some events: the feed needs at least one. */
export const FEED_SCOPES = [...new Set(Object.values(EVENT_READ_SCOPES))];

/** The subjects whose events a token holding `scopes` may read. */
export function readableSubjects(scopes: ReadonlySet<string>): string[] {
  return Object.entries(EVENT_READ_SCOPES)
    .filter(([, scope]) => scopes.has(scope))
    .map(([subject]) => subject);
}
