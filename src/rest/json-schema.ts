/** A JSON schema (the OpenAPI 3.1 dialect) of a REST value. */
// biome-ignore lint/suspicious/noExplicitAny: a JSON schema is arbitrary nested JSON, read and built by keyword
export type JsonSchema = Record<string, any>;
