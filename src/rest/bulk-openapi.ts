import { BULK_MAX_LINES, BULK_SCOPES } from '../domain/bulk-operation.js';
import { EXAMPLES } from './examples/stored-examples.js';
import { integerSchema, POSITIVE_INT } from './integer-param.js';
import type { JsonSchema } from './json-schema.js';
import { IDEMPOTENCY_KEY_PARAMETER } from './openapi-operation.js';
import { RATE_LIMIT_HEADERS, RETRY_AFTER, WWW_AUTHENTICATE } from './openapi-responses.js';
import { API_PREFIX } from './router.js';

/**
 * The OpenAPI operations of the bulk operations' NDJSON ends (src/bulk/bulk-http.ts), which are not
 * routes of the table: uploading a file of REST writes or of GraphQL variables, and reading the
 * results. `GET /bulk-operations[/{id}]` and the cancel are routes of the table, documented with
 * the others. (docs/decisions.md#bulk-writes)
 */

const NDJSON = 'application/x-ndjson';
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const problem = (description: string) => ({
  description,
  content: { 'application/problem+json': { schema: ref('Problem') } },
});

/** One line of a REST bulk file. */
const REST_LINE: JsonSchema = {
  type: 'object',
  description: 'One write of /api/v1, as its request would send it',
  properties: {
    method: { enum: ['POST', 'PATCH', 'DELETE'] },
    path: {
      type: 'string',
      pattern: '^/',
      description:
        'the route under /api/v1 (the prefix may be written too), with its query string if any: ' +
        'any write route except the bulk operations’ own',
    },
    body: {
      oneOf: [{ type: 'object' }, { type: 'array', items: {} }],
      description: "the request's JSON body, when the route takes one",
    },
    headers: {
      type: 'object',
      properties: { 'If-Match': { type: 'string' } },
      additionalProperties: false,
      description: 'If-Match (a line runs exactly once: it takes no Idempotency-Key)',
    },
  },
  required: ['method', 'path'],
  additionalProperties: false,
};

const LINE_NUMBER = { type: 'integer', minimum: 1, description: 'the line of the file this is the result of' };

/** A result line of each form. */
const RESULT_LINE: JsonSchema = {
  oneOf: [
    {
      type: 'object',
      description: 'REST form: what the single request would have answered (a refusal: its problem+json)',
      properties: {
        line: LINE_NUMBER,
        status: { type: 'integer', description: 'the HTTP status' },
        body: { description: 'the answer, or the problem details of a refusal' },
        etag: { type: 'string', description: 'the ETag the answer carried' },
      },
      required: ['line', 'status', 'body'],
      additionalProperties: false,
    },
    {
      type: 'object',
      description: "GraphQL form: the mutation's answer with the line's variables",
      properties: {
        line: LINE_NUMBER,
        data: { type: ['object', 'null'] },
        errors: { type: 'array', items: { type: 'object' } },
      },
      required: ['line', 'data'],
      additionalProperties: false,
    },
  ],
};

/** Lines of NDJSON, each ending in a newline. */
const ndjsonText = (lines: object[]) => `${lines.map((line) => JSON.stringify(line)).join('\n')}\n`;

/** The demo store's answer to the example file (assets/openapi-examples.json), when it was taken. */
const UPLOADED = EXAMPLES['POST /bulk-operations'];

const REST_EXAMPLE = ndjsonText([
  { method: 'POST', path: '/orders/7/fulfilments', body: { items: [{ id: 19, quantity: 1, warehouse: 1 }] } },
  { method: 'PATCH', path: '/orders/8', body: { notes: 'Picked by the night shift' }, headers: { 'If-Match': '"4"' } },
  { method: 'DELETE', path: '/orders/9/fulfilments/12' },
]);

const RESULTS_EXAMPLE = ndjsonText([
  { line: 1, status: 201, body: { id: 7, status: 1 }, etag: '"5"' },
  {
    line: 2,
    status: 412,
    body: {
      type: '/problems/precondition-failed',
      title: 'Precondition Failed',
      status: 412,
      detail: 'Order 8 has changed since it was read (its version is now 5); read it again before writing',
    },
  },
  { line: 3, status: 200, body: { id: 9, status: 0 }, etag: '"3"' },
]);

const scopesText =
  `Requires one of the scopes ${BULK_SCOPES.map((s) => `\`${s}\``).join(', ')}; ` +
  'each line is then held to the scope of its own write.';

const common = (operationId: string, summary: string, description: string) => ({
  operationId,
  summary,
  description: `${description} ${scopesText} Not in the original specification (an extension).`,
  tags: ['BulkOperation'],
  'x-scopes': [...BULK_SCOPES],
});

/** The rate-limit headers on every answer to a valid token, Retry-After on 429 and 503, a 401's challenge. */
function withRateLimit(responses: Record<string, JsonSchema>): Record<string, JsonSchema> {
  for (const [status, response] of Object.entries(responses)) {
    const headers = response.headers as object | undefined;
    if (status === '401') {
      response.headers = { ...headers, ...WWW_AUTHENTICATE };
      continue;
    }
    response.headers = { ...headers, ...RATE_LIMIT_HEADERS, ...(['429', '503'].includes(status) ? RETRY_AFTER : {}) };
  }
  return responses;
}

const UPLOAD_PROBLEMS = {
  '400': problem(
    'A line that is not a JSON object of its form (named in `errors`, `line <n>`), an empty file, or a ' +
      'cut-off upload: nothing of the file was kept',
  ),
  '401': problem('Missing or unknown bearer token'),
  '403': problem('The token holds none of the scopes of a write'),
  '413': problem(
    `The file is larger than BULK_UPLOAD_MAX_BYTES (100 MiB unless set), has more than ${BULK_MAX_LINES} lines, ` +
      'or a line is longer than 1 MiB and its envelope: nothing was kept',
  ),
  '414': problem('The query string is too long'),
  '409': problem('A request with this Idempotency-Key is still running: retry later'),
  '415': problem(`The body is not ${NDJSON}, or is compressed`),
  '422': problem('This Idempotency-Key was used with another file'),
  '429': problem("The token's rate-limit bucket is empty: retry after `Retry-After` seconds"),
  '500': problem('Internal error (never shows details)'),
  '503': problem(
    'The database is unreachable right now, or this process receives as many uploads as it takes at once ' +
      '(`type` `/problems/overloaded`): retry after `Retry-After` seconds',
  ),
};

/** The three operations, by path. */
export function bulkOperationPaths(): Record<string, Record<string, JsonSchema>> {
  return {
    [`${API_PREFIX}/bulk-operations`]: {
      post: {
        ...common(
          'postBulkOperations',
          'Start a bulk operation: a file of REST writes, applied in the background',
          'The body is NDJSON, one write per line. The file is stored (all of it or, on any malformed line, ' +
            'none of it) and an operation made, answered 202; its lines are then applied in file order, each ' +
            'exactly once, each as its single request would be (route, scopes, validation, If-Match, business ' +
            'rules, events, webhooks). Charged as one request. Poll the operation, then read its results.',
        ),
        parameters: [IDEMPOTENCY_KEY_PARAMETER],
        requestBody: {
          required: true,
          content: {
            [NDJSON]: {
              schema: { type: 'string', description: 'newline-delimited JSON; `x-ndjson-line` describes each line' },
              'x-ndjson-line': REST_LINE,
              example: typeof UPLOADED?.request.body === 'string' ? UPLOADED.request.body : REST_EXAMPLE,
            },
          },
        },
        responses: withRateLimit({
          '202': {
            description: 'the operation, created (it runs in the background)',
            headers: { Location: { schema: { type: 'string' }, description: 'the operation’s URL' } },
            content: {
              'application/json': {
                schema: ref('BulkOperation'),
                ...(UPLOADED ? { example: UPLOADED.response } : {}),
              },
            },
          },
          ...structuredClone(UPLOAD_PROBLEMS),
        }),
      },
    },
    [`${API_PREFIX}/bulk-operations/uploads`]: {
      post: {
        ...common(
          'postBulkOperationsUploads',
          'Upload GraphQL variables for bulkOperationRunMutation',
          'The body is NDJSON, one JSON object of variables per line; then `bulkOperationRunMutation(mutation, ' +
            'uploadId)` runs a mutation once per line. An upload is run once; one never run is deleted after ' +
            'BULK_RETENTION_DAYS.',
        ),
        parameters: [IDEMPOTENCY_KEY_PARAMETER],
        requestBody: {
          required: true,
          content: {
            [NDJSON]: {
              schema: { type: 'string', description: 'newline-delimited JSON; `x-ndjson-line` describes each line' },
              'x-ndjson-line': { type: 'object', description: 'the variables of one run of the mutation' },
              example: '{"id": 7, "notes": "Picked"}\n{"id": 8, "notes": "Picked"}\n',
            },
          },
        },
        responses: withRateLimit({
          '201': {
            description: 'the upload: its id (`uploadId`) and how many lines it holds',
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  properties: { id: { type: 'integer', minimum: 1 }, lines: { type: 'integer', minimum: 1 } },
                  required: ['id', 'lines'],
                  additionalProperties: false,
                },
                example: { id: 3, lines: 2 },
              },
            },
          },
          ...structuredClone(UPLOAD_PROBLEMS),
        }),
      },
    },
    [`${API_PREFIX}/bulk-operations/{id}/results`]: {
      get: {
        ...common(
          'getBulkOperationsByIdResults',
          'The results of a bulk operation, one line per applied line, in input order (NDJSON)',
          'Each applied line has its result: the REST form’s `{"line", "status", "body"}` (and `etag`), the ' +
            'GraphQL form’s `{"line", "data", "errors"}`. While the operation runs this is the results so far; ' +
            'a canceled or failed operation’s lines after its last result were not applied. ' +
            '`failed=true` keeps the refused and failed lines only (to retry them).',
        ),
        parameters: [
          {
            name: 'id',
            in: 'path',
            required: true,
            schema: integerSchema(POSITIVE_INT),
            description: 'BulkOperation id',
          },
          {
            name: 'failed',
            in: 'query',
            schema: { type: 'boolean' },
            description: 'true: only the lines whose result is a refusal or an error',
          },
        ],
        responses: withRateLimit({
          '200': {
            description: 'the results so far, one JSON object per line, in line order',
            content: {
              [NDJSON]: {
                schema: { type: 'string', description: 'newline-delimited JSON; `x-ndjson-line` describes each line' },
                'x-ndjson-line': RESULT_LINE,
                example: RESULTS_EXAMPLE,
              },
            },
          },
          '400': problem('An unknown query parameter, or `failed` not true or false'),
          '401': problem('Missing or unknown bearer token'),
          '403': problem('The token holds none of the scopes of a write'),
          '404': problem('No bulk operation of this token has this id'),
          '414': problem('The query string is too long'),
          '429': problem("The token's rate-limit bucket is empty: retry after `Retry-After` seconds"),
          '500': problem('Internal error (never shows details)'),
          '503': problem('The database is unreachable right now; retry after `Retry-After` seconds'),
        }),
      },
    },
  };
}
