// Security headers (docs/operations.md#security) on every answer, CORS only for configured origins.
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApp } from '../src/app.js';
import { launchChromium } from './support/chromium.js';
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
    expect(res.headers.get('x-powered-by')).toBeNull();
  }
});

/** A service on its own port for `createApp` options the shared one lacks; stopped after `use`. */
async function withApp(options: Omit<Parameters<typeof createApp>[0], 'orm'>, use: (base: string) => Promise<void>) {
  const { app, stop } = await createApp({ orm: service.orm, ...options });
  const server: Server = createServer(app.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    await use(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await stop();
  }
}

// Issue 36, item 9: sent over plain HTTP, HSTS and `upgrade-insecure-requests` sent every asset of
// GraphiQL and /docs to an https that was not there: blank pages.
it('asks browsers for https only (HSTS, upgrade-insecure-requests) when PUBLIC_URL is https', async () => {
  const pages = ['/graphql', '/docs', '/api/v1/products?size=1'];
  const plain = async (base: string) => {
    for (const path of pages) {
      const res = await fetch(base + path, { headers: { accept: 'text/html' } });
      expect({ path, hsts: res.headers.get('strict-transport-security') }).toEqual({ path, hsts: null });
      expect(res.headers.get('content-security-policy')).not.toContain('upgrade-insecure-requests');
      expect(res.headers.get('content-security-policy')).toContain("default-src 'self'");
    }
  };
  await plain(service.url);
  await withApp({ publicUrl: 'http://shop.example:3000' }, plain);
  await withApp({ publicUrl: 'https://shop.example' }, async (base) => {
    for (const path of pages) {
      const res = await fetch(base + path, { headers: { accept: 'text/html' } });
      expect(res.headers.get('strict-transport-security')).toMatch(/max-age=\d+/);
      expect(res.headers.get('content-security-policy')).toContain('upgrade-insecure-requests');
    }
  });
});

it('renders GraphiQL and /docs in a browser that opens them by a host name over plain HTTP', async () => {
  // shop.example is this service's 127.0.0.1, as HOST=0.0.0.0 reached by a name would be.
  const browser = await launchChromium(['--host-resolver-rules=MAP shop.example 127.0.0.1']);
  try {
    const page = await browser.newPage();
    const https: string[] = [];
    page.on('request', (r) => {
      if (r.url().startsWith('https:')) https.push(r.url());
    });
    const base = `http://shop.example:${new URL(service.url).port}`;
    await page.goto(`${base}/graphql`);
    await page.getByText('ProductWithVariants').first().waitFor({ timeout: 15_000 });
    await page.goto(`${base}/docs`);
    await page.getByText('List orders').first().waitFor({ timeout: 20_000 });
    expect(https).toEqual([]);
  } finally {
    await browser.close();
  }
}, 60_000);

it('sends no CORS headers unless origins are configured, then only for those', async () => {
  const plain = await service.get('/api/v1/products?size=1', undefined, { origin: 'https://evil.example' });
  expect(plain.headers.get('access-control-allow-origin')).toBeNull();

  await withApp({ corsOrigins: ['https://admin.example'] }, async (base) => {
    const allowed = await fetch(`${base}/api/v1/products?size=1`, {
      headers: { origin: 'https://admin.example', authorization: `Bearer ${service.token}` },
    });
    expect(allowed.headers.get('access-control-allow-origin')).toBe('https://admin.example');
    expect(allowed.headers.get('access-control-expose-headers')).toContain('X-Pagination-Total-Count');
    const other = await fetch(`${base}/api/v1/products?size=1`, {
      headers: { origin: 'https://evil.example', authorization: `Bearer ${service.token}` },
    });
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
  });
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
