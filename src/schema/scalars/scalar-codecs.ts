/**
 * What each GraphQL scalar is as SQL, in one place per type, beside the scalars' own serialisers
 * (decimal.scalar.ts, timestamp.scalar.ts, graphql-js's): which column types a field of the scalar
 * may read, the SQL that gives the column's value as the serialiser gives it, and that value's JSON
 * text. PostgreSQL writes answers with these (src/graphql/leaf-sql.ts), entity rows keep the
 * column's own value (`rowJson`), and a column of a type no codec reads fails the start
 * (src/graphql/column-codecs.ts). Adding a scalar or a column type is adding its entry here.
 *
 * Column types are MikroORM's, lower case; SQL is built from the service's own column names, never
 * from input.
 */
export interface ScalarCodec {
  /** The column types a field of this scalar may read. */
  readonly columns: RegExp;
  /** The column's value as the scalar's serialiser gives it. */
  value(column: string): string;
  /** The JSON text of such a value (`value`'s, or a projection's of this type), null as `null`. */
  json(sql: string): string;
}

/** The value's own text is its JSON: whole numbers, true/false, jsonb. */
export const asText = (sql: string) => `coalesce((${sql})::text, 'null')`;
/** PostgreSQL's JSON of the value: strings escaped, doubles (non-finite ones quoted). */
const asJson = (sql: string) => `coalesce(to_json(${sql})::text, 'null')`;
/** The value's text in quotes, for texts that need no escaping (digits, GraphQL names). */
export const quotedJson = (sql: string) => `coalesce('"' || ${sql} || '"', 'null')`;
const same = (column: string) => column;

export const INT_COLUMN = /^(int|integer|int4|smallint|int2|serial)$/;
export const TEXT_COLUMN = /^(text|varchar|character varying)(\(\d+\))?$/;

export const SCALAR_CODECS: Readonly<Record<string, ScalarCodec>> = {
  Int: { columns: INT_COLUMN, value: same, json: asText },
  String: { columns: TEXT_COLUMN, value: same, json: asJson },
  // Both print a double as the shortest text that reads back as it (float8out, JSON.stringify).
  Float: { columns: /^(double precision|double|float8|real|float4)$/, value: same, json: asJson },
  Boolean: { columns: /^(boolean|bool)$/, value: same, json: asText },
  // Money travels as its exact text ("12.50"), as the row's JSON gives it to the serialiser.
  Decimal: { columns: /^numeric/, value: (column) => `${column}::text`, json: quotedJson },
  // Unix seconds, floored as the serialiser floors milliseconds; only zoned columns (a zoneless one
  // would be read in the process's time zone).
  Timestamp: {
    columns: /timestamptz|with time zone/,
    value: (column) => `floor(extract(epoch from ${column}))::bigint`,
    json: asText,
  },
  // jsonb's text: the same value as JSON.stringify of the parsed column (key order included, as the
  // driver parses that text), spaced and with numbers as written (1.50), and on one line.
  JSON: { columns: /^jsonb$/, value: same, json: asText },
};

/**
 * A column as an entity holds it in a row's JSON (src/reads/read-row.ts types it), as JSON text: its
 * scalar's value and JSON (money as its exact decimal text: a JSON number would lose "12.50"), but a
 * timestamp as PostgreSQL's JSON of it (ISO 8601: the entity holds a date, the scalar serialises Unix
 * seconds), and a column no scalar reads (a bigint key) as PostgreSQL's JSON of it too.
 */
export function rowJson(columnType: string | undefined, column: string): string {
  const type = columnType?.toLowerCase() ?? '';
  const codec = Object.values(SCALAR_CODECS).find((scalar) => scalar.columns.test(type));
  return codec && codec !== SCALAR_CODECS.Timestamp ? codec.json(codec.value(column)) : asJson(column);
}
