// Security headers (docs/operations.md#security) on every answer, CORS only for configured origins.
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApp } from '../src/app.js';
import { startTestService, type TestService } from './support/harness.js';

let service: TestService;
beforeAll(async () => {
  service = await startTestService();
});
afterAll(() => service.stop());

it('sends security headers on API answers, problems and pages', async () => {
  for (const [path, token] of [
    ['/api/v1/products?size=1', undefined],
    ['/api/v1/nope', undefined],
    ['/docs', null],
  ] as const) {
    const res = await service.get(path, token);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(res.headers.get('strict-transport-security')).toBeTruthy();
    expect(res.headers.get('x-powered-by')).toBeNull();
  }
});

it('sends no CORS headers unless origins are configured, then only for those', async () => {
  const plain = await service.get('/api/v1/products?size=1', undefined, { origin: 'https://evil.example' });
  expect(plain.headers.get('access-control-allow-origin')).toBeNull();

  const { app, stop } = await createApp({ orm: service.orm, corsOrigins: ['https://admin.example'] });
  const server: Server = createServer(app.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  try {
    const allowed = await fetch(`${base}/api/v1/products?size=1`, {
      headers: { origin: 'https://admin.example', authorization: `Bearer ${service.token}` },
    });
    expect(allowed.headers.get('access-control-allow-origin')).toBe('https://admin.example');
    expect(allowed.headers.get('access-control-expose-headers')).toContain('X-Pagination-Total-Count');
    const other = await fetch(`${base}/api/v1/products?size=1`, {
      headers: { origin: 'https://evil.example', authorization: `Bearer ${service.token}` },
    });
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await stop();
  }
});

/** The `connect-src` directive of the policy sent for GraphiQL when the request names this Host. */
function connectSrcFor(host: string): Promise<string | undefined> {
  const { hostname, port } = new URL(service.url);
  return new Promise((resolve, reject) => {
    const req = request({ hostname, port, path: '/graphql', headers: { host, accept: 'text/html' } }, (res) => {
      res.resume();
      const policy = String(res.headers['content-security-policy'] ?? '');
      resolve(policy.split(';').find((directive) => directive.startsWith('connect-src')));
    });
    req.on('error', reject);
    req.end();
  });
}

it("lets a page open WebSockets to its own host only (GraphiQL's subscriptions), not to any other", async () => {
  const host = new URL(service.url).host;
  expect(await connectSrcFor(host)).toBe(`connect-src 'self' ws://${host} wss://${host}`);
  expect(await connectSrcFor('[::1]:3000')).toBe("connect-src 'self' ws://[::1]:3000 wss://[::1]:3000");
  // A Host that could add sources or directives to the policy is not copied into it.
  for (const hostile of ['evil.example *', "a.example;script-src 'unsafe-inline'", 'a.example,b.example']) {
    expect(await connectSrcFor(hostile)).toBe("connect-src 'self' 'self'");
  }
});
