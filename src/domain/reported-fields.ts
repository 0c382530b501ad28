import type { FieldError } from './errors.js';
import { INPUT_LIMITS } from './input-limits.js';

/** Longest field path an answer repeats (a key may be 100 000 characters long). */
const LONGEST_FIELD = 500;
/** Longest message (a message may quote a value; the allowed names it lists come last). */
const LONGEST_MESSAGE = 2000;

/** What an answer shows of its field errors: the first few, and how many more there were. */
export interface ReportedFields {
  /** At most `INPUT_LIMITS.reported`; a very long path or message keeps its start and end. */
  fields: FieldError[];
  /** How many field errors were left out (0: none). */
  omitted: number;
}

/** The text, or its start and end around an ellipsis: `limit` characters in all. */
function cut(text: string, limit: number): string {
  if (text.length <= limit) return text;
  const head = Math.floor((limit - 1) / 2);
  return `${text.slice(0, head)}…${text.slice(text.length - (limit - 1 - head))}`;
}

/**
 * The field errors an answer names (REST `errors` with `errors_omitted`, GraphQL `extensions.fields`
 * with `fieldsOmitted`): however many the input breaks, the answer (and an idempotent request's
 * stored copy of it) stays a few kilobytes. `omitted` adds errors already left out upstream.
 */
export function reportedFields(fields: readonly FieldError[], omitted = 0): ReportedFields {
  const shown = fields
    .slice(0, INPUT_LIMITS.reported)
    .map((f) => ({ field: cut(f.field, LONGEST_FIELD), message: cut(f.message, LONGEST_MESSAGE) }));
  return { fields: shown, omitted: omitted + fields.length - shown.length };
}

/** One line naming the reported fields (`a: is required; b: …`) and saying how many more there are. */
export function fieldSummary(
  { fields, omitted }: ReportedFields,
  format = (f: FieldError) => `${f.field}: ${f.message}`,
): string {
  const named = fields.map(format).join('; ');
  return omitted ? `${named}; and ${omitted} more` : named;
}
