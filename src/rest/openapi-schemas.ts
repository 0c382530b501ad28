import { INPUT_LIMITS } from '../domain/input-limits.js';
import type { JsonSchema } from './json-schema.js';
import { recordObject } from './records.js';
import type { DerivedResource, DerivedRoute } from './rest-api.js';

// The `components.schemas` of the OpenAPI document (src/rest/openapi.ts), and `ref` to point at
// them: the problem, the link, and each resource's record, list wrapper and feed page. Kept apart
// from the operations, which only refer to these by name.

export const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/**
 * A record: every key of `fields` is always there (null where nullable) unless the request names a
 * subset with `fields`; the `expand` relations only when asked for. See `narrowedByFields`.
 */
function recordSchema(resource: DerivedResource): JsonSchema {
  return { ...recordObject({ ...resource.fields, ...resource.expand }), required: Object.keys(resource.fields) };
}

/** The document's `components.schemas`, for the resources of the route table (`resources`, by name). */
export function componentSchemas(
  routes: DerivedRoute[],
  resources: Map<string, DerivedResource>,
): Record<string, JsonSchema> {
  const schemas: Record<string, JsonSchema> = {
    Problem: {
      type: 'object',
      description: 'RFC 9457 problem details',
      properties: {
        type: { type: 'string' },
        title: { type: 'string' },
        status: { type: 'integer' },
        detail: { type: 'string' },
        errors: {
          type: 'array',
          description: `The offending fields, the first ${INPUT_LIMITS.reported} at most`,
          maxItems: INPUT_LIMITS.reported,
          items: {
            type: 'object',
            properties: { field: { type: 'string' }, message: { type: 'string' } },
            required: ['field', 'message'],
            additionalProperties: false,
          },
        },
        errors_omitted: {
          type: 'integer',
          minimum: 1,
          description: 'How many more offending fields `errors` leaves out (absent: none)',
        },
      },
      required: ['type', 'title', 'status', 'detail'],
      additionalProperties: false,
    },
    Link: {
      type: 'object',
      properties: { href: { type: 'string', format: 'uri' } },
      required: ['href'],
      additionalProperties: false,
    },
  };
  for (const resource of resources.values()) {
    schemas[resource.name] = recordSchema(resource);
    schemas[`${resource.name}List`] = {
      type: 'object',
      properties: {
        items: { type: 'array', items: ref(resource.name) },
        _links: {
          type: 'object',
          properties: Object.fromEntries(['self', 'first', 'last', 'prev', 'next'].map((k) => [k, ref('Link')])),
          required: ['self', 'first', 'last'],
          additionalProperties: false,
        },
        _meta: {
          type: 'object',
          properties: {
            totalCount: { type: 'integer' },
            perPage: { type: 'integer' },
            currentPage: { type: 'integer' },
            pageCount: { type: 'integer' },
          },
          required: ['totalCount', 'perPage', 'currentPage', 'pageCount'],
          additionalProperties: false,
        },
      },
      required: ['items', '_links', '_meta'],
      additionalProperties: false,
    };
  }
  for (const route of routes) {
    if (route.kind !== 'feed') continue;
    const list = schemas[`${route.resource.name}List`] as { properties: Record<string, JsonSchema> };
    schemas[`${route.resource.name}Feed`] = {
      ...list,
      description:
        'A page of a cursor feed: the list wrapper without `last` and `prev`; ' +
        '`_meta` counts what follows the cursor now',
      properties: {
        ...list.properties,
        _links: {
          type: 'object',
          properties: Object.fromEntries(['self', 'first', 'next'].map((k) => [k, ref('Link')])),
          required: ['self', 'first', 'next'],
          additionalProperties: false,
        },
      },
    };
  }
  return schemas;
}
