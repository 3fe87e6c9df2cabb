import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { Webhook } from 'standardwebhooks';
import { RECORD_EVENT_TYPES } from '../../src/domain/webhooks/events.js';
import type { TestApp } from '../support/harness.js';
import { collectCspViolations, launchChromium, newContext, screenshots, seriousViolations, signInThroughUi, startBrowserApp } from '../support/browser.js';
import { WebhookReceiver, type Received } from '../support/webhook-receiver.js';

/** What `standardwebhooks` (not our implementation) makes of a delivery signed with `secret`. */
function verified(secret: string, received: Received): { type: string; id: string } {
  return new Webhook(secret).verify(received.body, received.headers) as never;
}

describe('Web UI: webhook endpoints on the settings page', () => {
  let t: TestApp & { origin: string };
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let receiver: WebhookReceiver;
  let csp: string[];
  let secret: string;
  let hookUrl: string;

  beforeAll(async () => {
    receiver = new WebhookReceiver();
    await receiver.start();
    hookUrl = `${receiver.url}/ui`;
    [t, browser] = await Promise.all([
      // One retry, soon: a failing delivery ends `failed` within the test.
      startBrowserApp({ WEBHOOK_ALLOWED_HOSTS: '127.0.0.1', WEBHOOK_POLL_MS: '100', WEBHOOK_RETRY_SCHEDULE: '200ms', WEBHOOK_TIMEOUT_MS: '2000' }),
      launchChromium(),
    ]);
    context = await newContext(browser, t.origin);
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: t.origin });
    page = await context.newPage();
    csp = collectCspViolations(page);
    await signInThroughUi(page, t, 'hooks@example.com');
  });
  afterAll(async () => {
    await browser?.close();
    await t?.stop();
    await receiver?.stop();
  });

  const endpoint = (url: string): Locator => page.locator('li.endpoint', { has: page.getByText(url, { exact: true }) });
  const delivery = (eventId: string, status?: string): Locator => page.locator(`li[data-delivery="${eventId}"]${status ? `[data-status="${status}"]` : ''}`);
  /** A delivery's facts as the list shows them (term -> definition). */
  const facts = async (row: Locator): Promise<Record<string, string>> =>
    Object.fromEntries(await row.locator('dl > div').evaluateAll((pairs) => pairs.map((pair) => [pair.querySelector('dt')!.textContent, pair.querySelector('dd')!.textContent])));

  it('adds an endpoint with a checkbox list of events and shows its secret once, with a copy button', async () => {
    await page.getByRole('link', { name: 'API keys' }).click();
    await page.getByRole('heading', { name: 'Webhooks', exact: true }).waitFor();
    await page.getByText('No webhook endpoints.').waitFor();
    // The checkboxes are the service's event types (webhook.test is sent on request only).
    const events = page.getByRole('group', { name: 'Events' }).getByRole('checkbox');
    expect(await events.evaluateAll((boxes) => boxes.map((box) => box.parentElement!.querySelector('strong')!.textContent))).toEqual(RECORD_EVENT_TYPES);
    expect(await events.evaluateAll((boxes) => boxes.every((box) => (box as unknown as { checked: boolean }).checked))).toBe(true);
    for (const type of RECORD_EVENT_TYPES.filter((type) => type !== 'record.sealed' && type !== 'record.anchored')) {
      await page.getByRole('checkbox', { name: new RegExp(`^${type.replace('.', '\\.')}:`) }).uncheck();
    }
    await page.getByLabel('Endpoint URL').fill(hookUrl);
    await page.getByLabel('Description (optional)').fill('Billing system');
    await page.getByRole('button', { name: 'Add endpoint' }).click();

    const shown = page.locator('[data-secret="webhook-secret"]');
    secret = (await shown.textContent())!;
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    await page.getByText('it is shown only once and cannot be recovered').waitFor();
    await page.getByRole('button', { name: 'Copy secret' }).click();
    await page.getByRole('button', { name: 'Copied' }).waitFor();
    expect(await page.evaluate(() => (globalThis as unknown as { navigator: { clipboard: { readText: () => Promise<string> } } }).navigator.clipboard.readText())).toBe(secret);

    const item = endpoint(hookUrl);
    await item.getByText('Enabled', { exact: true }).waitFor();
    await item.getByText('record.sealed, record.anchored').waitFor();
    expect(await item.locator('.endpoint-description').textContent()).toBe('Billing system');
    expect(await seriousViolations(page)).toEqual([]);
    await screenshots(page, 'webhooks-secret');

    await page.getByRole('button', { name: 'I have stored it' }).click();
    expect(await page.getByText(secret).count()).toBe(0);
    await page.reload();
    await endpoint(hookUrl).waitFor();
    expect(await page.content()).not.toContain(secret);
  });

  it('sends a test event, shows it delivered, and redelivers it under the same webhook-id', async () => {
    await page.getByRole('button', { name: 'Send test event to Billing system' }).click();
    const [first] = await receiver.waitFor('/ui', 1);
    const event = verified(secret, first!);
    expect(event.type).toBe('webhook.test');
    // The list opened for the endpoint and follows the delivery until it is delivered.
    const row = delivery(event.id);
    await page.getByRole('heading', { name: 'Recent deliveries' }).waitFor();
    await delivery(event.id, 'delivered').waitFor();
    expect(await row.locator('.badge').textContent()).toBe('Delivered');
    await row.getByText('webhook.test', { exact: true }).waitFor();
    expect(await facts(row)).toMatchObject({ Attempts: '1', 'Last status code': '200', 'Last error': '—', Delivered: expect.any(String) });
    expect(await seriousViolations(page)).toEqual([]);
    await screenshots(page, 'webhooks-deliveries');

    await row.getByRole('button', { name: `Redeliver webhook.test ${event.id}` }).click();
    const [, again] = await receiver.waitFor('/ui', 2);
    expect(again!.headers['webhook-id']).toBe(first!.headers['webhook-id']);
    expect(verified(secret, again!).id).toBe(event.id);
    await delivery(event.id, 'delivered').waitFor();
    expect(await page.locator('li[data-delivery]').count()).toBe(1);
  });

  it('shows a failing delivery with its status code and error, and redelivers it once the receiver works', async () => {
    receiver.answer('/ui', 500);
    await page.getByRole('button', { name: 'Send test event to Billing system' }).click();
    const [, , failing] = await receiver.waitFor('/ui', 3);
    const row = delivery(failing!.headers['webhook-id']!);
    await delivery(failing!.headers['webhook-id']!, 'failed').waitFor();
    expect(await row.locator('.badge').textContent()).toBe('Failed');
    expect(await facts(row)).toMatchObject({ Attempts: '2', 'Last status code': '500', 'Last error': 'answered 500', Failed: expect.any(String) });
    expect(receiver.at('/ui')).toHaveLength(4);
    await screenshots(page, 'webhooks-failed');

    receiver.answer('/ui', 200);
    await row.getByRole('button', { name: /^Redeliver/ }).click();
    await delivery(failing!.headers['webhook-id']!, 'delivered').waitFor();
    expect(receiver.at('/ui')).toHaveLength(5);
    expect(receiver.at('/ui')[4]!.headers['webhook-id']).toBe(failing!.headers['webhook-id']);
  });

  it('shows an endpoint disabled by a 410 Gone with its reason', async () => {
    const goneUrl = `${receiver.url}/gone`;
    receiver.answer('/gone', 410);
    await page.getByLabel('Endpoint URL').fill(goneUrl);
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    await page.getByRole('button', { name: 'I have stored it' }).click();
    await page.getByRole('button', { name: `Send test event to ${goneUrl}` }).click();
    await receiver.waitFor('/gone', 1);
    const item = endpoint(goneUrl);
    await item.getByText('Disabled', { exact: true }).waitFor();
    await item.getByText(/Disabled after it answered 410 Gone/).waitFor();
    expect(await item.getByRole('button', { name: /^Send test event/ }).isDisabled()).toBe(true);
    await screenshots(page, 'webhooks-disabled');
    await item.getByRole('button', { name: `Delete ${goneUrl}` }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete endpoint' }).click();
    await item.waitFor({ state: 'detached' });
  });

  it('pauses and enables an endpoint, rotates its secret (shown once), and deletes it after a confirmation', async () => {
    const item = endpoint(hookUrl);
    await item.getByRole('button', { name: 'Pause Billing system' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Pause endpoint' }).click();
    await item.getByText('Paused', { exact: true }).waitFor();
    await item.getByText(/Paused by you on .*: nothing is sent to it/).waitFor();
    expect(await item.getByRole('button', { name: /^Send test event/ }).isDisabled()).toBe(true);
    await item.getByRole('button', { name: 'Enable Billing system' }).click();
    await item.getByText('Enabled', { exact: true }).waitFor();

    await item.getByRole('button', { name: 'Rotate secret of Billing system' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Rotate secret' }).click();
    const rotated = (await page.locator('[data-secret="webhook-secret"]').textContent())!;
    expect(rotated).toMatch(/^whsec_/);
    expect(rotated).not.toBe(secret);
    await page.getByText(/The previous secret keeps signing alongside it until/).waitFor();
    await item.getByText(/the previous secret signs too until/).waitFor();
    await page.getByRole('button', { name: 'I have stored it' }).click();
    expect(await page.getByText(rotated).count()).toBe(0);

    // During the overlap a delivery carries both signatures: either secret verifies it.
    const before = receiver.at('/ui').length;
    await item.getByRole('button', { name: 'Send test event to Billing system' }).click();
    const received = (await receiver.waitFor('/ui', before + 1))[before]!;
    expect(received.headers['webhook-signature']!.split(' ')).toHaveLength(2);
    expect(verified(rotated, received).type).toBe('webhook.test');
    expect(verified(secret, received).type).toBe('webhook.test');

    await item.getByRole('button', { name: 'Delete Billing system' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByText('This cannot be undone').waitFor();
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await item.waitFor();
    await item.getByRole('button', { name: 'Delete Billing system' }).click();
    await dialog.getByRole('button', { name: 'Delete endpoint' }).click();
    await page.getByText('No webhook endpoints.').waitFor();
    expect(await page.getByRole('heading', { name: 'Recent deliveries' }).count()).toBe(0);

    expect(csp).toEqual([]);
    for (const shown of [secret, rotated]) expect(t.logs()).not.toContain(shown);
  });
});
