import type { EventType } from './event-types.js';

/** The record kind an event type belongs to: `fulfilment` for `fulfilment.created`. */
export type EventKind = EventType extends `${infer Kind}.${string}` ? Kind : never;

/**
 * Who may see an event: a token holding the read scope of its record kind, the rule of the event
 * feed (docs/integrations.md#who-a-subscription-delivers-for). A webhook subscription sends events
 * to a URL its creator chose, so subscribing to an event type needs this scope too; otherwise
 * `manage_webhooks` alone would read customers through a webhook. The scope names are those of
 * `src/auth/scopes.ts` (a test checks). A kind with no scope (`OWN_SUBJECTS`) is seen by no scope:
 * only by the token whose events they are.
 */
export const EVENT_READ_SCOPES = {
  order: 'read_orders',
  fulfilment: 'read_orders',
  shipment: 'read_orders',
  restock: 'read_orders',
  product: 'read_products',
  customer: 'read_customers',
  collection: 'read_collections',
  inventory: 'read_inventory',
  bulk_operation: null,
} as const satisfies Record<EventKind, string | null>;

export type EventReadScope = NonNullable<(typeof EVENT_READ_SCOPES)[EventKind]>;

/**
 * Kinds whose events only the token that made them sees (their actor): a bulk operation's, whose
 * counts are its starter's business (docs/decisions.md#bulk-writes). The feed, the subscriptions
 * and the webhook trigger (migration bulk_operations) apply it.
 */
export const OWN_SUBJECTS: readonly string[] = Object.entries(EVENT_READ_SCOPES)
  .filter(([, scope]) => scope === null)
  .map(([kind]) => kind);

/** The read scope an event of this type needs (`read_orders` for `shipment.created`); null: its actor's only. */
export function readScopeOf(type: EventType): EventReadScope | null {
  return EVENT_READ_SCOPES[type.slice(0, type.indexOf('.')) as EventKind];
}

/** The read scopes the given event types need that `held` lacks, each once, in a stable order. */
export function missingReadScopes(types: readonly EventType[], held: ReadonlySet<string>): EventReadScope[] {
  return [...new Set(types.map(readScopeOf))]
    .filter((scope): scope is EventReadScope => scope !== null && !held.has(scope))
    .sort();
}

/** Every scope that shows some events: the feed needs at least one. */
export const FEED_SCOPES = [
  ...new Set(Object.values(EVENT_READ_SCOPES).filter((scope): scope is EventReadScope => scope !== null)),
];

/**
 * The record kinds whose events a token holding `scopes` may read, for the feed's filter on the
 * event's `subject` (fulfilment, shipment and restock events have subject `order`, so their own
 * kinds only ever match nothing there).
 */
export function readableSubjects(scopes: ReadonlySet<string>): string[] {
  return Object.entries(EVENT_READ_SCOPES)
    .filter(([, scope]) => scope !== null && scopes.has(scope))
    .map(([kind]) => kind);
}
