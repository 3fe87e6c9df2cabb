import type { Browser, Page } from 'playwright-core';
import { agreementBody, type TestApp } from '../support/harness.js';
import { SHOTS_DIR, launchChromium, newContext, screenshots, startBrowserApp } from '../support/browser.js';
import { waitFor } from '../support/wait.js';

/** What a page did that the documentation pages must never do: reach another origin, break its CSP, throw. */
type Trouble = { foreignRequests: string[]; cspViolations: string[]; pageErrors: string[] };

describe('Documentation served by the service: /api/docs and the GraphQL explorer', () => {
  let t: TestApp & { origin: string };
  let browser: Browser;

  /** A fresh tab that records every request, every CSP violation (event and console report) and every page error. */
  async function watchedPage(): Promise<{ page: Page; trouble: Trouble }> {
    const page = await (await newContext(browser, t.origin)).newPage();
    const trouble: Trouble = { foreignRequests: [], cspViolations: [], pageErrors: [] };
    page.on('request', (request) => {
      const url = new URL(request.url());
      // data: and blob: URLs are the page's own bytes, not requests to anyone.
      if (url.protocol !== 'data:' && url.protocol !== 'blob:' && url.origin !== t.origin) trouble.foreignRequests.push(request.url());
    });
    page.on('websocket', (socket) => {
      if (new URL(socket.url()).host !== new URL(t.origin).host) trouble.foreignRequests.push(socket.url());
    });
    page.on('console', (message) => {
      if (/Content Security Policy|Refused to/i.test(message.text())) trouble.cspViolations.push(message.text());
    });
    page.on('pageerror', (error) => trouble.pageErrors.push(error.message));
    await page.exposeFunction('reportCspViolation', (text: string) => trouble.cspViolations.push(text));
    await page.addInitScript(() => {
      const g = globalThis as any;
      g.document.addEventListener('securitypolicyviolation', (event: any) => {
        void g.reportCspViolation(`${event.effectiveDirective} refused ${event.blockedURI}`);
      });
    });
    return { page, trouble };
  }

  beforeAll(async () => {
    [t, browser] = await Promise.all([startBrowserApp(), launchChromium()]);
  });
  afterAll(async () => {
    await browser?.close();
    await t?.stop();
  });

  it('renders the served contract at /api/docs, reached from the web UI footer, with curl samples and a console that calls the service with a key typed into the page, nothing from another origin', async () => {
    const token = await t.signIn('alice@example.com');
    const created = await t.request('POST', '/api/v1/agreements', { token, body: agreementBody() });
    expect(created.status).toBe(201);
    const key = (await t.request('POST', '/api/v1/api-keys', { token, body: { scopes: ['retrieve'] } })).body.key as string;
    const { page, trouble } = await watchedPage();
    const calls: { url: string; apiKey: string | undefined; status: number }[] = [];
    page.on('response', (response) => {
      if (response.url().includes('/api/v1/')) calls.push({ url: response.url(), apiKey: response.request().headers()['x-api-key'], status: response.status() });
    });
    await page.goto('/sign-in');
    await page.getByRole('contentinfo').getByRole('link', { name: 'API documentation' }).click();
    await page.waitForURL(/\/api\/docs/);
    // Scalar has fetched /api/openapi.json and rendered it: the title, and a curl sample naming this origin.
    await page.getByRole('heading', { name: /Record Signing and Notarization Service API/ }).first().waitFor();
    await page.getByText(`curl ${t.origin}/health`, { exact: true }).first().waitFor();
    await page.waitForLoadState('networkidle');
    await screenshots(page, 'api-docs', SHOTS_DIR, { fullPage: false });

    // The reader's own key, typed into the page's authentication field (X-API-Key).
    await page.getByRole('button', { name: 'Select Auth Type' }).click();
    const scheme = page.getByRole('option', { name: /^apiKeyAuth/ });
    await scheme.click();
    // The list can stay open over the field (it takes several schemes, and closes late on a busy machine).
    if (await scheme.isVisible()) await page.keyboard.press('Escape');
    await scheme.waitFor({ state: 'hidden' });
    await page.getByRole('textbox', { name: 'Value' }).first().click();
    await page.keyboard.type(key);

    // An operation's console: its request goes to this origin with the key, and its answer shows in the page.
    await page.getByRole('navigation').getByRole('button', { name: /^Identity/ }).click();
    await page.getByRole('button', { name: 'Test Request (get /api/v1/identity/agreements)' }).click();
    const client = page.getByRole('dialog', { name: 'API Client' });
    await client.getByRole('button', { name: `Send get request to ${t.origin}/api/v1/identity/agreements` }).click();
    await waitFor(async () => calls.length > 0, 10_000);
    expect(calls).toEqual([{ url: `${t.origin}/api/v1/identity/agreements`, apiKey: key, status: 200 }]);
    // The answer's body, in the console's response pane (the only place in the dialog that names the record).
    await client.getByText(created.body.id, { exact: false }).first().waitFor();
    await page.screenshot({ path: `${SHOTS_DIR}/api-docs-console.png` });
    // The key stays with the tab's page: nothing of it is stored for later visits.
    expect(await page.evaluate((k) => JSON.stringify({ ...(globalThis as any).localStorage }).includes(k), key)).toBe(false);
    expect(trouble).toEqual({ foreignRequests: [], cspViolations: [], pageErrors: [] });
    await page.context().close();
  });

  it('serves GraphiQL at /graphql: it runs a query over HTTP and, with the Authorization header of its headers pane, a subscription over graphql-ws on the same origin', async () => {
    const token = await t.signIn('alice@example.com');
    const { page, trouble } = await watchedPage();
    const sockets: string[] = [];
    page.on('websocket', (socket) => sockets.push(socket.url()));
    await page.goto('/graphql');
    const operation = page.locator('.graphiql-query-editor');
    const headers = page.locator('.graphiql-editor-tool .graphiql-editor:not(.hidden)');
    const response = page.locator('.graphiql-response');
    await operation.locator('.monaco-editor').waitFor();

    // Typed as a person types; whatever Monaco's auto-closing of brackets and quotes added after the cursor goes.
    // GraphiQL parses the operation 100 ms after the last keystroke and picks HTTP or the socket from that parse.
    const replaceText = async (editor: ReturnType<Page['locator']>, text: string) => {
      await editor.locator('.view-lines').click();
      await page.keyboard.press('ControlOrMeta+A');
      await page.keyboard.type(text);
      await page.keyboard.press('Shift+ControlOrMeta+End');
      await page.keyboard.press('Delete');
      await page.waitForTimeout(300);
    };
    const run = () => page.getByRole('button', { name: /^Execute query/ }).click();

    await replaceText(operation, '{ __typename }');
    await run();
    await waitFor(async () => (await response.textContent())?.match(/"__typename":\s*"Query"/), 10_000);
    await screenshots(page, 'graphql-explorer');

    await page.getByRole('button', { name: 'Headers' }).click();
    await replaceText(headers, JSON.stringify({ Authorization: `Bearer ${token}` }));
    await replaceText(operation, '{ authenticationStatus { authenticated } }');
    await run();
    await waitFor(async () => (await response.textContent())?.match(/"authenticated":\s*true/), 10_000);
    await replaceText(operation, 'subscription { recordActivity { kind event } }');
    await run();
    // A new record's ceremony starting reaches the subscriber (retried while the subscription is still being set up).
    await waitFor(async () => {
      const created = await t.request('POST', '/api/v1/agreements', { token, body: agreementBody() });
      await t.request('POST', `/api/v1/agreements/${created.body.id}/signature-execution`, { token });
      await page.waitForTimeout(500);
      return (await response.textContent())?.includes('execution_started');
    }, 15_000);
    expect(sockets).toEqual([`${t.origin.replace('http:', 'ws:')}/graphql`]);
    // The token typed under Headers stays with the tab (GraphiQL's history holds it, in sessionStorage), never in localStorage.
    expect(await page.evaluate(() => (globalThis as any).localStorage.length)).toBe(0);
    await screenshots(page, 'graphql-explorer-subscription');
    expect(trouble).toEqual({ foreignRequests: [], cspViolations: [], pageErrors: [] });
    await page.context().close();
  });
});
