import { DEFAULT_ANSWER_MAX_BYTES } from '../config.js';
import { INPUT_LIMITS } from '../domain/input-limits.js';
import { PAGE_SIZE } from '../schema/page-size.js';
import type { JsonSchema } from './json-schema.js';

const BOUND = `${DEFAULT_ANSWER_MAX_BYTES / (1024 * 1024)} MiB`;

/**
 * The parts of the OpenAPI document that are prose rather than generated from the route table: the
 * conventions every operation shares (said once, in `info.description`), the tags, and the
 * operational routes served outside /api/v1.
 */
export const CONVENTIONS =
  `REST v1 of the store-management service. Every \`/api/v1\` operation ` +
  `maps onto the GraphQL service at \`/graphql\`, which offers more (see the GraphQL reference at ` +
  `\`/docs/graphql\`).

## Authentication
Send an API token as \`Authorization: Bearer <token>\`. Create one with \`npm run token -- create ` +
  `--name <name> --scopes <scope,…>\` (\`--scopes all\` for every scope); \`npm start\` prints one ` +
  `on the first start. Each operation names the one scope it needs (\`x-scopes\` and its ` +
  `description); a missing or unknown token is a 401, a token without the scope a 403.

## Lists and pagination
Lists take \`page\` (from 1), \`size\` (${PAGE_SIZE.min}–${PAGE_SIZE.max}, default ` +
  `${PAGE_SIZE.default}) and \`sort\` (comma-separated keys, \`!key\` or \`-key\` for descending; ` +
  `\`id\` breaks ties). The answer carries \`X-Pagination-Total-Count\`, ` +
  `\`X-Pagination-Page-Count\`, \`X-Pagination-Current-Page\`, \`X-Pagination-Per-Page\` and an RFC ` +
  `8288 \`Link\` header (\`self\`, \`first\`, \`last\`, \`prev\`, \`next\`); wrapped lists repeat ` +
  `them in \`_links\` and \`_meta\`. One answer holds at most ${BOUND} of records' JSON (unless ` +
  `\`ANSWER_MAX_BYTES\` sets another bound): a list page over it is a 400 \`/problems/answer-too-large\` ` +
  `(ask a smaller \`size\` or fewer fields), the event feed ends a page early (follow \`_links.next\`), ` +
  `an export's lines come all the same.

## Choosing fields
\`fields=a,b\` sends only those keys of each record: the record schemas' \`required\` lists ` +
  `describe answers without \`fields\`, and with it only the named keys are present. \`expand=x,y\` ` +
  `(or \`all\`) adds the related records listed on the operation.

## Errors
Every error is RFC 9457 \`application/problem+json\` with \`type\`, \`title\`, \`status\`, ` +
  `\`detail\`; bad input is a 400 (query) or 422 (body) whose \`errors\` array names each field: ` +
  `the first ${INPUT_LIMITS.reported} at most, with \`errors_omitted\` counting the rest. A JSON ` +
  `object holds at most ${INPUT_LIMITS.keys} keys and a body ${INPUT_LIMITS.values} values in all ` +
  `(a 422 naming the object). A 5xx never shows internals; a 503 says to retry after ` +
  `\`Retry-After\`.

## Rate limits
Each token has a bucket (100 requests by default, refilled at 50/s). Every authenticated answer ` +
  `carries \`RateLimit-Limit\`, \`RateLimit-Remaining\` and \`RateLimit-Reset\`; an empty bucket ` +
  `answers 429 with \`Retry-After\` in whole seconds.

## Idempotency
Send \`Idempotency-Key: <unique string>\` on a write to retry it safely: the same key with the same ` +
  `body answers the first answer again (status, body, ETag) without doing the work twice, for 24 ` +
  `hours; the same key with another body is a 422.

## ETags and conditional requests
Single reads and write answers carry a strong \`ETag\` (the record version; \`fields\`/\`expand\` ` +
  `do not change it). \`If-None-Match\` answers 304 while it still matches; \`If-Match\` on a write ` +
  `answers 412, changing nothing, once the record has moved on. Writes under an order compare with ` +
  `the order's ETag.

## Webhooks
The \`webhooks\` section lists what a subscribed endpoint receives. Subscribe over GraphQL with ` +
  `\`createWebhookSubscription\` (scope \`manage_webhooks\`, plus the read scope of each event ` +
  `type's records); deliveries are signed per the Standard Webhooks specification.`;

/**
 * Tags whose prose says more than the GraphQL type's description, plus the operational routes. A
 * resource without an entry here is tagged with its GraphQL type's description (openapi.ts).
 */
export const TAGS: { name: string; description: string }[] = [
  {
    name: 'Order',
    description:
      'Orders with their line items, fulfilments, shipments and restocks; edits of notes, address and customer',
  },
  { name: 'Fulfilment', description: 'Sending order units to fulfilment, shipping them, restocking them' },
  { name: 'Shipment', description: 'Shipments of fulfilled units, with tracking numbers' },
  { name: 'Product', description: 'Products with variants, options, texts, images and collections' },
  { name: 'Collection', description: 'Manual and rule-based collections of products' },
  { name: 'Customer', description: 'Customers with addresses, payment methods and order statistics' },
  { name: 'ShippingCarrier', description: 'Carriers that shipments are handed to' },
  { name: 'Warehouse', description: 'Warehouses and the stock they hold' },
  { name: 'Event', description: "An order's timeline: every change to it, with the token that made it" },
  { name: 'Webhooks', description: 'What a webhook subscription receives: one signed POST per event' },
  { name: 'Operations', description: 'Liveness, readiness and Prometheus metrics, outside /api/v1' },
];

const statusBody = (value: string): JsonSchema => ({
  type: 'object',
  properties: { status: { type: 'string', const: value } },
  required: ['status'],
  additionalProperties: false,
});
/** /readyz: its status, and each read replica's when DATABASE_READ_URL names some (read-replicas.ts `status`). */
const readyBody: JsonSchema = {
  ...statusBody('ready'),
  properties: {
    status: { type: 'string', const: 'ready' },
    replicas: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          name: { type: 'string' },
          host: { type: 'string' },
          state: { type: 'string', enum: ['streaming', 'lagging', 'down'] },
          lagMs: { type: ['number', 'null'] },
        },
        required: ['name', 'host', 'state', 'lagMs'],
        additionalProperties: false,
      },
    },
  },
};
const problem = (description: string) => ({
  description,
  content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
});

/** /healthz, /readyz and /metrics (src/observability/health.ts). */
export const OPERATIONAL_PATHS: Record<string, Record<string, JsonSchema>> = {
  '/healthz': {
    get: {
      operationId: 'getHealthz',
      summary: 'Liveness: the process answers',
      description: 'Public. Answers 200 as long as the process runs; it does not touch the database.',
      tags: ['Operations'],
      security: [],
      responses: {
        '200': {
          description: 'alive',
          content: { 'application/json': { schema: statusBody('ok'), example: { status: 'ok' } } },
        },
      },
    },
  },
  '/readyz': {
    get: {
      operationId: 'getReadyz',
      summary: 'Readiness: the database answers and the migrations are applied',
      description: 'Public. A load balancer should send traffic only while this answers 200.',
      tags: ['Operations'],
      security: [],
      responses: {
        '200': {
          description: 'ready for traffic; with read replicas configured, how each stands (never a reason to refuse)',
          content: { 'application/json': { schema: readyBody, example: { status: 'ready' } } },
        },
        '503': problem('The database is unreachable or migrations are pending'),
      },
    },
  },
  '/metrics': {
    get: {
      operationId: 'getMetrics',
      summary: 'Prometheus metrics',
      description: 'Requires the scope `read_metrics` (a token that can read metrics and nothing else).',
      tags: ['Operations'],
      'x-scopes': ['read_metrics'],
      responses: {
        '200': {
          description: 'metrics in the Prometheus text format',
          content: {
            'text/plain': {
              schema: { type: 'string' },
              example: '# HELP http_requests_total HTTP requests\n# TYPE http_requests_total counter\n',
            },
          },
        },
        '401': problem('Missing or unknown bearer token'),
        '403': problem('The token lacks the scope read_metrics'),
        '503': problem('The database is unavailable, so the token cannot be checked'),
      },
    },
  },
};
