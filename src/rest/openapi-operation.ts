import { IDEMPOTENCY_KEY } from './idempotency.js';
import type { JsonSchema } from './json-schema.js';
import { withExample } from './openapi-examples.js';
import { ANSWER_BOUND, pathParameters, queryParameters } from './openapi-parameters.js';
import {
  ETAG_HEADER,
  EXPORT_COMPLETE_LINE,
  NDJSON,
  PAGINATION_HEADERS,
  PROBLEMS,
  problemRef,
  RATE_LIMIT_HEADERS,
  RETRY_AFTER,
  WWW_AUTHENTICATE,
} from './openapi-responses.js';
import { ref } from './openapi-schemas.js';
import type { DerivedRoute, RestApi } from './rest-api.js';
import { routeScopes } from './route-spec.js';

// One operation of the OpenAPI document (src/rest/openapi.ts) from its route: what each kind of
// route takes and answers, its problems, parameters, scopes and operationId.

/** The Idempotency-Key header of a writing POST, PATCH or DELETE (bulk uploads' too). */
export const IDEMPOTENCY_KEY_PARAMETER = {
  name: 'Idempotency-Key',
  in: 'header',
  schema: IDEMPOTENCY_KEY,
  description: 'a retry with the same key and body answers the first answer again (kept 24 h); another body → 422',
};

export function operation(api: RestApi, route: DerivedRoute): JsonSchema {
  const resource = route.resource;
  const responses: Record<string, JsonSchema> = {};
  const problems = [400, 401, 403, 414, 429, 500, 503];
  const extraParameters: JsonSchema[] = [];
  let requestBody: JsonSchema | undefined;
  switch (route.kind) {
    case 'list':
      responses['200'] = {
        description: 'a page of records in the list wrapper',
        headers: PAGINATION_HEADERS,
        content: { 'application/json': { schema: ref(`${resource.name}List`) } },
      };
      if (route.pathArgs) problems.push(404);
      break;
    case 'search':
      requestBody = { required: false, content: { 'application/json': { schema: api.filters.get(resource)!.schema } } };
      responses['200'] = {
        description: route.bare
          ? 'the matching records, a bare array (pagination in the headers)'
          : 'the matching records in the list wrapper',
        headers: PAGINATION_HEADERS,
        content: {
          'application/json': {
            schema: route.bare ? { type: 'array', items: ref(resource.name) } : ref(`${resource.name}List`),
          },
        },
      };
      problems.push(408, 413, 415, 422);
      if (route.idFilter) problems.push(404);
      break;
    case 'export':
      // 503 (already listed): also when the process runs as many exports as it allows at once;
      // 429 (already listed): also when the token holds its EXPORTS_PER_TOKEN (below).
      if (route.filtered) {
        const filter = { schema: api.filters.get(resource)!.schema };
        requestBody = { required: false, content: { 'application/json': filter } };
        problems.push(408, 413, 415, 422);
      }
      responses['200'] = {
        description:
          `every ${route.filtered ? 'matching ' : ''}${resource.name} of one snapshot in id order, as NDJSON: ` +
          "one record per line, shaped as the list's items (`fields`, `expand`), " +
          'then `{"complete":true,"count":N}`. ' +
          'A stream cut off midway lacks that line.',
        content: {
          [NDJSON]: {
            schema: { type: 'string', description: 'newline-delimited JSON; `x-ndjson-line` describes each line' },
            'x-ndjson-line': { oneOf: [ref(resource.name), EXPORT_COMPLETE_LINE] },
          },
        },
      };
      break;
    case 'get':
      responses['200'] = {
        description: `the ${resource.name}`,
        content: { 'application/json': { schema: ref(resource.name) } },
      };
      if (resource.versioned) {
        responses['200'].headers = { ETag: ETAG_HEADER };
        responses['304'] = { description: 'If-None-Match named the current ETag', headers: { ETag: ETAG_HEADER } };
        extraParameters.push({
          name: 'If-None-Match',
          in: 'header',
          schema: { type: 'string' },
          description: 'answer 304 when the record still has this ETag',
        });
      }
      problems.push(404);
      break;
    case 'position':
      responses['200'] = {
        description: 'the page on which the record lies in the list with the same sort and size',
        content: {
          'application/json': {
            schema: {
              type: 'object',
              properties: { page: { type: 'integer', minimum: 1 } },
              required: ['page'],
              additionalProperties: false,
            },
          },
        },
      };
      problems.push(404);
      break;
    case 'feed':
      responses['200'] = {
        description:
          'the events after the cursor, oldest first, in the list wrapper; ' +
          '`_links.next` continues after the last one ' +
          '(or repeats the cursor when none is there yet)',
        headers: PAGINATION_HEADERS,
        content: { 'application/json': { schema: ref(`${resource.name}Feed`) } },
      };
      problems.push(410);
      break;
    case 'write':
      if (api.bodies.has(route))
        requestBody = { required: true, content: { 'application/json': { schema: api.bodies.get(route)!.schema } } };
      responses[String(route.status)] = route.answersList
        ? {
            description: `the ${resource.name} records as they are now, a JSON array`,
            content: { 'application/json': { schema: { type: 'array', items: ref(resource.name) } } },
          }
        : {
            description: `the ${resource.name} as it is now`,
            content: { 'application/json': { schema: ref(resource.name) } },
          };
      if (resource.versioned) responses[String(route.status)].headers = { ETag: ETAG_HEADER };
      if (route.location)
        responses[String(route.status)].headers = {
          ...(responses[String(route.status)].headers as object | undefined),
          Location: { schema: { type: 'string' }, description: `where the ${resource.name} made is read` },
        };
      extraParameters.push(IDEMPOTENCY_KEY_PARAMETER);
      if (route.ifMatch) {
        extraParameters.push({
          name: 'If-Match',
          in: 'header',
          schema: { type: 'string' },
          description: `write only while the ${resource.name} still has this ETag (else 412)`,
        });
        problems.push(412);
      }
      if (route.precondition) problems.push(412);
      problems.push(404, 408, 409, 413, 415, 422);
      break;
  }
  for (const status of problems.sort()) responses[String(status)] = { description: PROBLEMS[status], ...problemRef };
  if (route.kind === 'list' || route.kind === 'search') {
    const tooLarge =
      `, or the page's records would be more JSON than the answer bound (${ANSWER_BOUND}): ` +
      '`/problems/answer-too-large`, `errors` naming `size`';
    responses['400'] = { description: `${PROBLEMS[400]}${tooLarge}`, ...problemRef };
  }
  if (route.kind === 'write' && route.precondition)
    responses['412'] = { description: route.precondition, ...problemRef };
  if (route.kind === 'export') {
    const description =
      "The token's rate-limit bucket is empty, or the token already has `EXPORTS_PER_TOKEN` exports " +
      'open on this server process: retry after `Retry-After` seconds';
    responses['429'] = { description, ...problemRef };
  }
  // Every answer after authentication carries the rate-limit headers (a 401 comes before it, with
  // its challenge); a 429 or a 503 says when to retry.
  for (const [status, response] of Object.entries(responses)) {
    if (status === '401') {
      response.headers = { ...(response.headers as object | undefined), ...WWW_AUTHENTICATE };
      continue;
    }
    response.headers = {
      ...(response.headers as object | undefined),
      ...RATE_LIMIT_HEADERS,
      ...(status === '429' || status === '503' ? RETRY_AFTER : {}),
    };
  }
  const parameters = [...pathParameters(route), ...queryParameters(route), ...extraParameters];
  withExample(route, parameters, requestBody, responses);
  return {
    operationId:
      route.method.toLowerCase() +
      route.path
        .replace(/\{(\w+)\}/g, 'By_$1')
        .replace(/[^a-zA-Z0-9]+(.)?/g, (_, c: string | undefined) => (c ? c.toUpperCase() : '')),
    summary: route.summary,
    description:
      `Requires the scope ${routeScopes(route)
        .map((scope) => `\`${scope}\``)
        .join(' or ')}.` + `${route.extension ? ' Not in the original specification (an extension).' : ''}`,
    tags: [resource.name],
    // A bearer scheme has no scopes in OpenAPI (only OAuth2 flows do): the one scope the operation
    // needs is in x-scopes and the description; the document-wide security requirement applies.
    'x-scopes': [...routeScopes(route)],
    parameters,
    ...(requestBody ? { requestBody } : {}),
    responses,
  };
}
