// A hard JSON edge: each request of docs/operations.md#hostile-load-findings, reproduced, gets a 4xx naming
// its cause (never a 500), changes nothing, and /healthz keeps answering within 200 ms meanwhile.
import { request } from 'node:http';
import { connect } from 'node:net';
import { whileAbusing } from '../support/abuse.js';
import { startTestService, type TestService } from '../support/harness.js';

let service: TestService;
beforeAll(async () => {
  service = await startTestService({ timeouts: { bodyMs: 500, headersMs: 1000, requestMs: 2000 } });
});
afterAll(() => service.stop());

const json = (extra: Record<string, string> = {}) => ({
  authorization: `Bearer ${service.token}`,
  'content-type': 'application/json',
  ...extra,
});
const raw = async (method: string, path: string, body: string, headers: Record<string, string> = json()) => {
  const res = await fetch(service.url + path, { method, headers, body });
  const text = await res.text();
  return { status: res.status, type: res.headers.get('content-type'), body: JSON.parse(text), text };
};
const customer7 = async () =>
  (await service.sql<{ t: string }>('select row_to_json(c)::text as t from customer c where id = 7'))[0].t;

it('D5: 20 000 nested brackets with an Idempotency-Key are a 422 naming the depth, on every body route', async () => {
  const before = await customer7();
  const deep = '['.repeat(20_000) + ']'.repeat(20_000);
  const { results, healthzMs } = await whileAbusing(service.url, 8, (i) =>
    raw(
      i % 2 ? 'PATCH' : 'POST',
      i % 2 ? '/api/v1/customers/7' : '/api/v1/orders/search',
      i % 4 === 1 ? `{"notes":${deep}}` : deep,
      json({ 'idempotency-key': `deep-${i}` }),
    ),
  );
  for (const res of results) {
    expect(res.status).toBe(422);
    expect(res.type).toMatch(/application\/problem\+json/);
    expect(res.body.errors[0].message).toBe('nests deeper than 32 levels');
  }
  expect(results[1].body.errors[0].field).toMatch(/^notes\[0\]/);
  expect(healthzMs).toBeLessThan(200);
  expect(await customer7()).toBe(before);
});

it('D6: a body that is not what its Content-Encoding says is a 400, an unknown encoding a 415', async () => {
  const before = await customer7();
  const { results, healthzMs } = await whileAbusing(service.url, 6, (i) =>
    raw(
      'PATCH',
      '/api/v1/customers/7',
      'not gzip at all',
      json({ 'content-encoding': ['gzip', 'deflate', 'br'][i % 3] }),
    ),
  );
  for (const bad of results) {
    expect(bad.status).toBe(400);
    expect(bad.body.errors).toEqual([{ field: 'Content-Encoding', message: 'does not match the body' }]);
  }
  expect(healthzMs).toBeLessThan(200);
  expect(await customer7()).toBe(before);
  const deflate = await raw('POST', '/api/v1/orders/search', 'xx', json({ 'content-encoding': 'deflate' }));
  expect(deflate.status).toBe(400);
  const unknown = await raw('PATCH', '/api/v1/customers/7', '{}', json({ 'content-encoding': 'zstd-x' }));
  expect(unknown.status).toBe(415);
  expect(unknown.body.errors[0].field).toBe('Content-Encoding');
});

it(
  'D7: lone surrogates are a 422 naming the field (REST) ' +
    'and BAD_USER_INPUT naming it (GraphQL); nothing is stored',
  async () => {
    const before = await customer7();
    const { results, healthzMs } = await whileAbusing(service.url, 6, () =>
      raw('PATCH', '/api/v1/customers/7', '{"email":"\\ud800@example.com"}'),
    );
    expect(results.map((r) => r.status)).toEqual(Array(6).fill(422));
    expect(healthzMs).toBeLessThan(200);
    const email = results[0];
    expect(email.body.errors).toEqual([{ field: 'email', message: expect.stringMatching(/valid Unicode/) }]);
    expect(await customer7()).toBe(before);
    const title = await raw('PATCH', '/api/v1/products/1', '{"title":"\\ud800"}');
    expect(title.status).toBe(422);
    expect(title.body.errors[0].field).toBe('title');
    const search = await raw('POST', '/api/v1/customers/search', '{"email":"\\udc00x"}');
    expect(search.status).toBe(422);
    expect(search.body.errors[0].field).toBe('email');
    const gql = await service.graphql('mutation($t: String!) { createWarehouse(title: $t) { id } }', { t: 'a\ud800b' });
    expect(gql.body.errors[0].extensions).toEqual({
      code: 'BAD_USER_INPUT',
      fields: [{ field: 'title', message: expect.stringMatching(/valid Unicode/) }],
    });
    expect(
      (await service.sql<{ n: number }>("select count(*)::int as n from warehouse where title like 'a%b'"))[0].n,
    ).toBe(0);
  },
);

it('numbers outside every range (1e309) are a 422 naming the field', async () => {
  const { results, healthzMs } = await whileAbusing(service.url, 6, () =>
    raw('PATCH', '/api/v1/products/1', '{"shipping_weight":1e309}'),
  );
  expect(healthzMs).toBeLessThan(200);
  const res = results[0];
  expect(results.map((r) => r.status)).toEqual(Array(6).fill(422));
  expect(res.body.errors).toEqual([{ field: 'shipping_weight', message: 'is outside the range of numbers' }]);
  expect(res.text).not.toMatch(/\$input|Infinity/);
  const gql = await raw(
    'POST',
    '/graphql',
    '{"query":"query($s:Int){products(size:$s){totalCount}}","variables":{"s":-1e999}}',
  );
  expect(gql.body.errors[0].extensions.fields).toEqual([{ field: '$s', message: 'is outside the range of numbers' }]);
});

it(
  'checks the scope before the body: ' + 'a read-only token sending an invalid body to a write route gets 403',
  async () => {
    const readOnly = await service.tokenWith(['read_customers', 'read_orders']);
    const before = await customer7();
    for (const [method, path] of [
      ['PATCH', '/api/v1/customers/7'],
      ['POST', '/api/v1/orders/1/fulfilments'],
    ]) {
      const res = await raw(
        method,
        path,
        '{"nope": [1, {"deeper": "\\ud800"}]}',
        json({ authorization: `Bearer ${readOnly}` }),
      );
      expect(res.status).toBe(403);
      expect(res.body.detail).toMatch(/lacks the scope write_/);
    }
    expect(await customer7()).toBe(before);
  },
);

it('refuses very deep GraphQL documents with QUERY_TOO_DEEP, not a stack overflow', async () => {
  const query = `{ a${' { a'.repeat(20_000)}${' }'.repeat(20_001)}`;
  const { results, healthzMs } = await whileAbusing(service.url, 6, () => service.graphql(query));
  for (const res of results) {
    expect(res.status).toBe(400);
    expect(res.body.errors[0].extensions.code).toBe('QUERY_TOO_DEEP');
    expect(res.text).not.toMatch(/call stack/i);
  }
  expect(healthzMs).toBeLessThan(200);
  const args = await service.graphql(
    `{ products(filter: ${'{ a: '.repeat(5000)}1${' }'.repeat(5000)}) { totalCount } }`,
  );
  expect(args.body.errors[0].extensions.code).toBe('QUERY_TOO_DEEP');
});

/** GET with a chosen Host header (fetch does not let a caller set Host). */
function getWithHost(
  base: string,
  path: string,
  host: string,
  token = service.token,
): Promise<{ status: number; link: string; body: any }> {
  return new Promise((resolve, reject) => {
    const req = request(base + path, { headers: { host, authorization: `Bearer ${token}` } }, (res) => {
      let text = '';
      res.on('data', (c) => (text += c));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, link: String(res.headers.link ?? ''), body: JSON.parse(text) }),
      );
    });
    req.on('error', reject);
    req.end();
  });
}

it('never puts a client-chosen Host into links', async () => {
  const res = await getWithHost(service.url, '/api/v1/products?size=2', 'evil.example');
  expect(res.status).toBe(200);
  expect(JSON.stringify(res.body._links)).not.toContain('evil.example');
  expect(res.body._links.self.href).toBe(`${service.url}/api/v1/products?size=2&page=1`);
  expect(res.link).not.toContain('evil.example');
  const allowed = await startTestService({ allowedHosts: ['shop.example:8080'] });
  try {
    const listed = await getWithHost(allowed.url, '/api/v1/products?size=2', 'shop.example:8080', allowed.token);
    expect(listed.body._links.self.href).toBe('http://shop.example:8080/api/v1/products?size=2&page=1');
    const other = await getWithHost(allowed.url, '/api/v1/products?size=2', 'evil.example', allowed.token);
    expect(other.body._links.self.href).toBe(`${allowed.url}/api/v1/products?size=2&page=1`);
  } finally {
    await allowed.stop();
  }
});

/** Sends `head` on a raw socket and resolves with what the server answered and when it closed. */
function slowClient(head: string): Promise<{ answer: string; closedAfterMs: number }> {
  const { port } = new URL(service.url);
  return new Promise((resolve, reject) => {
    const started = Date.now();
    let answer = '';
    const socket = connect(Number(port), '127.0.0.1', () => socket.write(head));
    socket.on('data', (chunk) => (answer += chunk.toString()));
    socket.on('error', reject);
    socket.on('close', () => resolve({ answer, closedAfterMs: Date.now() - started }));
    setTimeout(() => socket.destroy(), 15_000).unref();
  });
}

it('times out slow bodies and slow headers instead of holding the socket', async () => {
  const slow = Array.from({ length: 20 }, () =>
    slowClient(
      `POST /api/v1/orders/search HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${service.token}\r\n` +
        `Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{`,
    ),
  );
  const probe = Date.now();
  expect((await fetch(`${service.url}/healthz`)).status).toBe(200);
  expect(Date.now() - probe).toBeLessThan(200); // twenty slow clients hold sockets, not the service
  for (const held of await Promise.all(slow)) expect(held.answer).toMatch(/^HTTP\/1\.1 408/);
  const body = await slowClient(
    `PATCH /api/v1/customers/7 HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${service.token}\r\n` +
      `Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{"notes":`,
  );
  expect(body.answer).toMatch(/^HTTP\/1\.1 408/);
  expect(body.answer).toMatch(/application\/problem\+json/);
  expect(body.closedAfterMs).toBeLessThan(4000);
  const headers = await slowClient('GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: ');
  expect(headers.answer).toMatch(/^HTTP\/1\.1 408|^$/);
  expect(headers.closedAfterMs).toBeLessThan(4000);
});
