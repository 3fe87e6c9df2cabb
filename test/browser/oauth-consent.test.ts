import type { Browser, Page } from 'playwright-core';
import * as oauth from 'oauth4webapi';
import type { TestApp } from '../support/harness.js';
import { assistantCallback, collectCspViolations, launchChromium, newContext, screenshots, seriousViolations, startBrowserApp } from '../support/browser.js';
import { authorizationRequest, discover, exchangeCode, insecure, refresh, registerClient, tokens, type Discovered } from '../support/oauth.js';

const CALLBACK = 'https://assistant.example/oauth/callback';

describe('Connector consent page in Chromium', () => {
  let t: TestApp & { origin: string };
  let browser: Browser;
  let d: Discovered;

  beforeAll(async () => {
    [t, browser] = await Promise.all([startBrowserApp(), launchChromium()]);
    d = await discover(t.origin);
  });
  afterAll(async () => {
    await browser?.close();
    await t?.stop();
  });

  const giveConsent = async (page: Page, email: string) => {
    const before = t.smtp.messages.length;
    await page.getByLabel('Email address').fill(email);
    await page.getByRole('button', { name: 'Email me a code' }).click();
    await page.getByText(`We sent a six-digit code to ${email}`).waitFor();
    const code = await t.smtp.codeFor(email, before);
    expect(t.smtp.messages.at(-1)!.subject).toBe('Your code to connect an assistant');
    await page.getByLabel('Six-digit code').fill(code);
    await page.getByRole('button', { name: 'Allow access' }).click();
  };

  it('shows who asks, the exact redirect origin, the permissions and 90 days; the mailed code is the consent; tokens follow', async () => {
    const client = await registerClient(d.as, { redirect_uris: [CALLBACK], client_name: 'Helpful <b>Assistant</b>' });
    const context = await newContext(browser, t.origin);
    const landed = await assistantCallback(context);
    const page = await context.newPage();
    const csp = collectCspViolations(page);
    const request = await authorizationRequest(d.as, client, d.resource);

    await page.goto(request.url.href);
    await page.getByRole('heading', { name: 'Connect Helpful <b>Assistant</b>?' }).waitFor();
    const who = page.locator('dl.facts');
    await expect(who.textContent()).resolves.toContain('https://assistant.example');
    await expect(who.textContent()).resolves.toContain(client.client_id);
    const permissions = await page.locator('ul.permissions li strong').allTextContents();
    expect(permissions).toEqual(['create', 'retrieve', 'verify', 'amend', 'cancel', 'offline_access']);
    await expect(page.getByText(/For 90 days, until/).textContent()).resolves.toBeTruthy();
    await page.getByRole('button', { name: 'Deny' }).waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await screenshots(page, 'oauth-consent');

    // A wrong code is refused on the page, nothing is issued, and the right one still works.
    const before = t.smtp.messages.length;
    await page.getByLabel('Email address').fill('erin@example.com');
    await page.getByRole('button', { name: 'Email me a code' }).click();
    const code = await t.smtp.codeFor('erin@example.com', before);
    await page.getByLabel('Six-digit code').fill(code === '000000' ? '111111' : '000000');
    await page.getByRole('button', { name: 'Allow access' }).click();
    await page.getByRole('alert').getByText('The code is wrong or has expired').waitFor();
    await page.getByText('We sent a six-digit code to erin@example.com').waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await screenshots(page, 'oauth-consent-code');
    await page.getByLabel('Six-digit code').fill(code);
    await page.getByRole('button', { name: 'Allow access' }).click();

    const callback = await landed();
    expect(callback.origin + callback.pathname).toBe(CALLBACK);
    const issued = await tokens(d, client, await exchangeCode(d, client, request, callback));
    const outcome = await t.app.services.connectorAuth(`Bearer ${issued.access_token}`);
    expect(outcome).toMatchObject({ ok: true, principal: { kind: 'oauth', clientId: client.client_id } });
    const next = await oauth.processRefreshTokenResponse(d.as, client, await refresh(d, client, issued.refresh_token!));
    await oauth.processRevocationResponse(await oauth.revocationRequest(d.as, client, oauth.None(), next.refresh_token!, insecure));
    expect((await t.app.services.connectorAuth(`Bearer ${next.access_token}`)).ok).toBe(false);
    expect(csp).toEqual([]);
    await context.close();
  });

  it('asks again in the same browser (no silent reuse), and Deny sends access_denied back', async () => {
    const client = await registerClient(d.as, { redirect_uris: [CALLBACK] });
    const context = await newContext(browser, t.origin);
    const landed = await assistantCallback(context);
    const page = await context.newPage();

    await page.goto((await authorizationRequest(d.as, client, d.resource)).url.href);
    await giveConsent(page, 'frank@example.com');
    expect((await landed()).searchParams.get('code')).toBeTruthy();
    await page.getByRole('heading', { name: 'Back at the assistant' }).waitFor();

    await page.goto((await authorizationRequest(d.as, client, d.resource)).url.href);
    await page.getByRole('heading', { name: /^Connect / }).waitFor();
    await page.getByLabel('Email address').waitFor();
    await page.getByRole('button', { name: 'Deny' }).click();
    const denied = await landed();
    expect(denied.searchParams.get('error')).toBe('access_denied');
    expect(denied.searchParams.get('code')).toBeNull();
    await context.close();
  });
});
