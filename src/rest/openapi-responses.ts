import { ref } from './openapi-schemas.js';
import { MAX_QUERY } from './request-session.js';

// What the responses of the OpenAPI document's operations share (src/rest/openapi-operation.ts): the
// problem answers and their descriptions, the headers, the exports' media type and last line.

export const problemRef = { content: { 'application/problem+json': { schema: ref('Problem') } } };

export const PROBLEMS: Record<number, string> = {
  400: 'Malformed JSON or an invalid query parameter (named in `errors`)',
  401: 'Missing or unknown bearer token',
  403: 'The token lacks the scope of this operation',
  404: 'No such record or route',
  405: 'Method not allowed (see the Allow header)',
  408: 'The body did not arrive within BODY_TIMEOUT_MS of the headers: the connection is closed',
  412: 'If-Match names an ETag the record no longer has: nothing was changed',
  409: 'The request conflicts with the current state (e.g. more than is left to fulfil)',
  410:
    'The cursor names an event no longer kept (older than EVENT_RETENTION_DAYS): ' +
    'the detail names the oldest event kept; ' +
    'read from the start (no `after`)',
  413: 'The body is larger than 1 MiB',
  414: `The query string is longer than ${MAX_QUERY} characters`,
  415: 'The body is not application/json',
  422: 'Invalid values, unknown or read-only fields, or references to records that do not exist (named in `errors`)',
  429: "The token's rate-limit bucket is empty: retry after `Retry-After` seconds",
  500: 'Internal error (never shows details)',
  503:
    'The database is unreachable right now (`/problems/service-unavailable`), or the service ' +
    'is at its limit of concurrent requests (`/problems/overloaded`); retry after ' +
    '`Retry-After` seconds',
};

export const ETAG_HEADER = {
  schema: { type: 'string' },
  description: 'strong ETag of the record version; fields/expand do not change it',
};

export const PAGINATION_HEADERS = {
  'X-Pagination-Total-Count': { schema: { type: 'integer' }, description: 'records in the whole set' },
  'X-Pagination-Page-Count': { schema: { type: 'integer' }, description: 'pages of this size' },
  'X-Pagination-Current-Page': { schema: { type: 'integer' } },
  'X-Pagination-Per-Page': { schema: { type: 'integer' } },
  Link: { schema: { type: 'string' }, description: 'RFC 8288 links: self, first, last, prev, next' },
};

/** On every answer to a valid token (docs/decisions.md#rate-limits); not sent when limiting is off. */
export const RATE_LIMIT_HEADERS = {
  'RateLimit-Limit': { schema: { type: 'integer' }, description: "the token's bucket size (requests)" },
  'RateLimit-Remaining': { schema: { type: 'integer' }, description: 'requests left in the bucket now' },
  'RateLimit-Reset': { schema: { type: 'integer' }, description: 'seconds until the bucket is full again' },
};
/** The challenge of a 401 (RFC 6750). */
export const WWW_AUTHENTICATE = {
  'WWW-Authenticate': { schema: { type: 'string' }, description: 'Bearer: send the token as Authorization: Bearer' },
};

export const RETRY_AFTER = {
  'Retry-After': { schema: { type: 'integer' }, description: 'whole seconds until the request would be allowed' },
};

/** The media type of the exports (docs/rest.md#exports). */
export const NDJSON = 'application/x-ndjson';

/** The last line of a whole export. */
export const EXPORT_COMPLETE_LINE = {
  type: 'object',
  properties: {
    complete: { const: true },
    count: { type: 'integer', minimum: 0, description: 'records exported (lines before this one)' },
  },
  required: ['complete', 'count'],
  additionalProperties: false,
};
