import { ValidationError } from './errors.js';
import { EVENT_TYPES } from './event-types.js';

/** The kinds of events (`order`, `fulfilment`, …): what a `kind.*` pattern may name. */
const KINDS = [...new Set(EVENT_TYPES.map((type) => type.slice(0, type.indexOf('.'))))];

/** A `types` filter: exact event types, and kinds whose every type matches (`order.*`). */
export interface EventTypeFilter {
  types: string[];
  kinds: string[];
}

/**
 * Reads a `types` filter: each entry a known event type (`fulfilment.created`) or a kind followed
 * by `.*` (`order.*`, every event of orders). Anything else is a 400/422 naming the valid ones, so
 * a typo never silently matches nothing. `undefined` (no filter) matches every type.
 */
export function eventTypeFilter(patterns: readonly string[] | undefined, field = 'types'): EventTypeFilter | undefined {
  if (patterns === undefined) return undefined;
  const types: string[] = [];
  const kinds: string[] = [];
  const unknown: string[] = [];
  for (const pattern of patterns) {
    if ((EVENT_TYPES as readonly string[]).includes(pattern)) types.push(pattern);
    else if (pattern.endsWith('.*') && KINDS.includes(pattern.slice(0, -2))) kinds.push(pattern.slice(0, -2));
    else unknown.push(pattern);
  }
  if (!patterns.length) {
    throw new ValidationError([{ field, message: 'name at least one event type, or leave the filter out' }]);
  }
  if (unknown.length) {
    const valid = `${EVENT_TYPES.join(', ')}, or a kind with .* (${KINDS.map((k) => `${k}.*`).join(', ')})`;
    const named = unknown.map((u) => JSON.stringify(u)).join(', ');
    throw new ValidationError([{ field, message: `unknown event type ${named}; valid: ${valid}` }]);
  }
  return { types, kinds };
}
