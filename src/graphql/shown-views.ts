import { type GraphQLNamedType, isEnumType } from 'graphql';
import { asText, quotedJson } from '../schema/scalars/scalar-codecs.js';
import { refuse } from './not-plain.js';
import type { Shown } from './rendering.js';

/**
 * The views an edge shows a leaf in besides GraphQL's own (rendering.ts `shown`), each once with
 * both of its forms: `value`, what the REST layer does to an executed answer's value (src/rest
 * derives a key's conversion from it), and `sql` with its `json` text, the same in the statement
 * PostgreSQL writes the answer with (leaf-sql.ts). The two must agree; test/postgres-writes-json.test.ts holds every
 * REST list and export of the store to PostgreSQL's form.
 *
 * `code`'s value depends on the enum (its name → its integer value), so src/rest/records.ts derives
 * it from the type; its SQL is the column, which holds the values.
 */
interface ShownView {
  /** The REST value of a GraphQL value (null stays null unless the view says otherwise). */
  value?(value: unknown): unknown;
  /** `sql` (the leaf as GraphQL's serialiser writes it) or `column`, shown this way; or a refusal. */
  sql(type: GraphQLNamedType, sql: string, column: string): string;
  /** The JSON text of the value `sql` gives, null as `null`. */
  json(sql: string): string;
}

/** Whole units, rounded half away from zero, from a decimal's text: no float touches the amount. */
function roundedUnits(decimal: string): number {
  const negative = decimal.startsWith('-');
  const [whole, fraction = '0'] = decimal.replace('-', '').split('.');
  const units = Number(whole) + (Number(fraction.padEnd(2, '0').slice(0, 1)) >= 5 ? 1 : 0);
  return negative ? -units : units;
}

export const SHOWN_VIEWS: Readonly<Record<Shown, ShownView>> = {
  code: {
    // The enum's values are its codes, and the column holds the values.
    sql: (type, _sql, column) =>
      isEnumType(type) && type.getValues().every(({ value }) => Number.isInteger(value))
        ? column
        : refuse('code of a non-integer enum'),
    json: asText,
  },
  number: {
    // A Decimal as a JSON number; float8 prints the shortest text that reads back as the same
    // double, as JSON.stringify does.
    value: (value) => (value == null ? value : Number(value)),
    sql: (type, _sql, column) => (type.name === 'Decimal' ? `${column}::float8` : refuse('number of a non-Decimal')),
    json: asText,
  },
  wholeUnits: {
    // numeric's round() rounds half away from zero, as roundedUnits does.
    value: (value) => (value == null ? value : roundedUnits(value as string)),
    sql: (type, _sql, column) =>
      type.name === 'Decimal' ? `round(${column})::bigint` : refuse('units of a non-Decimal'),
    json: asText,
  },
  zeroForNull: {
    value: (value) => value ?? 0,
    sql: (_type, sql) => `coalesce(${sql}, 0)`,
    json: asText,
  },
  lowerCase: {
    value: (value) => (typeof value === 'string' ? value.toLowerCase() : value),
    // Still a GraphQL name: nothing to escape.
    sql: (type, sql) => (isEnumType(type) ? `lower(${sql})` : refuse('lower case of a non-enum')),
    json: quotedJson,
  },
};
