// Metafields in live data (docs/decisions.md#custom-data-metafields): a change of an order's
// metafields reaches a GraphQL subscriber of `order.updated` over WebSocket, with the metafields
// in `data`, as any event of the feed does (the feed and webhooks: test/metafields.test.ts).
import { type Client, createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { createDatabase } from './support/harness.js';
import { type ServerProcess, startServerProcess } from './support/server-process.js';

const ADMIN = 'sk_metafield_events_admin_token_0123456789';
let service: ServerProcess;
let subscriber: Client;
beforeAll(async () => {
  service = await startServerProcess(await createDatabase(), ADMIN, { RATE_LIMIT_RPS: '0', RATE_LIMIT_BURST: '0' });
}, 60_000);
afterAll(async () => {
  await subscriber?.dispose();
  await service.stop();
}, 60_000);

async function graphql(query: string, variables?: Record<string, unknown>) {
  const res = await fetch(`${service.url}/graphql`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ query, variables }),
  });
  const body = (await res.json()) as { data?: any; errors?: unknown[] };
  if (body.errors) throw new Error(JSON.stringify(body.errors));
  return body.data;
}

it('pushes order.updated with the metafields set to a subscriber', async () => {
  await graphql(`mutation { createMetafieldDefinition(ownerType: ORDER, namespace: "erp", key: "order_no",
    type: "single_line_text_field", name: "ERP order number") { id } }`);
  subscriber = createClient({
    url: `${service.url.replace(/^http/, 'ws')}/graphql`,
    webSocketImpl: WebSocket,
    connectionParams: { Authorization: `Bearer ${ADMIN}` },
    retryAttempts: 0,
  });
  const live = subscriber.iterate<{ events: { type: string; data: unknown } }>({
    query: 'subscription { events(after: 0, types: ["order.updated"]) { id type data } }',
  });
  const res = await fetch(`${service.url}/api/v1/orders/3`, {
    method: 'PATCH',
    headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ metafields: { 'erp.order_no': 'A-3' } }),
  });
  expect(res.status).toBe(200);
  const next = await Promise.race([
    live.next(),
    new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), 15_000)),
  ]);
  expect(next).not.toBe('timeout');
  const { value } = next as IteratorResult<{ data?: { events: { type: string; data: unknown } } }>;
  expect(value?.data?.events).toMatchObject({
    type: 'order.updated',
    data: { id: 3, metafields: { 'erp.order_no': 'A-3' } },
  });
  await live.return?.();
}, 60_000);
