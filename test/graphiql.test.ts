// decisions §4: a browser's GET /graphql gets GraphiQL, served from installed packages only.
import { startTestService, type TestService } from './support/harness.js';

let service: TestService;
beforeAll(async () => {
  service = await startTestService();
});
afterAll(() => service.stop());

it('serves the GraphiQL page to a browser without a token', async () => {
  const res = await service.get('/graphql', null, { accept: 'text/html,application/xhtml+xml' });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/text\/html/);
  expect(res.text).toContain('id="graphiql"');
});

it('loads no external script or stylesheet, and every asset it names is served', async () => {
  const page = (await service.get('/graphql', null, { accept: 'text/html' })).text;
  const refs = [...page.matchAll(/<(?:script|link)[^>]*(?:src|href)="([^"]+)"/g)].map((m) => m[1]);
  expect(refs.length).toBeGreaterThanOrEqual(4);
  for (const ref of refs) {
    expect(ref).toMatch(/^\/graphql\/assets\//);
    const asset = await service.get(ref, null);
    expect(asset.status).toBe(200);
    expect(asset.text.length).toBeGreaterThan(100);
    expect(asset.text).not.toMatch(/<script[^>]+src="https?:/);
  }
});

it('lets the page set the bearer header (headers editor on, with a placeholder), kept out of localStorage', async () => {
  const init = await service.get('/graphql/assets/init.js', null);
  expect(init.text).toContain('isHeadersEditorEnabled: true');
  expect(init.text).toContain('shouldPersistHeaders: false');
  expect(init.text).toContain('Authorization');
});

it('still answers JSON clients at GET /graphql with a query (no preflight header needed)', async () => {
  const res = await service.get(`/graphql?query=${encodeURIComponent('{ warehouses { totalCount } }')}`, undefined, {
    accept: 'application/json',
  });
  expect(res.status).toBe(200);
  expect(res.body.data.warehouses.totalCount).toBeGreaterThanOrEqual(3);
});
