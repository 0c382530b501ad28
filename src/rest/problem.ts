import { STATUS_CODES } from 'node:http';
import type { GraphQLFormattedError } from 'graphql';
import { fieldSummary, type ReportedFields, reportedFields } from '../domain/reported-fields.js';
import {
  ANSWER_TOO_LARGE,
  HTTP_STATUS_BY_CODE,
  OVERLOADED,
  OVERLOADED_MESSAGE,
  OVERLOADED_RETRY_AFTER,
  UNAVAILABLE_RETRY_AFTER,
} from '../graphql/error-codes.js';
import { BEARER_CHALLENGE } from '../graphql/token-refusals.js';

export interface ProblemFieldError {
  field: string;
  message: string;
}

const TYPE_BY_STATUS: Record<number, string> = {
  400: 'invalid-request',
  401: 'unauthenticated',
  403: 'forbidden',
  404: 'not-found',
  405: 'method-not-allowed',
  408: 'request-timeout',
  409: 'conflict',
  410: 'gone',
  412: 'precondition-failed',
  413: 'payload-too-large',
  414: 'uri-too-long',
  415: 'unsupported-media-type',
  422: 'validation-failed',
  429: 'rate-limited',
  500: 'internal-error',
  503: 'service-unavailable',
};

/**
 * An RFC 9457 problem. Thrown anywhere in the REST layer and rendered once by the problem
 * middleware as `application/problem+json`. Its `errors` are the first `INPUT_LIMITS.reported`
 * field errors given, and `errors_omitted` counts the rest (src/domain/reported-fields.ts), so no
 * input makes a large answer, nor a large stored answer for an `Idempotency-Key`.
 */
export class Problem extends Error {
  readonly errors?: ProblemFieldError[];
  /** How many field errors `errors` leaves out. */
  readonly errorsOmitted: number;

  constructor(
    readonly status: number,
    readonly detail: string,
    errors?: ProblemFieldError[] | ReportedFields,
    readonly headers: Record<string, string> = {},
    /** The problem type when the status alone does not say it (`overloaded` is a 503 too). */
    readonly kind?: string,
  ) {
    super(detail);
    const reported = Array.isArray(errors)
      ? reportedFields(errors)
      : errors && reportedFields(errors.fields, errors.omitted);
    this.errors = reported?.fields;
    this.errorsOmitted = reported?.omitted ?? 0;
  }

  get body() {
    return {
      type: `/problems/${this.kind ?? TYPE_BY_STATUS[this.status] ?? 'error'}`,
      title: STATUS_CODES[this.status] ?? 'Error',
      status: this.status,
      detail: this.detail,
      ...(this.errors?.length ? { errors: this.errors } : {}),
      ...(this.errorsOmitted ? { errors_omitted: this.errorsOmitted } : {}),
    };
  }

  /**
   * A problem naming fields: `detail` is `lead: ` and the reported ones (`format` writes one), with
   * how many more there are.
   */
  static fields(
    status: number,
    lead: string,
    errors: ProblemFieldError[] | ReportedFields,
    format?: (f: ProblemFieldError) => string,
  ): Problem {
    const reported = Array.isArray(errors) ? reportedFields(errors) : reportedFields(errors.fields, errors.omitted);
    return new Problem(status, `${lead}: ${fieldSummary(reported, format)}`, reported);
  }

  /** The service (not the database) has more work than it admits now: 503 `overloaded`, retry shortly. */
  static overloaded(detail = OVERLOADED_MESSAGE): Problem {
    return new Problem(503, detail, undefined, { 'Retry-After': OVERLOADED_RETRY_AFTER }, 'overloaded');
  }

  /** A bad query parameter: 400 naming it. */
  static parameter(field: string, message: string): Problem {
    return new Problem(400, `Invalid query parameter ${field}: ${message}`, [{ field, message }]);
  }

  /** The problem for a failed GraphQL operation: the first error's code picks the status. */
  static fromGraphQL(
    errors: readonly GraphQLFormattedError[],
    fieldName: (field: string) => string = (f) => f,
  ): Problem {
    const code = String(errors[0]?.extensions?.code ?? 'INTERNAL_SERVER_ERROR');
    const status = HTTP_STATUS_BY_CODE[code] ?? 500;
    if (status === 500) return new Problem(500, 'Internal server error');
    if (code === OVERLOADED) return Problem.overloaded(errors[0].message);
    if (code === ANSWER_TOO_LARGE) {
      // The page's size is what the client changes (or its fields and expansions); a record's, its fields.
      const message = errors[0].message;
      const field = errors[0].extensions?.field === 'fields' ? 'fields' : 'size';
      return new Problem(400, message, [{ field, message }], {}, 'answer-too-large');
    }
    if (status === 503)
      return new Problem(503, errors[0].message, undefined, { 'Retry-After': UNAVAILABLE_RETRY_AFTER });
    if (status === 401) return new Problem(401, errors[0].message, undefined, { 'WWW-Authenticate': BEARER_CHALLENGE });
    const fields = errors
      .flatMap((e) => (e.extensions?.fields as ProblemFieldError[] | undefined) ?? [])
      .map((f) => ({ field: fieldName(f.field), message: f.message }));
    const omitted = errors.reduce((sum, e) => sum + (Number(e.extensions?.fieldsOmitted) || 0), 0);
    const lead = status === 422 ? 'Invalid input' : 'Conflict';
    if (fields.length) return Problem.fields(status, lead, { fields, omitted });
    return new Problem(status, errors.map((e) => e.message).join('; '));
  }
}
