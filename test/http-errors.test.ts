// docs/decisions.md#errors: problem+json for every refusal, never a stack or SQL.
import net from 'node:net';
import { startTestService, type TestService } from './support/harness.js';

let service: TestService;
beforeAll(async () => {
  service = await startTestService();
});
afterAll(() => service.stop());

const isProblem = (res: { headers: Headers; body: any }, status: number) => {
  expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(res.body).toEqual(
    expect.objectContaining({
      type: expect.any(String),
      title: expect.any(String),
      status,
      detail: expect.any(String),
    }),
  );
};

it('answers an unknown route with 404', async () => {
  for (const path of ['/api/v1/nope', '/api/v2/products', '/nothing-here', '/api/v1/PRODUCTS', '/api/v1/products/']) {
    const res = await service.get(path);
    expect(res.status).toBe(404);
    isProblem(res, 404);
  }
});

it('answers a wrong method with 405 and Allow', async () => {
  for (const [method, path] of [
    ['DELETE', '/api/v1/products'],
    ['PUT', '/api/v1/products/1'],
    ['POST', '/api/v1/warehouses'],
  ]) {
    const res = await service.send(method, path, {});
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toContain('GET');
    isProblem(res, 405);
  }
  // OPTIONS (outside the OpenAPI document, so sent as it is) names the path's own methods too.
  const options = await fetch(`${service.url}/api/v1/orders/search`, { method: 'OPTIONS' });
  expect({ status: options.status, allow: options.headers.get('allow') }).toEqual({ status: 200, allow: 'POST' });
  // A path of its own beside `/orders/{id}` (search, export) is that path, not an id.
  for (const [method, path, allow] of [
    ['GET', '/api/v1/orders/search', 'POST'],
    ['GET', '/api/v1/customers/search', 'POST'],
    ['DELETE', '/api/v1/orders/search', 'POST'],
    ['PATCH', '/api/v1/orders/export', 'GET, POST'],
  ]) {
    const res = await service.send(method, path, method === 'GET' ? undefined : {});
    expect({ method, path, status: res.status, allow: res.headers.get('allow') }).toEqual({
      method,
      path,
      status: 405,
      allow,
    });
    isProblem(res, 405);
  }
});

it('answers an operation the schema cannot run as a client error, not a server error', async () => {
  const res = await service.graphql('subscription { x }');
  expect(res.body.errors[0].extensions.code).not.toBe('INTERNAL_SERVER_ERROR');
});

it('answers a query string of more than 64 parameters with 414, on every path', async () => {
  const many = Array.from({ length: 65 }, () => 'a').join('&');
  for (const path of [`/graphql?query={__typename}&${many}`, `/api/v1/orders?${many}`, `/nothing-here?${many}`]) {
    const res = await service.get(path);
    expect({ path, status: res.status }).toEqual({ path, status: 414 });
    isProblem(res, 414);
  }
  // 64 are taken (the unknown ones are the route's to judge).
  const most = Array.from({ length: 63 }, () => 'a').join('&');
  expect((await service.get(`/api/v1/orders?size=1&${most}`)).status).not.toBe(414);
});

it('answers malformed JSON with 400', async () => {
  const res = await service.send('POST', '/graphql', '{"query": ', undefined, { 'content-type': 'application/json' });
  expect(res.status).toBe(400);
  isProblem(res, 400);
  expect(res.body.detail).toMatch(/JSON/);
});

it('reads a body sent as any JSON media type (a merge-patch too), never leaving it unread', async () => {
  const [{ id }] = await service.sql<{ id: number }>('select id from product order by id limit 1');
  const merged = await service.send(
    'PATCH',
    `/api/v1/products/${id}`,
    JSON.stringify({ title: 'Merged title' }),
    undefined,
    {
      'content-type': 'application/merge-patch+json',
    },
  );
  expect(merged.status).toBe(200);
  expect(merged.body.title).toBe('Merged title');
  expect((await service.get(`/api/v1/products/${id}`)).body.title).toBe('Merged title');
});

it('never runs a write whose client closed the request before its body was read', async () => {
  const [{ id }] = await service.sql<{ id: number }>('select id from customer where erased_at is null limit 1');
  const versionOf = async () =>
    (await service.sql<{ version: number }>('select version from customer where id = ?', [id]))[0].version;
  const before = await versionOf();
  const { hostname, port } = new URL(service.url);
  const body = JSON.stringify({ notes: 'sent by a client that left' });
  // Each request is sent whole, then its connection closed at once: the service may take the body
  // (the write applies, with it) or find the request closed (nothing applies), never an empty PATCH.
  for (let i = 0; i < 20; i++) {
    await new Promise<void>((resolve) => {
      const socket = net.connect(Number(port), hostname, () => {
        socket.write(
          `PATCH /api/v1/customers/${id} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${service.token}\r\n` +
            `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
        );
        socket.destroy();
        resolve();
      });
      socket.on('error', () => undefined);
    });
  }
  await new Promise((resolve) => setTimeout(resolve, 500));
  const events = await service.sql<{ data: Record<string, unknown> }>(
    "select data from event where type = 'customer.updated' and subject_id = ?",
    [id],
  );
  // Every write that ran carried the notes; as many ran as the version moved.
  expect(events.filter((e) => e.data.notes !== 'sent by a client that left')).toEqual([]);
  expect((await versionOf()) - before).toBe(events.length);
});

it('answers a body over 1 MiB with 413', async () => {
  const huge = JSON.stringify({ query: '{ products { totalCount } }', padding: 'x'.repeat(1024 * 1024 + 10) });
  const res = await service.send('POST', '/graphql', huge);
  expect(res.status).toBe(413);
  isProblem(res, 413);
});

it('never shows a stack or SQL, even for SQL-looking input', async () => {
  const res = await service.get(`/api/v1/products?sort=${encodeURIComponent('title; drop table product;--')}`);
  expect(res.status).toBe(400);
  expect(res.text).not.toMatch(/at .*\.ts:\d+|select |insert /i);
  const [{ count }] = await service.sql<{ count: string }>('select count(*) from product');
  expect(Number(count)).toBe(60);
});
