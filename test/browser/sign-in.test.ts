import type { Browser } from 'playwright-core';
import type { TestApp } from '../support/harness.js';
import { collectCspViolations, launchChromium, newContext, screenshots, seriousViolations, signInThroughUi, startBrowserApp } from '../support/browser.js';

describe('Web UI: serving and sign-in', () => {
  let t: TestApp & { origin: string };
  let browser: Browser;

  beforeAll(async () => {
    [t, browser] = await Promise.all([startBrowserApp(), launchChromium()]);
  });
  afterAll(async () => {
    await browser?.close();
    await t?.stop();
  });

  it('serves the UI at / and at client routes, with a strict Content-Security-Policy', async () => {
    for (const path of ['/', '/records/AGR-XXXX-XXXX', '/verify/AGR-XXXX-XXXX', '/keys', '/sign-in']) {
      const response = await fetch(t.url + path);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toContain('text/html');
      const csp = response.headers.get('content-security-policy')!;
      expect(csp).toContain("script-src 'self'");
      expect(csp).not.toContain('unsafe-inline');
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).toMatch(/connect-src 'self' ws:\/\/127\.0\.0\.1:\d+/);
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
      expect(response.headers.get('referrer-policy')).toBe('no-referrer');
      const html = await response.text();
      expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    }
  });

  it('leaves the API alone: unknown and API paths still answer JSON errors', async () => {
    const unknown = await fetch(`${t.url}/nothing-here`);
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ error_code: 'not_found' });
    const health = await fetch(`${t.url}/health`);
    expect(health.status).toBe(200);
    const missingAsset = await fetch(`${t.url}/assets/missing.js`);
    expect(missingAsset.status).toBe(404);
  });

  it('signs in with the mailed code, keeps the bearer out of localStorage, and signs out', async () => {
    const context = await newContext(browser, t.origin);
    const page = await context.newPage();
    const csp = collectCspViolations(page);
    await page.goto('/');
    await page.waitForURL(/\/sign-in\?next=/);
    expect(await seriousViolations(page)).toEqual([]);
    await screenshots(page, 'sign-in');

    await signInThroughUi(page, t, 'alice@example.com');
    expect(await page.evaluate(() => (globalThis as any).localStorage.length)).toBe(0);
    expect(await page.evaluate(() => (globalThis as any).document.cookie)).toBe('');
    // A reload keeps this tab signed in (sessionStorage); a new tab of the same browser does not share it.
    await page.reload();
    await page.getByRole('heading', { name: 'Your records' }).waitFor();

    // The token the tab held, as a copy of it (a log, another tab) would: it opens nothing once the person signs out.
    const token = await page.evaluate(() => JSON.parse((globalThis as any).sessionStorage.getItem('record-signing.session')).token as string);
    const listWith = async (bearer: string) => (await fetch(`${t.url}/api/v1/identity/agreements`, { headers: { authorization: `Bearer ${bearer}` } })).status;
    expect(await listWith(token)).toBe(200);
    await page.getByRole('button', { name: /Sign out/ }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    expect(await page.evaluate(() => (globalThis as any).sessionStorage.length)).toBe(0);
    expect(await listWith(token)).toBe(401);
    expect(csp).toEqual([]);
    await context.close();
  });

  it('signs out everywhere from the keys page: the sessions of other browsers end too', async () => {
    const elsewhere = await t.signIn('everywhere-ui@example.com');
    const context = await newContext(browser, t.origin);
    const page = await context.newPage();
    await page.goto('/sign-in');
    await signInThroughUi(page, t, 'everywhere-ui@example.com');
    await page.goto('/keys');
    await page.getByRole('heading', { name: 'Signed-in devices' }).waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await page.getByRole('button', { name: 'Sign out everywhere', exact: true }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Sign out every device' }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    expect((await fetch(`${t.url}/api/v1/identity/agreements`, { headers: { authorization: `Bearer ${elsewhere}` } })).status).toBe(401);
    await context.close();
  });

  it('refuses a wrong code with a readable message', async () => {
    const context = await newContext(browser, t.origin);
    const page = await context.newPage();
    await page.goto('/sign-in');
    await page.getByLabel('Email address').fill('mallory@example.com');
    await page.getByRole('button', { name: 'Email me a code' }).click();
    const code = await t.smtp.codeFor('mallory@example.com');
    await page.getByLabel('Six-digit code').fill(code === '000000' ? '111111' : '000000');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').waitFor();
    expect(await page.getByRole('alert').textContent()).toBeTruthy();
    expect(await seriousViolations(page)).toEqual([]);
    await screenshots(page, 'sign-in-code');
    await context.close();
  });

  it('works from the keyboard alone, with a visible focus ring', async () => {
    const context = await newContext(browser, t.origin);
    const page = await context.newPage();
    await page.goto('/sign-in');
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    // The first Tab reaches the skip link, which jumps to the content.
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => (globalThis as any).document.activeElement.textContent)).toBe('Skip to content');
    await page.getByLabel('Email address').focus();
    const ring = await page.evaluate(() => (globalThis as any).getComputedStyle((globalThis as any).document.activeElement).boxShadow);
    expect(ring).not.toBe('none');
    const before = t.smtp.messages.length;
    await page.keyboard.type('kim@example.com');
    await page.keyboard.press('Enter');
    const code = await t.smtp.codeFor('kim@example.com', before);
    await page.getByLabel('Six-digit code').waitFor();
    await page.getByLabel('Six-digit code').focus();
    await page.keyboard.type(code);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Your records' }).waitFor();
    await context.close();
  });
});
