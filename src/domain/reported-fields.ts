import type { FieldError } from './errors.js';
import { INPUT_LIMITS } from './input-limits.js';

/** Longest field path or message an answer repeats (a key may be 100 000 characters long). */
const LONGEST_TEXT = 500;

/** What an answer shows of its field errors: the first few, and how many more there were. */
export interface ReportedFields {
  /** At most `INPUT_LIMITS.reported`, each text cut to a readable length. */
  fields: FieldError[];
  /** How many field errors were left out (0: none). */
  omitted: number;
}

const cut = (text: string) => (text.length > LONGEST_TEXT ? `${text.slice(0, LONGEST_TEXT - 1)}…` : text);

/**
 * The field errors an answer names (REST `errors` with `errors_omitted`, GraphQL `extensions.fields`
 * with `fieldsOmitted`): however many the input breaks, the answer (and an idempotent request's
 * stored copy of it) stays a few kilobytes. `omitted` adds errors already left out upstream.
 */
export function reportedFields(fields: readonly FieldError[], omitted = 0): ReportedFields {
  const shown = fields.slice(0, INPUT_LIMITS.reported).map((f) => ({ field: cut(f.field), message: cut(f.message) }));
  return { fields: shown, omitted: omitted + fields.length - shown.length };
}

/** One line naming the reported fields (`a: is required; b: …`) and saying how many more there are. */
export function fieldSummary({ fields, omitted }: ReportedFields, format = (f: FieldError) => `${f.field}: ${f.message}`): string {
  const named = fields.map(format).join('; ');
  return omitted ? `${named}; and ${omitted} more` : named;
}
