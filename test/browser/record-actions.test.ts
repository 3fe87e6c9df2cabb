import type { Browser, Page } from 'playwright-core';
import { signWithEmailOtp } from '../support/ceremony.js';
import { agreementBody, type TestApp } from '../support/harness.js';
import { launchChromium, newContext, screenshots, seriousViolations, signInThroughUi, startBrowserApp } from '../support/browser.js';

describe('Web UI: lifecycle actions on the record page', () => {
  let t: TestApp & { origin: string };
  let browser: Browser;
  let reference: string;

  /** A signed-in tab for `email` on the record page. */
  async function openAs(email: string): Promise<Page> {
    const page = await (await newContext(browser, t.origin)).newPage();
    await signInThroughUi(page, t, email);
    await page.goto('/');
    await page.getByRole('heading', { name: 'Your records' }).waitFor();
    await page.locator(`li[data-record="${reference}"]`).getByRole('link').click();
    await page.getByRole('heading', { name: 'Garden sharing' }).waitFor();
    return page;
  }

  beforeAll(async () => {
    [t, browser] = await Promise.all([startBrowserApp(), launchChromium()]);
    // A pending witnessed agreement, set up over the API: Alice initiates, Bob is a party, Carol a witness.
    const token = await t.signIn('alice@example.com');
    const created = await t.request('POST', '/api/v1/agreements', {
      token,
      body: agreementBody({ type: 'witnessed_agreement', witnesses: [{ display_name: 'Carol', contact_point_value: 'carol@example.com' }] }),
    });
    reference = created.body.agr_reference;
    await signWithEmailOtp(t, token, 'alice@example.com', reference);
    expect((await t.request('POST', `/api/v1/agreements/${reference}/submit`, { token })).status).toBe(200);
  });
  afterAll(async () => {
    await browser?.close();
    await t?.stop();
  });

  it('lets a party propose changes, a witness decline, and the initiator accept the proposal and waive the witness', async () => {
    const bob = await openAs('bob@example.com');
    await bob.getByRole('button', { name: 'Propose changes' }).click();
    const proposal = bob.getByRole('dialog', { name: 'Propose a counter-proposal' });
    await proposal.getByLabel('Proposed terms').fill('We agree to share the garden equally and to take turns watering it every second week.');
    expect(await seriousViolations(bob)).toEqual([]);
    await proposal.getByRole('button', { name: 'Send proposal' }).click();
    await bob.getByRole('heading', { name: 'Counter-proposal (pending)' }).waitFor();
    // Under counter review the terms may change: nobody is offered signing (the server refuses it), the
    // proposer may withdraw. The page shows exactly the moves the service lists for the reader.
    const signLinks = (page: Page) => page.getByRole('link', { name: /^(Sign|Continue signing)$/ }).count();
    await bob.getByRole('button', { name: 'Withdraw my proposal' }).waitFor();
    expect(await signLinks(bob)).toBe(0);

    const carol = await openAs('carol@example.com');
    await carol.getByRole('button', { name: 'Decline' }).waitFor();
    expect(await signLinks(carol)).toBe(0);
    const listed = await t.request('GET', `/api/v1/agreements/${reference}`, { token: await t.signIn('carol@example.com') });
    expect(listed.body).toMatchObject({ status: 'counter_under_review', available_actions: ['decline'] });
    await carol.getByRole('button', { name: 'Decline' }).click();
    const decline = carol.getByRole('dialog', { name: 'Decline to sign?' });
    await decline.getByLabel('Reason (optional)').fill('I was not there');
    await decline.getByRole('button', { name: 'Decline' }).click();
    await carol.locator('li[data-party="Carol"]').getByText('Declined').waitFor();

    const alice = await openAs('alice@example.com');
    await alice.locator('li[data-party="Carol"]').getByText('Reason: I was not there').waitFor();
    expect(await seriousViolations(alice)).toEqual([]);
    await screenshots(alice, 'record-counter');
    await alice.getByRole('button', { name: 'Review counter-proposal' }).click();
    await alice.getByRole('dialog', { name: 'Resolve the counter-proposal' }).getByRole('button', { name: 'Accept as shown' }).click();
    await alice.getByText('Version 2').waitFor();
    expect(await alice.getByText('every second week').count()).toBeGreaterThan(0);

    await alice.getByRole('button', { name: 'Waive Carol' }).click();
    await alice.getByRole('dialog', { name: 'Waive Carol?' }).getByRole('button', { name: 'Waive Carol' }).click();
    await alice.locator('li[data-party="Carol"]').getByText('Waived').waitFor();

    // Bob's tab follows live: the accepted proposal made a new version for everyone to sign.
    await bob.getByText('Version 2').waitFor();
  }, 90_000);
});
