import { SCOPES } from '../auth/scopes.js';
import { bulkOperationPaths } from './bulk-openapi.js';
import type { JsonSchema } from './json-schema.js';
import { operation } from './openapi-operation.js';
import { CONVENTIONS, OPERATIONAL_PATHS, TAGS } from './openapi-prose.js';
import { componentSchemas } from './openapi-schemas.js';
import { webhookDocs } from './openapi-webhooks.js';
import type { DerivedResource, RestApi } from './rest-api.js';
import type { RouteSpec } from './route-spec.js';
import { API_PREFIX } from './router.js';

// The assembly of the OpenAPI document from its parts (openapi-schemas.ts, openapi-operation.ts,
// openapi-webhooks.ts, bulk-openapi.ts, openapi-prose.ts): the paths, the tags, the header.

/**
 * The OpenAPI 3.1 document of /api/v1, generated from the route table as completed from the
 * GraphQL schema (src/rest/rest-api.ts): the same record, body and filter schemas the REST layer
 * runs on, so the reference cannot drift from the behaviour. Response schemas are strict (no
 * unknown keys) and the test suite checks every REST answer against them.
 */
export function openApiDocument(api: RestApi, serverUrl = ''): JsonSchema {
  const routes = api.routes;
  const resources = new Map<string, DerivedResource>();
  for (const route of routes) resources.set(route.resource.name, route.resource);
  const schemas = componentSchemas(routes, resources);
  const paths: Record<string, Record<string, JsonSchema>> = {};
  for (const route of routes)
    (paths[`${API_PREFIX}${route.path}`] ??= {})[route.method.toLowerCase()] = operation(api, route);
  // The NDJSON ends of bulk operations, which are not routes of the table.
  for (const [path, operations] of Object.entries(bulkOperationPaths()))
    Object.assign((paths[path] ??= {}), operations);
  // A resource's tag: its prose in openapi-prose.ts, or else the description of the GraphQL type its
  // records are read from (the schema lint requires one), so a new resource needs no prose entry.
  const described = new Set(TAGS.map((t) => t.name));
  const derivedTags = [...resources.values()]
    .filter((resource) => !described.has(resource.name))
    .map((resource) => ({
      name: resource.name,
      ...(resource.description ? { description: resource.description } : {}),
    }));
  const operational = new Set(['Webhooks', 'Operations']);
  return {
    openapi: '3.1.0',
    info: {
      title: 'Store API',
      version: '1.0.0',
      description: CONVENTIONS,
      contact: { name: 'Store API maintainers', url: 'https://github.com/store-api/store-api/issues' },
      license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
    },
    servers: [{ url: serverUrl || '/', description: 'this service' }],
    security: [{ bearerAuth: [] }],
    tags: [
      ...TAGS.filter((t) => resources.has(t.name)),
      ...derivedTags,
      ...TAGS.filter((t) => operational.has(t.name)),
    ],
    components: {
      securitySchemes: {
        bearerAuth: {
          type: 'http',
          scheme: 'bearer',
          description:
            `An API token (\`npm run token -- create --name <name> --scopes ` +
            `<scope,…>\`). Scopes: ${SCOPES.map((s) => `\`${s}\``).join(', ')}; ` +
            `each operation names the one it needs in \`x-scopes\`.`,
        },
      },
      schemas,
    },
    paths: { ...paths, ...OPERATIONAL_PATHS },
    webhooks: webhookDocs(),
  };
}

/**
 * The document as it holds for an answer to a request with `fields`: the records' top-level
 * `required` lists do not apply (only the named keys are sent). The test suite checks such answers
 * against this; clients that use `fields` should treat the record's keys as optional.
 */
export function narrowedByFields(document: JsonSchema, routes: RouteSpec[]): JsonSchema {
  const copy = structuredClone(document) as { components: { schemas: Record<string, JsonSchema> } };
  for (const route of routes) delete copy.components.schemas[route.resource.name].required;
  return copy as JsonSchema;
}
