import { EVENT_DATA, EVENT_TYPES } from '../domain/event-types.js';
import type { JsonSchema } from './json-schema.js';

// The `webhooks` of the OpenAPI document (src/rest/openapi.ts): what a subscriber is sent, which
// no route of the table describes.

/**
 * OpenAPI 3.1 `webhooks`: what a subscribed endpoint receives (docs/decisions.md#webhooks), one entry per event
 * type. Subscriptions are made over GraphQL (`createWebhookSubscription`, scope `manage_webhooks`).
 */
export function webhookDocs(): Record<string, JsonSchema> {
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
