// `/` links the references, GraphiQL, the OpenAPI document and health, and every link
// works; the start banner lists them, and a restart says how to get a token.
import { startBanner } from '../src/start-banner.js';
import { startTestService, type TestService } from './support/harness.js';

let service: TestService;
beforeAll(async () => {
  service = await startTestService();
});
afterAll(() => service.stop());

it('GET / is a public page whose links all answer', async () => {
  const res = await service.get('/', null, { accept: 'text/html' });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/text\/html/);
  const links = [...res.text.matchAll(/href="([^"]+)"/g)].map((m) => m[1]);
  expect(links).toEqual(
    expect.arrayContaining(['/docs', '/docs/graphql', '/graphql', '/api/v1/openapi.json', '/healthz', '/readyz']),
  );
  for (const link of links) {
    const target = await service.get(link, null, { accept: 'text/html,application/json' });
    expect({ link, status: target.status }).toEqual({ link, status: 200 });
  }
});

it('the start banner lists the pages and, without a new token, says how to make one', () => {
  const later = startBanner({ url: 'http://127.0.0.1:3000', seeded: false, firstToken: null }, 'http://127.0.0.1:3000');
  for (const part of [
    '/docs',
    '/api/v1/openapi.json',
    '/graphql',
    '/docs/graphql',
    '/healthz',
    'npm run token -- create',
  ])
    expect(later).toContain(part);
  const first = startBanner(
    { url: 'http://127.0.0.1:3000', seeded: true, firstToken: 'sk_test' },
    'http://127.0.0.1:3000',
  );
  expect(first).toContain('sk_test');
  expect(first).not.toContain('npm run token -- create');
  // The curl line pastes into zsh too: an unquoted `?` is a glob there ("no matches found").
  const curl = first.split('\n').find((line) => line.includes('curl '));
  expect(curl).toContain("'http://127.0.0.1:3000/api/v1/products?size=2'");
  expect(curl?.replace(/'[^']*'|"[^"]*"/g, '')).not.toMatch(/[?*[]/);
});
