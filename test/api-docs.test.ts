// Issue 8: the OpenAPI 3.1 document is valid, covers every route of the table, is public, and the
// /docs reference renders it in headless Chromium with no network at all.
import { validate, compileErrors } from '@readme/openapi-parser';
import { chromium, type Browser } from 'playwright-core';
import { routes } from '../src/rest/routes.js';
import { startTestService, type TestService } from './support/harness.js';

let service: TestService;
beforeAll(async () => {
  service = await startTestService();
});
afterAll(() => service.stop());

it('serves a valid OpenAPI 3.1 document without a token', async () => {
  const res = await service.get('/api/v1/openapi.json', null);
  expect(res.status).toBe(200);
  expect(res.body.openapi).toBe('3.1.0');
  const result = await validate(structuredClone(res.body));
  if (!result.valid) throw new Error(compileErrors(result));
  expect(result.valid).toBe(true);
});

it('documents every route with its scope, parameters, bodies, problems, pagination and rate-limit headers', async () => {
  const doc = (await service.get('/api/v1/openapi.json', null)).body;
  for (const route of routes) {
    const op = doc.paths[`/api/v1${route.path}`]?.[route.method.toLowerCase()];
    expect({ route: `${route.method} ${route.path}`, documented: Boolean(op) }).toEqual({ route: `${route.method} ${route.path}`, documented: true });
    expect(op['x-scopes']).toEqual([route.scope]);
    expect(op.description).toContain(`\`${route.scope}\``);
    expect(op.responses['401'].content['application/problem+json'].schema).toEqual({ $ref: '#/components/schemas/Problem' });
    expect(Object.keys(op.responses['429'].headers)).toEqual(['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'Retry-After']);
    for (const name of route.path.match(/\{(\w+)\}/g) ?? []) {
      expect(op.parameters.map((p: any) => p.name)).toContain(name.slice(1, -1));
    }
    if (route.kind === 'write' && route.body) expect(op.requestBody.content['application/json'].schema).toBeDefined();
    if (route.kind === 'list' || route.kind === 'search') {
      expect(Object.keys(op.responses['200'].headers)).toEqual([
        'X-Pagination-Total-Count', 'X-Pagination-Page-Count', 'X-Pagination-Current-Page', 'X-Pagination-Per-Page', 'Link',
        'RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset',
      ]);
      expect(op.parameters.map((p: any) => p.name)).toEqual(expect.arrayContaining(['page', 'size', 'sort', 'fields']));
    }
  }
  expect(doc.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
  expect(doc.components.schemas.ProductList.properties._meta.required).toEqual(['totalCount', 'perPage', 'currentPage', 'pageCount']);
});

describe('the /docs reference in headless Chromium', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await chromium.launch({
      executablePath: '/usr/bin/chromium',
      args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
  });
  afterAll(() => browser?.close());

  it('renders the routes from installed assets only, with no request leaving the service', async () => {
    const page = await browser.newPage();
    const foreign: string[] = [];
    await page.route('**/*', (route) => {
      const url = new URL(route.request().url());
      if (`${url.protocol}//${url.host}` !== service.url) {
        foreign.push(url.href);
        return route.abort();
      }
      return route.continue();
    });
    await page.goto(`${service.url}/docs`, { waitUntil: 'networkidle' });
    await page.waitForSelector('.opblock-summary-path', { timeout: 15_000 });
    const paths = await page.$$eval('.opblock-summary-path', (nodes) => nodes.map((n) => n.getAttribute('data-path') ?? n.textContent ?? ''));
    expect(paths).toEqual(expect.arrayContaining(['/api/v1/orders', '/api/v1/orders/{id}/fulfilments/{fulfilmentId}', '/api/v1/customers/search', '/api/v1/products/{id}']));
    expect(await page.title()).toContain('Store API');
    expect(foreign).toEqual([]);
    await page.close();
  });
});
