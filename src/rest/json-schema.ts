/** A JSON schema (the OpenAPI 3.1 dialect) of a REST value. */
export type JsonSchema = Record<string, any>;
