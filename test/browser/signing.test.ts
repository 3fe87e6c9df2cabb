import type { Browser, BrowserContext, Page } from 'playwright-core';
import { agreementBody, type TestApp } from '../support/harness.js';
import { startProviders, type ProviderKind, type ProviderServer } from '../support/provider-servers.js';
import { launchChromium, newContext, screenshots, seriousViolations, signInThroughUi, startBrowserApp } from '../support/browser.js';

/** The record row on the dashboard, by its reference. */
const row = (page: Page, reference: string) => page.locator(`li[data-record="${reference}"]`);

describe('Web UI: create, sign with an email code and a passkey, live dashboard', () => {
  let t: TestApp & { origin: string };
  let browser: Browser;
  let alice: BrowserContext;
  let bob: BrowserContext;
  let reference: string;
  /** One tab per person: the session lives in the tab (sessionStorage), as in a real browser. */
  let alicePage: Page;
  let providers: Record<ProviderKind, ProviderServer>;

  beforeAll(async () => {
    providers = await startProviders();
    const providerBases = { PROOF_FETCH_ALLOW_LOOPBACK: 'true', CODEHOST_API_BASE: providers.codehost.base, MICROBLOG_API_BASE: providers.microblog.base, FORUM_API_BASE: providers.forum.base };
    [t, browser] = await Promise.all([startBrowserApp(providerBases), launchChromium()]);
    [alice, bob] = await Promise.all([newContext(browser, t.origin), newContext(browser, t.origin)]);
  });
  afterAll(async () => {
    await browser?.close();
    await t?.stop();
    await Promise.all(Object.values(providers ?? {}).map((provider) => provider.stop()));
  });

  it('creates an agreement with the limits shown as the initiator types', async () => {
    const page = (alicePage = await alice.newPage());
    await signInThroughUi(page, t, 'alice@example.com');
    expect(await seriousViolations(page)).toEqual([]);
    await screenshots(page, 'dashboard-empty');

    await page.getByRole('link', { name: 'New record' }).first().click();
    await page.getByRole('heading', { name: 'New record' }).waitFor();
    await page.getByLabel('Title (optional)').fill('Garden sharing');
    await page.getByLabel('Terms').fill('We share   the garden');
    // Normalized: the run of spaces counts once.
    expect(await page.getByText('19 / 7000 characters').count()).toBe(1);
    expect(await page.getByText('4 / 350 words').count()).toBe(1);
    await page.getByLabel('Terms').fill('We agree to share the garden equally and to take turns watering it every week.');
    await page.getByLabel('Party 1 name').fill('Bob');
    await page.getByLabel('Party 1 email').fill('bob@example.com');
    expect(await seriousViolations(page)).toEqual([]);
    await screenshots(page, 'create');

    await page.getByRole('button', { name: 'Create agreement draft' }).click();
    await page.waitForURL(/\/records\/AGR-/);
    reference = decodeURIComponent(new URL(page.url()).pathname.split('/')[2]!);
    await page.getByRole('heading', { name: 'Garden sharing' }).waitFor();
    expect(await page.getByText('Draft', { exact: true }).count()).toBeGreaterThan(0);
    expect(await seriousViolations(page)).toEqual([]);
    await screenshots(page, 'record-draft');
  });

  it('signs the draft with the email code, then submits it after a confirmation', async () => {
    const page = alicePage;
    await page.getByRole('link', { name: 'Sign', exact: true }).click();
    await page.getByRole('heading', { name: /Sign “Garden sharing”/ }).waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await screenshots(page, 'sign-methods');

    const before = t.smtp.messages.length;
    await page.getByRole('button', { name: 'Start Email code' }).click();
    const code = await t.smtp.codeFor('alice@example.com', before);
    await page.getByLabel('Signature code from the mail').fill(code);
    await page.getByRole('button', { name: 'Confirm code' }).click();
    await page.getByText('1 of 1 method done.').waitFor();
    await page.getByRole('button', { name: 'Sign version 1' }).click();
    await page.getByRole('heading', { name: 'Signed' }).waitFor();

    await page.getByRole('link', { name: `← ${reference}` }).click();
    await page.getByRole('button', { name: 'Submit for signatures' }).click();
    const dialog = page.getByRole('dialog', { name: 'Submit this record?' });
    await dialog.waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await screenshots(page, 'record-confirm');
    await dialog.getByRole('button', { name: 'Submit and invite' }).click();
    await page.getByText('Awaiting signatures').first().waitFor();
    await t.smtp.waitFor('bob@example.com');
  });

  it('shows on the first browser, without a reload, that a second participant signed with a passkey', async () => {
    const dashboard = alicePage;
    await dashboard.getByRole('link', { name: 'Records', exact: true }).click();
    await row(dashboard, reference).getByText('1 of 2 signed').waitFor();
    await screenshots(dashboard, 'dashboard');

    const page = await bob.newPage();
    const cdp = await bob.newCDPSession(page);
    await cdp.send('WebAuthn.enable');
    const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
      options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true },
    });
    await signInThroughUi(page, t, 'bob@example.com');
    await row(page, reference).getByRole('link').click();
    await page.getByRole('heading', { name: 'Garden sharing' }).waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await screenshots(page, 'record-pending-party');
    await page.getByRole('link', { name: 'Sign', exact: true }).click();

    await page.getByRole('button', { name: 'Start Passkey' }).click();
    // First use: register a passkey (navigator.credentials.create), then confirm with it (.get).
    await page.getByRole('button', { name: 'Create a passkey' }).click();
    await page.getByRole('button', { name: 'Confirm with passkey' }).click();
    await page.getByText('1 of 1 method done.').waitFor();
    await page.getByRole('button', { name: 'Sign version 1' }).click();
    await page.getByRole('heading', { name: 'Signed' }).waitFor();
    // The passkey was made and used by the browser's (virtual) authenticator: one credential, signed twice.
    const { credentials } = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
    expect(credentials).toHaveLength(1);
    expect(credentials[0]!.signCount).toBeGreaterThan(0);

    // The first browser never reloaded: the recordActivity subscription moved the row.
    await row(dashboard, reference).getByText('Sealed').waitFor();
    await row(dashboard, reference).getByText('2 of 2 signed').waitFor();
    await screenshots(dashboard, 'dashboard-live');
  });

  it('filters the dashboard, and amends the sealed record through a confirmation', async () => {
    const page = alicePage;
    await page.getByLabel('Status').selectOption('draft');
    await page.getByText('No records match these filters.').waitFor();
    await page.getByLabel('Status').selectOption('sealed');
    await row(page, reference).waitFor();
    await page.getByLabel('Search this page').fill('nothing like this');
    await page.getByText('No records match these filters.').waitFor();
    await page.getByLabel('Search this page').fill('garden');
    await row(page, reference).getByRole('link').click();

    await page.getByRole('button', { name: 'Amend' }).click();
    const dialog = page.getByRole('dialog', { name: 'Propose an amendment' });
    await dialog.getByLabel('Amended terms').fill('We agree to share the garden equally and to take turns watering it twice a week.');
    await dialog.getByRole('button', { name: 'Create amendment draft' }).click();
    await page.getByText('This record amends or cancels').waitFor();
    await page.getByRole('button', { name: 'Edit draft' }).click();
    await page.getByLabel('Title').fill('Garden sharing, amended');
    await page.getByRole('button', { name: 'Save draft' }).click();
    await page.getByRole('heading', { name: 'Garden sharing, amended' }).waitFor();
  });

  it('signs with a public proof post: the proof text to publish, then the post address pasted', async () => {
    const token = await t.signIn('alice@example.com');
    const created = await t.request('POST', '/api/v1/agreements', { token, body: agreementBody({ title: 'Bike loan' }) });
    const page = alicePage;
    await page.goto(`/records/${created.body.agr_reference}/sign`);
    await page.getByRole('button', { name: 'Start Code host gist' }).click();
    const proofText = (await page.getByLabel('Proof text').textContent())!;
    expect(proofText).toContain(`rss-proof: ${created.body.agr_reference} v1`);
    expect(await seriousViolations(page)).toEqual([]);
    await screenshots(page, 'sign-proof-post');
    const url = providers.codehost.publish('alice-codes', `Signature proof for ${created.body.agr_reference} v1\n\n${proofText}\n`);
    await page.getByLabel('Address (URL) of your public post').fill(url);
    await page.getByRole('button', { name: 'Check my post' }).click();
    await page.getByText('1 of 1 method done.').waitFor();
    await page.getByRole('button', { name: 'Sign version 1' }).click();
    await page.getByRole('heading', { name: 'Signed' }).waitFor();
  });
});
