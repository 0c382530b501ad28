import { GoneError, ValidationError } from './errors.js';

/**
 * The two ways a feed cursor (`after`, an event id) is refused (docs/integrations.md#the-event-feed):
 * an id above every event was never issued, a mistake of the caller's (400); an id the feed no
 * longer holds was purged past retention (410), and the answer names where to start again.
 */
export function unknownCursor(after: number, newest: number): ValidationError {
  return missed(
    new ValidationError([{ field: 'after', message: `no event has the id ${after} (the newest is ${newest})` }]),
  );
}

export function expiredCursor(after: number, oldest: number | null): GoneError {
  const restart = oldest === null ? 'the feed has no event now' : `the oldest event kept is ${oldest}`;
  return missed(
    new GoneError(
      `Event ${after} is no longer kept (events are kept for a retention period): ${restart}; ` +
        'read from the start of the feed (no after) to continue',
    ),
  );
}

// Both refusals say the cursor's event was not found where the feed was read. On a read replica
// that may only mean the replica has not replayed it yet (the cursor came from the primary or a
// replica further ahead): such a read runs again on the primary, which decides (docs/operations.md#read-replicas).
const misses = new WeakSet<Error>();
function missed<E extends Error>(error: E): E {
  misses.add(error);
  return error;
}

/** Whether an error is a refused cursor (see unknownCursor and expiredCursor). */
export const isCursorMiss = (error: unknown): boolean => error instanceof Error && misses.has(error);
