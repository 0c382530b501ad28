// The OpenAPI 3.1 document is valid, covers every route of the table, is public, and the
// /docs reference (Scalar) renders it in headless Chromium with no network at all.
import { compileErrors, validate } from '@readme/openapi-parser';
import type { Browser } from 'playwright-core';
import { EXAMPLES } from '../src/rest/examples/stored-examples.js';
import { routeScopes } from '../src/rest/route-spec.js';
import { routes } from '../src/rest/routes.js';
import { launchChromium } from './support/chromium.js';
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

it(
  'documents every route with its scope, parameters, bodies, problems, ' + 'pagination and rate-limit headers',
  async () => {
    const doc = (await service.get('/api/v1/openapi.json', null)).body;
    for (const route of routes) {
      const op = doc.paths[`/api/v1${route.path}`]?.[route.method.toLowerCase()];
      expect({ route: `${route.method} ${route.path}`, documented: Boolean(op) }).toEqual({
        route: `${route.method} ${route.path}`,
        documented: true,
      });
      expect(op['x-scopes']).toEqual(routeScopes(route));
      for (const scope of routeScopes(route)) expect(op.description).toContain(`\`${scope}\``);
      expect(op.responses['401'].content['application/problem+json'].schema).toEqual({
        $ref: '#/components/schemas/Problem',
      });
      expect(Object.keys(op.responses['429'].headers)).toEqual([
        'RateLimit-Limit',
        'RateLimit-Remaining',
        'RateLimit-Reset',
        'Retry-After',
      ]);
      for (const name of route.path.match(/\{(\w+)\}/g) ?? []) {
        expect(op.parameters.map((p: any) => p.name)).toContain(name.slice(1, -1));
      }
      if (route.kind === 'write' && route.body) expect(op.requestBody.content['application/json'].schema).toBeDefined();
      if (route.kind === 'list' || route.kind === 'search') {
        expect(Object.keys(op.responses['200'].headers)).toEqual([
          'X-Pagination-Total-Count',
          'X-Pagination-Page-Count',
          'X-Pagination-Current-Page',
          'X-Pagination-Per-Page',
          'Link',
          'RateLimit-Limit',
          'RateLimit-Remaining',
          'RateLimit-Reset',
        ]);
        expect(op.parameters.map((p: any) => p.name)).toEqual(
          expect.arrayContaining(['page', 'size', 'sort', 'fields']),
        );
      }
    }
    expect(doc.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(doc.components.schemas.ProductList.properties._meta.required).toEqual([
      'totalCount',
      'perPage',
      'currentPage',
      'pageCount',
    ]);
  },
);

describe('the /docs reference in headless Chromium', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(() => browser?.close());

  it('renders each operation with its demo-store example and code samples, from installed assets only', async () => {
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
    await page.goto(`${service.url}/docs#tag/order/GET/api/v1/orders`, { waitUntil: 'networkidle' });
    const operation = page.locator('[id$="tag/order/GET/api/v1/orders"]').first();
    await operation.getByText('curl', { exact: false }).first().waitFor({ timeout: 20_000 });
    const text = await operation.innerText();
    expect(text).toContain('List orders');
    expect(text).toContain('Requires the scope read_orders');
    // The response example is the demo store's answer; the code sample calls this operation.
    const example = EXAMPLES['GET /orders'].response as { items: { display_number: string; email: string }[] };
    expect(text).toContain(example.items[0].display_number);
    expect(text).toContain(example.items[0].email);
    expect(text).toMatch(/curl .*\/api\/v1\/orders/);
    // A JavaScript (Node.js) sample of the same operation, one click away.
    await page.getByRole('tab', { name: 'Node.js' }).first().click();
    await operation.getByText('Node.js', { exact: false }).first().waitFor({ timeout: 10_000 });
    expect(await operation.innerText()).toMatch(/import .*request\('http:\/\/[^']+\/api\/v1\/orders/s);
    expect(await page.title()).toContain('Store API');
    // The conventions are explained once, in the introduction.
    expect(await page.locator('body').innerText()).toContain('Idempotency');
    expect(foreign).toEqual([]);
    await page.close();
  }, 60_000);

  it('renders the GraphQL reference, generated from the schema, with Order and its enums', async () => {
    const page = await browser.newPage();
    await page.goto(`${service.url}/docs/graphql#Order`, { waitUntil: 'load' });
    const order = page.locator('section#Order');
    await order.waitFor({ timeout: 10_000 });
    const text = await order.innerText();
    expect(text).toContain('An order');
    expect(text).toMatch(/status\s+FulfilmentStatus!\s+Fulfilment status, derived from the line item counters/);
    expect(text).toMatch(/lineItems\s+\[LineItem!\]!/);
    await order.getByRole('link', { name: 'FulfilmentStatus' }).click();
    await page.waitForURL(/#FulfilmentStatus$/);
    expect(await page.locator('section#FulfilmentStatus').innerText()).toContain('PARTIALLY_SHIPPED');
    expect(await page.locator('section#Query').innerText()).toContain('Scope: read_orders');
    await page.close();
  });
});
