import type { JsonSchema } from './json-schema.js';

const PROSE = new Set(['example', 'examples', 'description', 'summary', 'servers']);

/**
 * The OpenAPI document as committed for a release (api/last-release/openapi.json, docs/operations.md#api-versioning):
 * its structure, without the servers, examples and prose, which change without changing the contract.
 */
export function releaseCopy(document: JsonSchema): JsonSchema {
  // `named`: the keys are names (a schema's properties: a REST key may be called `description`).
  const strip = (value: unknown, named = false): unknown => {
    if (Array.isArray(value)) return value.map((inner) => strip(inner));
    if (!value || typeof value !== 'object') return value;
    return Object.fromEntries(
      Object.entries(value)
        .filter(([key]) => named || !PROSE.has(key))
        .map(([key, inner]) => [key, strip(inner, !named && key === 'properties')]),
    );
  };
  return strip(document) as JsonSchema;
}
