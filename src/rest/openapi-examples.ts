import { EXAMPLES } from './examples/stored-examples.js';
import type { JsonSchema } from './json-schema.js';
import { NDJSON } from './openapi-responses.js';
import type { RouteSpec } from './route-spec.js';
import { API_PREFIX } from './router.js';

// The demo store's examples (assets/openapi-examples.json) as an operation of the OpenAPI document
// shows them (src/rest/openapi-operation.ts): kept apart from what the operation is.

/**
 * Puts the operation's example from the demo store (assets/openapi-examples.json) into the document: the
 * path and query values as parameter examples, the body as the request example, the answer as the
 * example of its status.
 */
export function withExample(
  route: RouteSpec,
  parameters: JsonSchema[],
  requestBody: JsonSchema | undefined,
  responses: Record<string, JsonSchema>,
) {
  const example = EXAMPLES[`${route.method} ${route.path}`];
  if (!example) return;
  const url = new URL(example.request.path, 'http://example');
  const names = [...route.path.matchAll(/\{(\w+)\}/g)].map(([, name]) => name);
  const values =
    url.pathname.match(new RegExp(`^${API_PREFIX}${route.path.replace(/\{\w+\}/g, '([^/]+)')}$`))?.slice(1) ?? [];
  const given: Record<string, unknown> = Object.fromEntries(names.map((name, i) => [name, Number(values[i])]));
  for (const [name, value] of url.searchParams) given[name] = /^\d+$/.test(value) ? Number(value) : value;
  for (const parameter of parameters)
    if (parameter.in !== 'header' && given[parameter.name as string] !== undefined)
      parameter.example = given[parameter.name as string];
  const bodyContent = (requestBody?.content as Record<string, JsonSchema> | undefined)?.['application/json'];
  if (bodyContent && example.request.body !== undefined) bodyContent.example = example.request.body;
  const content = responses[String(example.status)]?.content as Record<string, JsonSchema> | undefined;
  const answer = content?.['application/json'] ?? content?.[NDJSON];
  if (answer) answer.example = example.response;
}
