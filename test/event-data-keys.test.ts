// An event's `data` is in its REST shape (docs/decisions.md#integrations): a change made through a
// product, collection or customer write names each field as the REST body names it, and writes a
// product's price as the JSON number REST shows. The names REST gives otherwise than the input's
// snake_case are held to every write route's body map here.
import { REST_BODY_NAMES, restKeys } from '../src/domain/event-data.js';
import type { FieldMap } from '../src/rest/fields.js';
import { routes } from '../src/rest/routes.js';
import { startTestService, type TestService } from './support/harness.js';

const camel = (key: string) => key.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());

/** [input field, REST key] of each body key whose input field is not its camelCase, nested maps too. */
function renamed(map: FieldMap): [string, string][] {
  return Object.entries(map).flatMap(([key, spec]): [string, string][] => [
    ...(spec.gql && spec.gql !== camel(key) ? [[spec.gql, key] as [string, string]] : []),
    ...(spec.sub ? renamed(spec.sub) : []),
  ]);
}

it('names every input field as the REST bodies do', () => {
  const pairs = routes.flatMap((route) => (route.kind === 'write' && route.body ? renamed(route.body) : []));
  expect(pairs.length).toBeGreaterThan(2);
  for (const [input, key] of pairs) {
    expect({ input, key: Object.keys(restKeys({ [input]: [1] }) as object)[0] }).toEqual({ input, key });
  }
  expect(Object.keys(REST_BODY_NAMES).sort()).toEqual([...new Set(pairs.map(([input]) => input))].sort());
});

describe('a product change as an event', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService();
  });
  afterAll(() => service.stop());

  it('carries the body’s keys and its price as a number, as the REST record shows them', async () => {
    const [{ id }] = await service.sql<{ id: number }>('select id from product where not is_multi order by id limit 1');
    const [{ id: collection }] = await service.sql<{ id: number }>('select id from collection where type = 0 limit 1');
    const [{ id: image }] = await service.sql<{ id: number }>('select id from image order by id limit 1');
    const body = { collections: [collection], images: [image], price: 12.5 };
    expect((await service.send('PATCH', `/api/v1/products/${id}`, body)).status).toBe(200);
    const [event] = await service.sql<{ data: Record<string, unknown> }>(
      "select data from event where type = 'product.updated' and subject_id = ? order by id desc limit 1",
      [id],
    );
    expect(event.data).toEqual({ id, ...body });
    const record = (await service.get(`/api/v1/products/${id}`)).body;
    expect(typeof record.price).toBe(typeof event.data.price);
  });
});
