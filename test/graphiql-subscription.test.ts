// docs/decisions.md#event-feed "Subscriptions": GraphiQL can run them. The page (served by a real
// service process, subscriptions and all) runs `subscription { events }` over graphql-ws with the
// token of its Headers tab; an order changed through REST shows up in the result pane.
import type { Browser, Page, WebSocket } from 'playwright-core';
import { launchChromium } from './support/chromium.js';
import { createDatabase } from './support/harness.js';
import { type ServerProcess, startServerProcess } from './support/server-process.js';
import { until } from './support/until.js';

const ADMIN = 'sk_graphiql_subscription_admin_0123456789';
let service: ServerProcess;
let browser: Browser;
beforeAll(async () => {
  const env = { RATE_LIMIT_RPS: '0', RATE_LIMIT_BURST: '0' };
  service = await startServerProcess(await createDatabase(), ADMIN, env);
  browser = await launchChromium();
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await service?.stop();
}, 30_000);

const SUBSCRIPTION = `subscription {
  events(types: ["order.*"]) { id type orderId actor { name } data }
}`;

/** Sets a CodeMirror editor of the page (the visible one under `selector`), as typing would. */
async function setEditor(page: Page, selector: string, value: string) {
  await page.evaluate(
    ([css, text]) => {
      const editor = (globalThis as any).document.querySelector(css) as { CodeMirror: { setValue(v: string): void } };
      editor.CodeMirror.setValue(text);
    },
    [selector, value],
  );
}

async function patchNotes(orderId: number, notes: string) {
  const res = await fetch(`${service.url}/api/v1/orders/${orderId}`, {
    method: 'PATCH',
    headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ notes }),
  });
  expect(res.status).toBe(200);
}

/**
 * Changes orders until one change shows in the result pane: a subscription without `after` starts
 * from when the server has it, which the page does not tell. Bounded: five writes, 3 s each.
 */
async function writeUntilShown(page: Page, prefix: string): Promise<string> {
  const result = page.locator('.result-window');
  for (let attempt = 1; attempt <= 5; attempt++) {
    const notes = `${prefix} #${attempt}`;
    await patchNotes(attempt, notes);
    const shown = await result
      .getByText(notes)
      .first()
      .waitFor({ timeout: 3000 })
      .then(() => true)
      .catch(() => false);
    if (shown) return result.innerText();
  }
  return '';
}

async function createToken(name: string): Promise<string> {
  const res = await fetch(`${service.url}/graphql`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      query: 'mutation ($name: String!) { createApiToken(name: $name, scopes: ["read_orders"]) { secret } }',
      variables: { name },
    }),
  });
  const body = (await res.json()) as { data: { createApiToken: { secret: string } } };
  return body.data.createApiToken.secret;
}

it('runs a subscription over WebSocket with the token of the Headers tab, shows an event written through ' +
  'REST, closes the socket on Stop and when the token changes, and shows a refusal without a token', async () => {
  const page = await browser.newPage();
  const sockets: WebSocket[] = [];
  const sent: string[] = [];
  page.on('websocket', (ws) => {
    sockets.push(ws);
    ws.on('framesent', (frame) => sent.push(String(frame.payload)));
  });
  const policyErrors: string[] = [];
  page.on('console', (message) => {
    if (/Content Security Policy/i.test(message.text())) policyErrors.push(message.text());
  });
  try {
    await page.goto(`${service.url}/graphql`, { waitUntil: 'networkidle' });
    await page.getByText('OrderEvents').first().waitFor({ timeout: 15_000 });
    const queryEditor = '.graphiql-query-editor .CodeMirror';
    const result = page.locator('.result-window');
    const execute = page.locator('.graphiql-execute-button');

    // No token yet: the server closes the socket (4403) and the pane says so.
    await setEditor(page, queryEditor, SUBSCRIPTION);
    await execute.click();
    await result.getByText('4403').first().waitFor({ timeout: 15_000 });
    expect(await result.innerText()).toContain('The WebSocket closed: 4403');

    const headersEditor = '.graphiql-editor-tool .graphiql-editor:not(.hidden) .CodeMirror';
    await setEditor(page, headersEditor, JSON.stringify({ Authorization: `Bearer ${ADMIN}` }, null, 2));
    await page.waitForTimeout(500); // the headers are read 300 ms after the last edit
    await execute.click();
    const shown = await writeUntilShown(page, 'Seen in GraphiQL');
    expect(shown).toContain('"type": "order.notes_changed"');
    expect(shown).not.toContain('"errors"');

    // One socket per token: the refused one (no token), then the token's, both to this very origin.
    const live = sockets.at(-1)!;
    expect(sockets.map((ws) => ws.url())).toEqual([0, 1].map(() => `${service.url.replace(/^http/, 'ws')}/graphql`));
    expect(sent.some((frame) => frame.includes('connection_init') && frame.includes(`Bearer ${ADMIN}`))).toBe(true);
    expect(live.isClosed()).toBe(false);

    // Stop ends the subscription; with nothing left running, the client closes its socket.
    const closed = live.waitForEvent('close', { timeout: 10_000 });
    await execute.click();
    await closed;
    expect(sent.some((frame) => frame.includes('"complete"'))).toBe(true);

    // Running again opens a socket for the token; pasting another token closes it, and the next run
    // connects with the new one.
    const other = await createToken('GraphiQL second token');
    const reopened = page.waitForEvent('websocket', { timeout: 10_000 });
    await execute.click();
    const before = await reopened;
    const beforeClosed = before.waitForEvent('close', { timeout: 10_000 });
    await setEditor(page, headersEditor, JSON.stringify({ Authorization: `Bearer ${other}` }, null, 2));
    await beforeClosed;
    await page.waitForTimeout(500);
    await execute.click();
    expect(await writeUntilShown(page, 'With the second token')).toContain('"type": "order.notes_changed"');
    expect(sockets).toHaveLength(4);
    expect(sent.some((frame) => frame.includes('connection_init') && frame.includes(`Bearer ${other}`))).toBe(true);
    expect(policyErrors).toEqual([]);
  } finally {
    await page.close();
  }
}, 90_000);

/** The result pane's whole text (CodeMirror draws only the lines in view). */
function paneText(page: Page): Promise<string> {
  return page.evaluate(() => {
    const pane = (globalThis as any).document.querySelector('.result-window .CodeMirror');
    return (pane as { CodeMirror: { getValue(): string } }).CodeMirror.getValue();
  });
}

// Issue 36, item 10: GraphiQL shows only a subscription's latest result; the page lists them.
it('lists the results received so far in the result pane, newest first, and keeps the last 50', async () => {
  const page = await browser.newPage();
  try {
    await page.goto(`${service.url}/graphql`, { waitUntil: 'networkidle' });
    await page.getByText('OrderEvents').first().waitFor({ timeout: 15_000 });
    const headersEditor = '.graphiql-editor-tool .graphiql-editor:not(.hidden) .CodeMirror';
    await setEditor(page, headersEditor, JSON.stringify({ Authorization: `Bearer ${ADMIN}` }, null, 2));
    await page.waitForTimeout(500); // the headers are read 300 ms after the last edit
    await setEditor(page, '.graphiql-query-editor .CodeMirror', SUBSCRIPTION);
    await page.locator('.graphiql-execute-button').click();
    await writeUntilShown(page, 'Listed first'); // the subscription is live from here on

    for (let n = 1; n <= 54; n++) await patchNotes(1 + (n % 5), `Listed #${n}`);
    const shown = await until(async () => {
      const pane = JSON.parse(await paneText(page)) as { received: number; newestFirst: unknown[] };
      return JSON.stringify(pane.newestFirst[0]).includes('Listed #54') && pane;
    }, 15_000);
    expect(shown.received).toBeGreaterThanOrEqual(55);
    const listed = shown.newestFirst.map((result) => Number(/Listed #(\d+)/.exec(JSON.stringify(result))?.[1]));
    expect(listed).toEqual(Array.from({ length: 50 }, (_, i) => 54 - i));
  } finally {
    await page.close();
  }
}, 90_000);
