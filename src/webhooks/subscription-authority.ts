import { missingReadScopes } from '../domain/event-read-scopes.js';
import type { EventType } from '../domain/event-types.js';

/**
 * The token a subscription was created by, as the worker sees it when it delivers: `scopes` is
 * null when that token was revoked (or no longer exists).
 */
export interface SubscriptionOwner {
  tokenId: number | null;
  scopes: readonly string[] | null;
}

/**
 * A subscription delivers under the authority of the token that created it
 * (docs/integrations.md#who-a-subscription-delivers-for): once that token is revoked, or no longer
 * holds the read scope of an event type subscribed to, nothing more is sent. Answers why not, or
 * null when it may send.
 */
export function ownerRefusal(owner: SubscriptionOwner, events: readonly string[]): string | null {
  if (owner.tokenId === null) return 'it has no creating token';
  if (owner.scopes === null) return `the token that created it (${owner.tokenId}) was revoked`;
  const missing = missingReadScopes(events as EventType[], new Set(owner.scopes));
  return missing.length ? `the token that created it (${owner.tokenId}) lacks ${missing.join(', ')}` : null;
}
