import { createHash, randomBytes } from 'node:crypto';
import type { Browser, BrowserContext, Page, Request } from 'playwright-core';
import type { TestApp } from '../support/harness.js';
import { dropFile, launchChromium, newContext, screenshots, seriousViolations, signInThroughUi, startBrowserApp } from '../support/browser.js';

describe('Web UI: file notarization hashed in the browser, public verification, API keys', () => {
  let t: TestApp & { origin: string };
  let browser: Browser;
  let alice: BrowserContext;
  let page: Page;
  let reference: string;
  const requests: Request[] = [];
  // A file whose bytes are easy to spot in any request body (raw, base64 or hex).
  const marker = `NOTARIZED-FILE-${randomBytes(8).toString('hex')}`;
  const file = Buffer.concat([Buffer.from(`${marker}\n`), randomBytes(2048), Buffer.from(marker)]);
  const digest = createHash('sha256').update(file).digest('hex');

  beforeAll(async () => {
    [t, browser] = await Promise.all([startBrowserApp(), launchChromium()]);
    alice = await newContext(browser, t.origin);
    page = await alice.newPage();
    page.on('request', (request) => requests.push(request));
    await signInThroughUi(page, t, 'alice@example.com');
  });
  afterAll(async () => {
    await browser?.close();
    await t?.stop();
  });

  it('notarizes a file by its SHA-256 computed in the browser: the bytes never reach the server', async () => {
    await page.getByRole('link', { name: 'New record' }).first().click();
    await page.getByRole('radio', { name: 'Notarization' }).check();
    await page.locator('input[type="file"]').setInputFiles({ name: 'contract-scan.bin', mimeType: 'application/octet-stream', buffer: file });
    await page.getByText(digest).waitFor();
    await page.getByLabel('Label (optional)').fill('Scanned contract');
    expect(await seriousViolations(page)).toEqual([]);
    await screenshots(page, 'create-notarization');
    await page.getByRole('button', { name: 'Create notarization draft' }).click();
    await page.waitForURL(/\/records\/AGR-/);
    reference = decodeURIComponent(new URL(page.url()).pathname.split('/')[2]!);
    await page.getByText(`sha256:${digest}`).waitFor();

    const bodies = requests.map((request) => request.postDataBuffer()).filter((body): body is Buffer => body !== null);
    expect(bodies.some((body) => body.includes(`sha256:${digest}`))).toBe(true);
    for (const body of bodies) {
      expect(body.includes(marker)).toBe(false);
      expect(body.includes(file.toString('base64').slice(0, 64))).toBe(false);
      expect(body.includes(file.toString('hex').slice(0, 64))).toBe(false);
    }
    expect(requests.every((request) => new URL(request.url()).origin === t.origin)).toBe(true);
  });

  it('signs and submits the notarization, then anyone verifies it by dropping the file', async () => {
    await page.getByRole('link', { name: 'Sign', exact: true }).click();
    const before = t.smtp.messages.length;
    await page.getByRole('button', { name: 'Start Email code' }).click();
    await page.getByLabel('Signature code from the mail').fill(await t.smtp.codeFor('alice@example.com', before));
    await page.getByRole('button', { name: 'Confirm code' }).click();
    await page.getByRole('button', { name: 'Sign version 1' }).click();
    await page.getByRole('heading', { name: 'Signed' }).waitFor();
    await page.getByRole('link', { name: `← ${reference}` }).click();
    await page.getByRole('button', { name: 'Submit for signatures' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Submit and invite' }).click();
    await page.getByText('Sealed', { exact: true }).first().waitFor();

    // A stranger, not signed in.
    const stranger = await newContext(browser, t.origin);
    const publicPage = await stranger.newPage();
    await publicPage.goto(`/verify/${reference}`);
    await publicPage.getByRole('heading', { name: 'Certificate' }).waitFor();
    expect(await seriousViolations(publicPage)).toEqual([]);
    await screenshots(publicPage, 'verify');

    await dropFile(publicPage, 'contract-scan.bin', file);
    await publicPage.locator('[data-verdict="verified"]').waitFor();
    expect(await seriousViolations(publicPage)).toEqual([]);
    await screenshots(publicPage, 'verify-verified');

    await dropFile(publicPage, 'other.bin', Buffer.from('a different file'));
    await publicPage.locator('[data-verdict="no_match"]').waitFor();

    await publicPage.getByRole('tab', { name: 'Hash' }).click();
    await publicPage.getByLabel('Content hash').fill(digest);
    await publicPage.getByRole('button', { name: 'Check', exact: true }).click();
    await publicPage.locator('[data-verdict="verified"]').waitFor();

    await publicPage.goto('/verify/AGR-0000-0000');
    await publicPage.locator('[data-verdict="not_found"]').waitFor();
    await publicPage.goto('/verify');
    expect(await seriousViolations(publicPage)).toEqual([]);
    await screenshots(publicPage, 'verify-lookup');
    await stranger.close();
  });

  it('creates an API key with chosen scopes, shows it once, and revokes it after a confirmation', async () => {
    await page.getByRole('link', { name: 'API keys' }).click();
    await page.getByRole('heading', { name: 'API keys' }).waitFor();
    await page.getByLabel('Name').fill('export job');
    await page.getByRole('checkbox', { name: /^create:/ }).check();
    await page.getByRole('button', { name: 'Create key' }).click();
    const key = (await page.locator('[data-secret="api-key"]').textContent())!;
    expect(key.length).toBeGreaterThan(20);
    expect(await seriousViolations(page)).toEqual([]);
    await screenshots(page, 'keys');
    expect((await t.request('GET', '/api/v1/identity/agreements', { apiKey: key })).status).toBe(200);

    await page.getByRole('button', { name: 'I have stored it' }).click();
    expect(await page.getByText(key).count()).toBe(0);
    await page.getByRole('button', { name: 'Revoke export job' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Revoke key' }).click();
    await page.getByText('No active keys.').waitFor();
    expect((await t.request('GET', '/api/v1/identity/agreements', { apiKey: key })).status).toBe(401);
  });
});
