/**
 * `extensions.code` → HTTP status. The REST layer answers with these statuses; `/graphql` uses the
 * auth ones when a whole operation was refused. One table, so both edges agree.
 */
export const HTTP_STATUS_BY_CODE: Record<string, number> = {
  BAD_USER_INPUT: 422,
  BAD_REQUEST: 400,
  QUERY_TOO_DEEP: 400,
  QUERY_TOO_COMPLEX: 400,
  NOT_FOUND: 404,
  CONFLICT: 409,
  UNAUTHENTICATED: 401,
  FORBIDDEN: 403,
  PRECONDITION_FAILED: 412,
  GONE: 410,
  ANSWER_TOO_LARGE: 400,
  RATE_LIMITED: 429,
  SERVICE_UNAVAILABLE: 503,
  OVERLOADED: 503,
  TOO_MANY_MUTATIONS: 400,
};

/** The database cannot be reached: the message of its 503 on every edge (the cause is logged, never sent). */
export const DATABASE_UNAVAILABLE = 'The database is unavailable; try again shortly';
export { UNAVAILABLE_RETRY_AFTER } from '../config.js';

/** The service itself is at its admission limit (not the database): 503, retry shortly. */
export const OVERLOADED = 'OVERLOADED';
/** The busy service's message, and the seconds its `Retry-After` asks for, on every edge. */
export const OVERLOADED_MESSAGE = 'The service is busy; retry shortly';
export const OVERLOADED_RETRY_AFTER = '1';
/** Admission control's refusal (src/http/admission.ts), on HTTP and the subscription socket alike. */
export const ADMISSION_FULL_MESSAGE = 'The service is at its limit of concurrent requests; retry shortly';

/** An offset page whose records' JSON would exceed the answer's bound (src/reads/answer-bytes.ts): 400. */
export const ANSWER_TOO_LARGE = 'ANSWER_TOO_LARGE';
