import { GraphQLError } from 'graphql';
import type { CarriedTokenCheck } from '../auth/carried-token-check.js';
import { RATE_LIMITED, type RateLimitState, rateLimitedMessage, rateLimitHeaders } from '../auth/rate-limit.js';
import { UnauthenticatedError } from '../domain/errors.js';
import {
  DATABASE_UNAVAILABLE,
  OVERLOADED,
  OVERLOADED_MESSAGE,
  OVERLOADED_RETRY_AFTER,
  UNAVAILABLE_RETRY_AFTER,
} from './error-codes.js';

/** The `WWW-Authenticate` challenge of a 401. */
export const BEARER_CHALLENGE = 'Bearer realm="store-api"';

/** A request without a valid token: 401 with the challenge (docs/decisions.md#auth-and-scopes). */
export function unauthenticatedError(error = new UnauthenticatedError()): GraphQLError {
  return new GraphQLError(error.message, {
    extensions: {
      code: error.code,
      http: { status: 401, headers: new Map([['WWW-Authenticate', BEARER_CHALLENGE]]) },
    },
  });
}

/** A request its token's bucket refused: 429 with the bucket's headers and `Retry-After`. */
export function rateLimitedError(limit: RateLimitState): GraphQLError {
  return new GraphQLError(rateLimitedMessage(limit), {
    extensions: {
      code: RATE_LIMITED,
      http: { status: 429, headers: new Map(Object.entries(rateLimitHeaders(limit))) },
    },
  });
}

/**
 * The database cannot be reached (docs/operations.md#faults-and-shutdown): 503 with `Retry-After`,
 * and no driver text (the cause is logged, never sent).
 */
export function databaseUnavailableError(): GraphQLError {
  return new GraphQLError(DATABASE_UNAVAILABLE, {
    extensions: {
      code: 'SERVICE_UNAVAILABLE',
      http: { status: 503, headers: new Map([['Retry-After', UNAVAILABLE_RETRY_AFTER]]) },
    },
  });
}

/** The refusal of a carried token check that did not pass (src/auth/carried-token-check.ts). */
export function checkRefusal(check: CarriedTokenCheck): GraphQLError {
  return check.outcome === 'refused' && check.limit ? rateLimitedError(check.limit) : unauthenticatedError();
}

/** No free database connection in time (the pool's wait ran out): 503 `OVERLOADED`, retry in a second. */
export function overloadedError(): GraphQLError {
  return new GraphQLError(OVERLOADED_MESSAGE, {
    extensions: {
      code: OVERLOADED,
      http: { status: 503, headers: new Map([['Retry-After', OVERLOADED_RETRY_AFTER]]) },
    },
  });
}
