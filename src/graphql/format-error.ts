import { GraphQLError, type GraphQLFormattedError } from 'graphql';
import { ArgumentValidationError } from 'type-graphql';
import {
  isConcurrentConflict,
  isDatabaseUnavailable,
  isPoolExhausted,
  isStatementTimeout,
} from '../db/database-errors.js';
import { AnswerTooLargeError, ConflictError, DomainError, type FieldError, ValidationError } from '../domain/errors.js';
import { reportedFields } from '../domain/reported-fields.js';
import { logger } from '../logger.js';
import { DATABASE_UNAVAILABLE, OVERLOADED, OVERLOADED_MESSAGE } from './error-codes.js';

function fieldsOfValidation(error: ArgumentValidationError): FieldError[] {
  const out: FieldError[] = [];
  const walk = (errors: ArgumentValidationError['extensions']['validationErrors'], prefix: string) => {
    for (const e of errors) {
      const path = prefix ? `${prefix}.${e.property}` : e.property;
      for (const message of Object.values(e.constraints ?? {})) out.push({ field: path, message });
      if (e.children?.length) walk(e.children, path);
    }
  };
  walk(error.extensions.validationErrors, '');
  return out;
}

/** A type (not an interface) so that it is a plain `Record<string, unknown>` as extensions are. */
export type BadInput = {
  code: 'BAD_USER_INPUT';
  fields: FieldError[];
  fieldsOmitted?: number;
};

/**
 * A BAD_USER_INPUT error's `extensions`: the first `INPUT_LIMITS.reported` fields, and `fieldsOmitted`
 * counting the rest (src/domain/reported-fields.ts), like a REST problem's `errors`.
 */
export function badInput(fields: FieldError[]): BadInput {
  const { fields: shown, omitted } = reportedFields(fields);
  return { code: 'BAD_USER_INPUT', fields: shown, ...(omitted ? { fieldsOmitted: omitted } : {}) };
}

/** Validation's refusals of a written value (graphql-js ValuesOfCorrectTypeRule), by their wording. */
const LITERAL_REFUSAL = new RegExp(
  [
    '^(?:Expected value of type "',
    '\\w+ cannot represent ',
    'Value ".*" does not exist in "',
    'Field "(?:\\w+\\.)?(\\w+)" (?:of required type|is not defined by type) )',
  ].join('|'),
);

/**
 * The argument or input field a value written in the document was refused for, or undefined when
 * the error is no such refusal: the field its message names, or the name before the value in the
 * document's text (`price: "1.234"`, a list's items under their field's name).
 */
function literalField(error: GraphQLError, original: unknown): string | undefined {
  const refusal = LITERAL_REFUSAL.exec(error.message);
  // A scalar's own refusal of a written value (Decimal, Timestamp) is reported as it threw it.
  const scalars = original instanceof GraphQLError && original.extensions?.code === 'BAD_USER_INPUT';
  if (!refusal && !scalars) return undefined;
  if (refusal?.[1]) return refusal[1];
  const at = error.positions?.[0];
  const before = at === undefined ? undefined : error.source?.body.slice(Math.max(0, at - 2000), at);
  return before ? (/(\w+)\s*:[^:]*$/.exec(before)?.[1] ?? undefined) : undefined;
}

/**
 * The one GraphQL error formatter (Apollo and the in-process REST execution both use it): domain
 * errors get their `extensions.code` (and `fields` for validation); anything unexpected is logged
 * and masked, so no stack or SQL ever leaves the service.
 */
export function formatError(formatted: GraphQLFormattedError, error: unknown): GraphQLFormattedError {
  const original = error instanceof GraphQLError && error.originalError ? error.originalError : error;
  const base = { message: formatted.message, locations: formatted.locations, path: formatted.path };
  if (original instanceof ValidationError) {
    return { ...base, message: original.message, extensions: badInput(original.fields) };
  }
  if (original instanceof ConflictError && original.field) {
    return {
      ...base,
      message: original.message,
      extensions: { code: original.code, fields: [{ field: original.field, message: original.message }] },
    };
  }
  if (original instanceof AnswerTooLargeError) {
    const { code, maxBytes, field } = original;
    return { ...base, message: original.message, extensions: { code, maxBytes, field } };
  }
  if (original instanceof DomainError) {
    return { ...base, message: original.message, extensions: { code: original.code } };
  }
  if (original instanceof ArgumentValidationError) {
    const extensions = badInput(fieldsOfValidation(original));
    return { ...base, message: extensions.fields.map((f) => f.message).join('; ') || 'Invalid arguments', extensions };
  }
  if (original instanceof GraphQLError || (error instanceof GraphQLError && !error.originalError)) {
    // Parse, validation and variable errors, or an operation the schema cannot run: the request is wrong.
    const given = formatted.extensions?.code as string | undefined;
    // A value written in the document that its type cannot take is bad input, as the same value in
    // a variable is (docs/decisions.md#graphql): named by the argument or input field it was given for.
    const literal =
      given === 'GRAPHQL_VALIDATION_FAILED' && error instanceof GraphQLError && literalField(error, original);
    if (literal) return { ...base, extensions: badInput([{ field: literal, message: formatted.message }]) };
    const code = !given || given === 'INTERNAL_SERVER_ERROR' ? 'BAD_REQUEST' : given;
    return { ...base, extensions: { code } };
  }
  const trouble = databaseTrouble(original);
  if (trouble) return { ...base, ...trouble };
  logger.error({ err: original }, 'unexpected error in a GraphQL operation');
  return { ...base, message: 'Internal server error', extensions: { code: 'INTERNAL_SERVER_ERROR' } };
}

/**
 * The database's trouble as every edge answers it (a 503 by its code): no free pool connection
 * (OVERLOADED), a statement past its timeout, PostgreSQL out of reach; logged as a warning.
 * Undefined for any other error.
 */
export function databaseTrouble(original: unknown): { message: string; extensions: { code: string } } | undefined {
  if (isPoolExhausted(original)) {
    logger.warn('database pool exhausted');
    return { message: OVERLOADED_MESSAGE, extensions: { code: OVERLOADED } };
  }
  if (isStatementTimeout(original)) {
    logger.warn({ err: original }, 'statement timeout');
    return {
      message:
        'The database took too long to answer this request; narrow it (smaller pages, fewer expansions) or retry',
      extensions: { code: 'SERVICE_UNAVAILABLE' },
    };
  }
  if (isDatabaseUnavailable(original)) {
    logger.warn({ err: original }, 'database unavailable');
    return { message: DATABASE_UNAVAILABLE, extensions: { code: 'SERVICE_UNAVAILABLE' } };
  }
  if (isConcurrentConflict(original)) {
    // Tried again (domain/transaction.ts) and still meeting concurrent writes: busy, not wrong.
    logger.warn({ err: original }, 'write conflicted with concurrent writes on every try');
    return {
      message: 'The write met concurrent writes to the same records on every try; retry',
      extensions: { code: 'SERVICE_UNAVAILABLE' },
    };
  }
  return undefined;
}
