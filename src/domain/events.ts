import type { EntityManager } from '@mikro-orm/postgresql';
import { StoreEvent } from '../entities/store-event.entity.js';
import type { EventType } from './event-types.js';

/**
 * Who makes a change: the caller's API token (the resolver passes its principal in explicitly).
 * `null` for the service's own changes (none so far: seeding writes no events).
 */
export interface Actor {
  tokenId: number;
  name: string;
}

export { EVENT_TYPES, type EventType } from './event-types.js';

export interface EventSubject {
  subject: 'order' | 'product' | 'customer' | 'collection' | 'inventory' | 'bulk_operation';
  subjectId: number;
  /** The order a change belongs to (its timeline), for every change under an order. */
  orderId?: number;
}

/** The subject of every change under an order: the order's timeline. */
export function orderEventSubject(order: { id: number }): EventSubject {
  return { subject: 'order', subjectId: order.id, orderId: order.id };
}

/** The columns of an event row, as `recordEvent` persists it and a statement of its own inserts it. */
export function eventRow(actor: Actor | null, type: EventType, subject: EventSubject, data: Record<string, unknown>) {
  return {
    type,
    actorTokenId: actor?.tokenId ?? null,
    actorName: actor?.name ?? null,
    subject: subject.subject,
    subjectId: subject.subjectId,
    orderId: subject.orderId ?? null,
    data,
  };
}

export type EventRow = ReturnType<typeof eventRow>;

/**
 * Adds an event to the caller's unit of work: it is inserted by the same flush, in the same
 * transaction, as the change it records (the edge's transaction flushes before it commits). Events
 * of one transaction get increasing ids in the order they were recorded.
 */
export function recordEvent(
  em: EntityManager,
  actor: Actor | null,
  type: EventType,
  subject: EventSubject,
  data: Record<string, unknown>,
): void {
  em.persist(Object.assign(new StoreEvent(), eventRow(actor, type, subject, data)));
}
