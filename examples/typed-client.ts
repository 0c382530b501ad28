// A typed REST client in a few lines: types generated from the served OpenAPI document with
// openapi-typescript, requests made with openapi-fetch. test/typed-client.test.ts generates
// store-api.d.ts, type-checks this file under `strict` and runs it against the service.
//
//   npx openapi-typescript http://localhost:3000/api/v1/openapi.json -o store-api.d.ts
import createClient from 'openapi-fetch';
import type { paths } from './store-api.js';

export async function tour(baseUrl: string, token: string) {
  const api = createClient<paths>({ baseUrl, headers: { authorization: `Bearer ${token}` } });

  // A page of orders, newest first: `data` is typed, every field of an order is there.
  const { data: page, error } = await api.GET('/api/v1/orders', {
    params: { query: { size: 5, sort: '-order_date' } },
  });
  if (error) throw new Error(`${error.status} ${error.title}: ${error.detail}`);
  const newest = page.items[0];
  const units: number = newest.items.reduce((sum, line) => sum + line.status.quantity, 0);

  // One collection with its member products (`expand`), and one order read by id.
  const { data: collection } = await api.GET('/api/v1/collections/{id}', {
    params: { path: { id: 1 }, query: { expand: 'products' } },
  });
  const { data: order } = await api.GET('/api/v1/orders/{id}', {
    params: { path: { id: newest.id }, query: { expand: 'all' } },
  });

  // A search: the body's filters are typed too.
  const { data: smiths } = await api.POST('/api/v1/customers/search', {
    params: { query: { size: 3 } },
    body: { last_name: 'Smith' },
  });

  // A write, retried safely with an idempotency key.
  const { data: noted, response } = await api.PATCH('/api/v1/orders/{id}', {
    params: { path: { id: newest.id }, header: { 'Idempotency-Key': `note-${newest.id}` } },
    body: { notes: 'Call before delivery' },
  });

  return {
    newestId: newest.id,
    newestStatus: newest.status,
    units,
    collectionProducts: collection?.products ?? [],
    orderTotal: order?.total,
    smiths: smiths?.items.map((c) => c.email) ?? [],
    notes: noted?.notes,
    etag: response.headers.get('etag'),
  };
}
