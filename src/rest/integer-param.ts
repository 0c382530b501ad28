import { GRAPHQL_MAX_INT } from 'graphql';

/**
 * The one reading of an integer that REST takes as text (a path id, a query number, the version
 * in an ETag), and the OpenAPI schema that documents the same range, so the document and the check
 * cannot disagree. Ten ASCII digits at most: anything longer is out of every range before `Number`
 * could round it.
 */
export interface IntegerRange {
  minimum: number;
  maximum: number;
}

/** Ids and page numbers: positive GraphQL Ints (no record has any other id). */
export const POSITIVE_INT: IntegerRange = { minimum: 1, maximum: GRAPHQL_MAX_INT };

/** A feed's cursor: an event id, or 0 for "from the oldest event kept". */
export const CURSOR: IntegerRange = { minimum: 0, maximum: GRAPHQL_MAX_INT };

/** The integer `raw` spells, when it is in `range`; undefined otherwise. */
export function parseInteger(raw: string, range: IntegerRange): number | undefined {
  if (!/^\d{1,10}$/.test(raw)) return undefined;
  const value = Number(raw);
  return value >= range.minimum && value <= range.maximum ? value : undefined;
}

/** The JSON Schema of an integer in `range`. */
export const integerSchema = ({ minimum, maximum }: IntegerRange) => ({ type: 'integer', minimum, maximum });
