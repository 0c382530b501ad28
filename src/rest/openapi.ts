import { SCOPES } from '../auth/scopes.js';
import { DEFAULT_ANSWER_MAX_BYTES } from '../config.js';
import { EVENT_DATA, EVENT_TYPES } from '../domain/event-types.js';
import { INPUT_LIMITS } from '../domain/input-limits.js';
import { PAGE_SIZE } from '../schema/page-size.js';
import { bulkOperationPaths } from './bulk-openapi.js';
import { EXAMPLES } from './examples/stored-examples.js';
import { IDEMPOTENCY_KEY } from './idempotency.js';
import { CURSOR, integerSchema, POSITIVE_INT } from './integer-param.js';
import type { JsonSchema } from './json-schema.js';
import { CONVENTIONS, OPERATIONAL_PATHS, TAGS } from './openapi-prose.js';
import { PAGE_NUMBER, PAGE_SIZE_RANGE } from './query-params.js';
import { recordObject } from './records.js';
import type { DerivedResource, DerivedRoute, RestApi } from './rest-api.js';
import { type RouteSpec, routeScopes } from './route-spec.js';
import { API_PREFIX, MAX_QUERY } from './router.js';

/**
 * The OpenAPI 3.1 document of /api/v1, generated from the route table as completed from the
 * GraphQL schema (src/rest/rest-api.ts): the same record, body and filter schemas the REST layer
 * runs on, so the reference cannot drift from the behaviour. Response schemas are strict (no
 * unknown keys) and the test suite checks every REST answer against them.
 */
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const problemRef = { content: { 'application/problem+json': { schema: ref('Problem') } } };

/** The answer's byte bound as the reference states it (src/reads/answer-bytes.ts). */
const ANSWER_BOUND = `${DEFAULT_ANSWER_MAX_BYTES / (1024 * 1024)} MiB unless ANSWER_MAX_BYTES sets another`;

const PROBLEMS: Record<number, string> = {
  400: 'Malformed JSON or an invalid query parameter (named in `errors`)',
  401: 'Missing or unknown bearer token',
  403: 'The token lacks the scope of this operation',
  404: 'No such record or route',
  405: 'Method not allowed (see the Allow header)',
  408: 'The body did not arrive within BODY_TIMEOUT_MS of the headers: the connection is closed',
  412: 'If-Match names an ETag the record no longer has: nothing was changed',
  409: 'The request conflicts with the current state (e.g. more than is left to fulfil)',
  410:
    'The cursor names an event no longer kept (older than EVENT_RETENTION_DAYS): ' +
    'the detail names the oldest event kept; ' +
    'read from the start (no `after`)',
  413: 'The body is larger than 1 MiB',
  414: `The query string is longer than ${MAX_QUERY} characters`,
  415: 'The body is not application/json',
  422: 'Invalid values, unknown or read-only fields, or references to records that do not exist (named in `errors`)',
  429: "The token's rate-limit bucket is empty: retry after `Retry-After` seconds",
  500: 'Internal error (never shows details)',
  503:
    'The database is unreachable right now (`/problems/service-unavailable`), or the service ' +
    'is at its limit of concurrent requests (`/problems/overloaded`); retry after ' +
    '`Retry-After` seconds',
};

/**
 * A record: every key of `fields` is always there (null where nullable) unless the request names a
 * subset with `fields`; the `expand` relations only when asked for. See `narrowedByFields`.
 */
function recordSchema(resource: DerivedResource): JsonSchema {
  return { ...recordObject({ ...resource.fields, ...resource.expand }), required: Object.keys(resource.fields) };
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

function queryParameters(route: DerivedRoute): JsonSchema[] {
  const resource = route.resource;
  const params: JsonSchema[] = [];
  const fields = Object.keys(resource.fields);
  const relations = Object.keys(resource.expand);
  if (route.kind === 'list' || route.kind === 'search' || route.kind === 'position') {
    if (route.kind !== 'position')
      params.push({
        name: 'page',
        in: 'query',
        schema: { ...integerSchema(PAGE_NUMBER), default: 1 },
        description: 'page number',
      });
    params.push(
      {
        name: 'size',
        in: 'query',
        schema: { ...integerSchema(PAGE_SIZE_RANGE), default: PAGE_SIZE.default },
        description:
          `page size; a page whose records' JSON would be more than the answer bound (${ANSWER_BOUND}) is ` +
          'a 400 `/problems/answer-too-large` naming `size`: ask a smaller page or fewer fields',
      },
      {
        name: 'sort',
        in: 'query',
        schema: { type: 'string' },
        description:
          `comma-separated; \`!field\` or \`-field\` descending; default ` +
          `\`!id\`; id always breaks ties. Sortable: ` +
          `${Object.keys(resource.sorts).join(', ')}`,
      },
    );
  }
  if (route.kind === 'list') {
    for (const [name, arg] of Object.entries(route.queryArgs ?? {})) {
      params.push({
        name,
        in: 'query',
        schema: integerSchema(POSITIVE_INT),
        description: `only the records whose \`${name}\` is this (GraphQL: \`${arg}\`)`,
      });
    }
  }
  if (route.kind === 'feed') {
    params.push(
      {
        name: 'after',
        in: 'query',
        schema: integerSchema(CURSOR),
        description: 'id of the last event read (`_links.next` carries it); omit it to start at the oldest kept',
      },
      {
        name: 'size',
        in: 'query',
        schema: { type: 'integer', minimum: PAGE_SIZE.min, maximum: PAGE_SIZE.max, default: PAGE_SIZE.default },
        description:
          "events per page at most; a page ends early where its events' JSON reaches the answer bound " +
          `(${ANSWER_BOUND}): \`_links.next\` continues after its last event`,
      },
      {
        name: 'types',
        in: 'query',
        schema: { type: 'string' },
        description:
          'comma-separated event types, or a kind followed by `.*` for all of its types ' +
          '(`fulfilment.created,order.*`). ' +
          `Types: ${EVENT_TYPES.join(', ')}`,
      },
    );
  }
  if (route.kind !== 'position') {
    params.push({
      name: 'fields',
      in: 'query',
      schema: { type: 'string' },
      description:
        `Comma-separated subset of: ${fields.join(', ')}. Only these keys are sent, so ` +
        `the record's \`required\` list then holds for these keys only.`,
    });
    params.push({
      name: 'expand',
      in: 'query',
      schema: { type: 'string' },
      description: relations.length
        ? `Comma-separated relations to add: ${relations.join(', ')}, or \`all\``
        : `\`all\` is accepted (and adds nothing): a ${resource.name} has no relations to ` +
          `expand; its related records are always included`,
    });
  }
  return params;
}

function pathParameters(route: RouteSpec): JsonSchema[] {
  return [...route.path.matchAll(/\{(\w+)\}/g)].map(([, name]) => ({
    name,
    in: 'path',
    required: true,
    schema: integerSchema(POSITIVE_INT),
  }));
}

const ETAG_HEADER = {
  schema: { type: 'string' },
  description: 'strong ETag of the record version; fields/expand do not change it',
};

const PAGINATION_HEADERS = {
  'X-Pagination-Total-Count': { schema: { type: 'integer' }, description: 'records in the whole set' },
  'X-Pagination-Page-Count': { schema: { type: 'integer' }, description: 'pages of this size' },
  'X-Pagination-Current-Page': { schema: { type: 'integer' } },
  'X-Pagination-Per-Page': { schema: { type: 'integer' } },
  Link: { schema: { type: 'string' }, description: 'RFC 8288 links: self, first, last, prev, next' },
};

/** On every answer to a valid token (docs/decisions.md#rate-limits); not sent when limiting is off. */
const RATE_LIMIT_HEADERS = {
  'RateLimit-Limit': { schema: { type: 'integer' }, description: "the token's bucket size (requests)" },
  'RateLimit-Remaining': { schema: { type: 'integer' }, description: 'requests left in the bucket now' },
  'RateLimit-Reset': { schema: { type: 'integer' }, description: 'seconds until the bucket is full again' },
};
const RETRY_AFTER = {
  'Retry-After': { schema: { type: 'integer' }, description: 'whole seconds until the request would be allowed' },
};

/** The media type of the exports (docs/rest.md#exports). */
export const NDJSON = 'application/x-ndjson';

/** The last line of a whole export. */
const EXPORT_COMPLETE_LINE = {
  type: 'object',
  properties: {
    complete: { const: true },
    count: { type: 'integer', minimum: 0, description: 'records exported (lines before this one)' },
  },
  required: ['complete', 'count'],
  additionalProperties: false,
};

function operation(api: RestApi, route: DerivedRoute): JsonSchema {
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
      extraParameters.push({
        name: 'Idempotency-Key',
        in: 'header',
        schema: IDEMPOTENCY_KEY,
        description:
          'a retry with the same key and body answers the first answer again (kept 24 h); another body → 422',
      });
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
  // Every answer after authentication carries the rate-limit headers (a 401 comes before it).
  for (const [status, response] of Object.entries(responses)) {
    if (status === '401') continue;
    response.headers = {
      ...(response.headers as object | undefined),
      ...RATE_LIMIT_HEADERS,
      ...(status === '429' ? RETRY_AFTER : {}),
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

/**
 * Puts the operation's example from the demo store (assets/openapi-examples.json) into the document: the
 * path and query values as parameter examples, the body as the request example, the answer as the
 * example of its status.
 */
function withExample(
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

/**
 * OpenAPI 3.1 `webhooks`: what a subscribed endpoint receives (docs/decisions.md#webhooks), one entry per event
 * type. Subscriptions are made over GraphQL (`createWebhookSubscription`, scope `manage_webhooks`).
 */
function webhookDocs(): Record<string, JsonSchema> {
  const header = (name: string, description: string) => ({
    name,
    in: 'header',
    required: true,
    schema: { type: 'string' },
    description,
  });
  return Object.fromEntries(
    EVENT_TYPES.map((type) => [
      type,
      {
        post: {
          operationId: `${type.replace(/[._](\w)/g, (_, c: string) => c.toUpperCase())}Webhook`,
          summary: `${type} (webhook)`,
          description:
            `Sent to every subscription of \`${type}\` after the change committed, at least once: ` +
            'de-duplicate by `webhook-id`. ' +
            'Answer 2xx within WEBHOOK_TIMEOUT_MS (10 s); anything else is retried after 5 ' +
            's, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h, after which the subscription is ' +
            'disabled. ' +
            `\`data\`: ${EVENT_DATA[type.split('.')[0]]}.`,
          tags: ['Webhooks'],
          parameters: [
            header('webhook-id', '`evt_<event id>`: the same on every retry of this event'),
            header('webhook-timestamp', 'Unix seconds of this attempt'),
            header(
              'webhook-signature',
              '`v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>">` keyed ' +
                'with the base64-decoded part of the subscription secret `whsec_…` (Standard ' +
                'Webhooks; verify with the `standardwebhooks` package)',
            ),
          ],
          requestBody: {
            required: true,
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  properties: {
                    type: { const: type },
                    timestamp: { type: 'string', format: 'date-time', description: 'when the change was made' },
                    data: {
                      type: 'object',
                      additionalProperties: true,
                      description: 'the changed record in its REST shape (snake_case keys, Unix seconds)',
                    },
                  },
                  required: ['type', 'timestamp', 'data'],
                },
              },
            },
          },
          responses: { '2XX': { description: 'received; any other answer, or none within the timeout, is retried' } },
        },
      },
    ]),
  );
}

export function openApiDocument(api: RestApi, serverUrl = ''): JsonSchema {
  const routes = api.routes;
  const resources = new Map<string, DerivedResource>();
  for (const route of routes) resources.set(route.resource.name, route.resource);
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
