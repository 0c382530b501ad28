import { GoneError, ValidationError } from './errors.js';

/**
 * The two ways a feed cursor (`after`, an event id) is refused (docs/integrations.md#the-event-feed):
 * an id above every event was never issued, a mistake of the caller's (400); an id the feed no
 * longer holds was purged past retention (410), and the answer names where to start again.
 */
export function unknownCursor(after: number, newest: number): ValidationError {
  return new ValidationError([{ field: 'after', message: `no event has the id ${after} (the newest is ${newest})` }]);
}

export function expiredCursor(after: number, oldest: number | null): GoneError {
  const restart = oldest === null ? 'the feed has no event now' : `the oldest event kept is ${oldest}`;
  return new GoneError(
    `Event ${after} is no longer kept (events are kept for a retention period): ${restart}; ` +
      'read from the start of the feed (no after) to continue',
  );
}
