// docs/decisions.md#graphql-endpoint: a browser's GET /graphql gets GraphiQL, served from installed
// packages only; docs/graphql.md#graphiql: it works on first paste (no error before a token, the
// schema fetched when the token is set) and offers store-specific example tabs.
import { parse, validate } from 'graphql';
import type { Browser, Page } from 'playwright-core';
import { buildStoreSchema } from '../src/graphql/build-schema.js';
import { GRAPHIQL_EXAMPLES } from '../src/graphql/graphiql-examples.js';
import { launchChromium } from './support/chromium.js';
import { startTestService, type TestService } from './support/harness.js';
import { until } from './support/until.js';

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

it(
  'lets the page set the bearer header (headers editor on, with a placeholder), ' + 'kept out of localStorage',
  async () => {
    const init = await service.get('/graphql/assets/init.js', null);
    expect(init.text).toContain('isHeadersEditorEnabled: true');
    expect(init.text).toContain('onEditHeaders');
    expect(init.text).toContain('shouldPersistHeaders: false');
    expect(init.text).toContain('Authorization');
  },
);

it('still answers JSON clients at GET /graphql with a query (no preflight header needed)', async () => {
  const res = await service.get(`/graphql?query=${encodeURIComponent('{ warehouses { totalCount } }')}`, undefined, {
    accept: 'application/json',
  });
  expect(res.status).toBe(200);
  expect(res.body.data.warehouses.totalCount).toBeGreaterThanOrEqual(3);
});

it(
  'offers example tabs that are valid operations of the schema: ' +
    'orders with fulfilments, a product with variants, a customer search, a mutation with variables, ' +
    'the inventory ledger, an adjustment, metafields (define, set, find), an erasure, a subscription',
  async () => {
    const schema = await buildStoreSchema();
    const names = GRAPHIQL_EXAMPLES.map((tab) => {
      const document = parse(tab.query);
      expect(validate(schema, document)).toEqual([]);
      const operation = document.definitions[0] as { operation: string; name: { value: string } };
      return `${operation.operation} ${operation.name.value}`;
    });
    expect(names).toEqual([
      'query OrdersWithFulfilments',
      'query ProductWithVariants',
      'query CustomerSearch',
      'mutation UpdateOrderNotes',
      'query InventoryLedger',
      'mutation AdjustInventory',
      'mutation DefineMetafield',
      'mutation SetMetafields',
      'query OrdersByMetafield',
      'mutation EraseCustomer',
      'subscription OrderEvents',
    ]);
    expect(JSON.parse(GRAPHIQL_EXAMPLES[3].variables ?? '{}')).toMatchObject({
      id: expect.any(Number),
      notes: expect.any(String),
    });
  },
);

/** The visible headers editor of the page (the Headers tab of the operation tab shown). */
const HEADERS_EDITOR = '.graphiql-editor-tool .graphiql-editor:not(.hidden) .CodeMirror';

/** What the headers editor shows now. */
function headersShown(page: Page): Promise<string> {
  return page.evaluate(
    (css) =>
      ((globalThis as any).document.querySelector(css) as { CodeMirror: { getValue(): string } }).CodeMirror.getValue(),
    HEADERS_EDITOR,
  );
}

describe('GraphiQL in headless Chromium', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(() => browser?.close());

  // Issue 36, item 10: the other tabs kept showing the placeholder after the token was pasted.
  it('shows a token pasted in one tab in the Headers of every other tab and of a new one, ' +
    'never in localStorage', async () => {
    const page = await browser.newPage();
    try {
      await page.goto(`${service.url}/graphql`, { waitUntil: 'networkidle' });
      await page.getByText('ProductWithVariants').first().waitFor({ timeout: 15_000 });
      expect(await headersShown(page)).toContain('<paste your API token here>');
      const bearer = `Bearer ${service.token}`;
      await page.evaluate(
        ([css, text]) => {
          const editor = (globalThis as any).document.querySelector(css) as {
            CodeMirror: { setValue(v: string): void };
          };
          editor.CodeMirror.setValue(text);
        },
        [HEADERS_EDITOR, JSON.stringify({ Authorization: bearer, 'X-Request-Id': 'first-tab' }, null, 2)],
      );
      await page.waitForTimeout(500); // the headers are read 300 ms after the last edit

      /** The Authorization header the tab shown gets to, within a few seconds. */
      const authorizationShown = () =>
        until(async () => {
          const headers = JSON.parse(await headersShown(page)) as Record<string, string>;
          return headers.Authorization === bearer && headers;
        }, 5000).catch(() => headersShown(page));
      for (const tab of ['ProductWithVariants', 'CustomerSearch', 'OrderEvents']) {
        await page.getByRole('tab').getByText(tab).first().click();
        expect({ tab, headers: await authorizationShown() }).toEqual({ tab, headers: { Authorization: bearer } });
      }
      await page.getByRole('button', { name: 'Add tab' }).click();
      expect(await authorizationShown()).toEqual({ Authorization: bearer });
      // The tab the token was pasted in keeps its other headers.
      await page.getByRole('tab').getByText('OrdersWithFulfilments').first().click();
      expect(await authorizationShown()).toEqual({ Authorization: bearer, 'X-Request-Id': 'first-tab' });
      const stored = await page.evaluate(() => JSON.stringify({ ...(globalThis as any).localStorage }));
      expect(stored).not.toContain(service.token);
    } finally {
      await page.close();
    }
  }, 60_000);

  it('shows no error before a token, fetches the schema once one is pasted (Docs shows Query), ' +
    'and runs an example tab', async () => {
    const page = await browser.newPage();
    const posts: string[] = [];
    page.on('request', (r) => {
      if (r.method() === 'POST') posts.push(r.url());
    });
    await page.goto(`${service.url}/graphql`, { waitUntil: 'networkidle' });
    await page.getByText('ProductWithVariants').first().waitFor({ timeout: 15_000 });
    await page.waitForTimeout(500);
    expect(posts).toEqual([]);
    expect(await page.locator('body').innerText()).not.toMatch(/UNAUTHENTICATED|Error fetching schema/);

    // Paste a token into the headers editor, as a user would.
    await page.evaluate((token) => {
      const editor = [
        ...(globalThis as any).document.querySelectorAll(
          '.graphiql-editor-tool .graphiql-editor:not(.hidden) .CodeMirror',
        ),
      ][0] as unknown as { CodeMirror: { setValue(v: string): void } };
      editor.CodeMirror.setValue(JSON.stringify({ Authorization: `Bearer ${token}` }, null, 2));
    }, service.token);
    await page.getByRole('button', { name: /Show Documentation Explorer/i }).click();
    const docs = page.locator('.graphiql-doc-explorer');
    await docs.getByText('Query', { exact: true }).first().waitFor({ timeout: 15_000 });
    expect(await docs.innerText()).toMatch(/Mutation/);

    // Another example tab runs with the pasted token.
    await page.getByText('ProductWithVariants').first().click();
    await page.locator('.graphiql-execute-button').click();
    const result = page.locator('.result-window');
    await result.getByText('"variants"', { exact: false }).first().waitFor({ timeout: 15_000 });
    const text = await result.innerText();
    expect(text).not.toContain('"errors"');
    expect(text).toContain('"sku"');
    await page.close();
  }, 60_000);
});
