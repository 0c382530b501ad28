import { fieldSummary, reportedFields } from './reported-fields.js';

/**
 * The domain's typed errors. Domain code throws these; the GraphQL error formatter maps each to
 * `extensions.code` once, and the REST layer maps codes to HTTP statuses once.
 */
export interface FieldError {
  /** Path of the offending input in the caller's terms, e.g. `variants[2].variant[1]`. */
  field: string;
  message: string;
}

export abstract class DomainError extends Error {
  abstract readonly code:
    | 'BAD_USER_INPUT'
    | 'NOT_FOUND'
    | 'CONFLICT'
    | 'UNAUTHENTICATED'
    | 'FORBIDDEN'
    | 'PRECONDITION_FAILED'
    | 'GONE'
    | 'ANSWER_TOO_LARGE';
}

export class ValidationError extends DomainError {
  readonly code = 'BAD_USER_INPUT' as const;
  constructor(
    readonly fields: FieldError[],
    message = fieldSummary(reportedFields(fields)),
  ) {
    super(message);
  }
}

export class NotFoundError extends DomainError {
  readonly code = 'NOT_FOUND' as const;
  constructor(resource: string, id: number | string) {
    super(`${resource} ${id} does not exist`);
  }
}

export class ConflictError extends DomainError {
  readonly code = 'CONFLICT' as const;
  /** `field`: the part of the input that conflicts (`items[2]`), named in the answer like a 422's. */
  constructor(
    message: string,
    readonly field?: string,
  ) {
    super(message);
  }
}

export class UnauthenticatedError extends DomainError {
  readonly code = 'UNAUTHENTICATED' as const;
  constructor(message = 'A valid API token is required: send "Authorization: Bearer <token>"') {
    super(message);
  }
}

export class ForbiddenError extends DomainError {
  readonly code = 'FORBIDDEN' as const;
  constructor(readonly missingScopes: string[]) {
    super(`This token lacks the scope ${missingScopes.join(' or ')}`);
  }
}

export class PreconditionFailedError extends DomainError {
  readonly code = 'PRECONDITION_FAILED' as const;
}

/** What the caller names existed but is no longer kept (an event feed cursor past retention): 410. */
export class GoneError extends DomainError {
  readonly code = 'GONE' as const;
}

/**
 * An offset page whose records' JSON would be more than `maxBytes` (src/reads/answer-bytes.ts): the
 * client asks a smaller page or fewer fields; or an answer's (`of`: a read's, or a write's whose
 * change was made), whose fields repeated under aliases make it so: fewer fields. Not the fault of
 * one field's value (the same `size` answers on lighter records): 400, not a validation error.
 */
export class AnswerTooLargeError extends DomainError {
  readonly code = 'ANSWER_TOO_LARGE' as const;
  /**
   * `shared`: the bound is this page's share of the answer's, which its operation's root fields
   * share. `field`: what the client changes, a page's `size` or an answer's `fields`.
   */
  constructor(
    readonly maxBytes: number,
    shared = false,
    of: 'page' | 'record' | 'write' = 'page',
  ) {
    const mib = 1024 * 1024;
    const bound = maxBytes % mib === 0 ? `${maxBytes / mib} MiB` : `${maxBytes} bytes`;
    const share = "its share of what one answer holds (the operation's root fields share it): ask fewer root fields";
    const most = shared ? `${share}, or` : 'the most one answer holds: ask';
    super(
      of !== 'page'
        ? `The answer would be more than ${bound} of JSON, ${most} fewer fields (an alias repeats a field)` +
            (of === 'write' ? '. The change was made (but not by a bulk line, which is rolled back): read it back' : '')
        : shared
          ? `The page's records would be more than ${bound} of JSON, ${share}, a smaller size, or fewer fields`
          : `The page's records would be more than ${bound} of JSON, the most one answer holds: ` +
            'ask a smaller size, or fewer fields or expansions',
    );
    this.field = of === 'page' ? 'size' : 'fields';
  }
  readonly field: 'size' | 'fields';
}
