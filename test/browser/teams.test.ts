import type { Browser, Page } from 'playwright-core';
import type { TestApp } from '../support/harness.js';
import { collectCspViolations, launchChromium, newContext, screenshots, seriousViolations, signInThroughUi, startBrowserApp } from '../support/browser.js';

/**
 * Teams in the browser: an admin creates a team and works in it through the header's switcher,
 * invites a member from the team page; the member opens the mailed link signed out, signs in from
 * it, accepts and lands on the team page; the admin's members list shows them.
 */
describe('Web UI: teams', () => {
  let t: TestApp & { origin: string };
  let browser: Browser;
  let admin: Page;
  let adminCsp: string[];
  let teamPath: string;

  beforeAll(async () => {
    [t, browser] = await Promise.all([startBrowserApp(), launchChromium()]);
    admin = await (await newContext(browser, t.origin)).newPage();
    adminCsp = collectCspViolations(admin);
    await signInThroughUi(admin, t, 'ada@acme.example');
  });
  afterAll(async () => {
    await browser?.close();
    await t?.stop();
  });

  it('serves the UI at the teams routes', async () => {
    for (const path of ['/teams', '/teams/8f6d1c1e-5f0a-4c1e-9d55-3f3f7f0e2a11', '/teams/invitations/rss_tinv_example']) {
      const response = await fetch(t.url + path);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toContain('text/html');
    }
  });

  it('an admin creates a team and switches to it with the header switcher', async () => {
    await admin.getByRole('link', { name: 'Teams', exact: true }).click();
    await admin.getByRole('heading', { name: 'Teams', level: 1 }).waitFor();
    await admin.getByText('You are in no team yet.').waitFor();
    expect(await seriousViolations(admin)).toEqual([]);

    await admin.getByLabel('Team name').fill('Acme Ltd');
    await admin.getByRole('button', { name: 'Create team' }).click();
    await admin.getByRole('heading', { name: 'Acme Ltd', level: 1 }).waitFor();
    teamPath = new URL(admin.url()).pathname;
    expect(teamPath).toMatch(/^\/teams\/[0-9a-f-]{36}$/);

    await admin.getByRole('button', { name: 'Workspace: Personal' }).click();
    await admin.getByRole('list', { name: 'Workspaces' }).getByRole('button', { name: 'Acme Ltd Admin' }).click();
    await admin.getByRole('heading', { name: 'Records of Acme Ltd' }).waitFor();
    await admin.getByText('Acme Ltd has no records yet.').waitFor();
    await admin.getByRole('button', { name: 'Workspace: Acme Ltd' }).waitFor();
    // Remembered across reloads (a preference, not a secret: localStorage).
    await admin.reload();
    await admin.getByRole('heading', { name: 'Records of Acme Ltd' }).waitFor();
  });

  it('in the team workspace, a new record belongs to the team by default and says so', async () => {
    await admin.getByRole('link', { name: 'New record' }).first().click();
    expect(await admin.getByLabel('Owner').locator('option:checked').textContent()).toBe('Acme Ltd (admin)');
    await admin.getByRole('radio', { name: 'Declaration' }).check();
    await admin.getByLabel('Title (optional)').fill('Acme supplier declaration');
    await admin.getByLabel('Terms').fill('Acme Ltd declares that every supplier it pays has signed the code of conduct this year.');
    await admin.getByRole('button', { name: 'Create declaration draft' }).click();
    await admin.getByRole('heading', { name: 'Acme supplier declaration' }).waitFor();
    await admin.getByRole('definition').getByRole('link', { name: 'Acme Ltd' }).waitFor();
    await admin.getByRole('link', { name: 'Records', exact: true }).click();
    await admin.getByRole('list', { name: 'Records' }).getByRole('link', { name: 'Acme supplier declaration' }).waitFor();
  });

  it('the admin invites a member from the team page', async () => {
    await admin.getByRole('link', { name: 'Teams', exact: true }).click();
    await admin.getByRole('list', { name: 'Your teams' }).getByRole('link', { name: 'Acme Ltd' }).click();
    await admin.getByRole('heading', { name: 'Acme Ltd', level: 1 }).waitFor();
    await admin.getByLabel('Email address to invite').fill('max@acme.example');
    await admin.getByLabel('Role', { exact: true }).selectOption('member');
    await admin.getByRole('button', { name: 'Send invitation' }).click();
    await admin.getByRole('list', { name: 'Pending invitations' }).getByText('max@acme.example', { exact: true }).waitFor();
    await admin.getByRole('cell', { name: 'Invited max@acme.example as member' }).waitFor();
    expect(await seriousViolations(admin)).toEqual([]);
    await screenshots(admin, 'team-page');
  });

  it('the invited person opens the mailed link, signs in from it, accepts and lands on the team page', async () => {
    const mail = await t.smtp.waitFor('max@acme.example', (m) => m.subject.startsWith('You are invited to join'));
    const link = new RegExp(`${t.origin}/teams/invitations/rss_tinv_[A-Za-z0-9_-]+`).exec(mail.text)?.[0];
    expect(link).toBeDefined();

    const page = await (await newContext(browser, t.origin)).newPage();
    const csp = collectCspViolations(page);
    await page.goto(link!);
    await page.getByRole('heading', { name: 'Join Acme Ltd' }).waitFor();
    const facts = page.getByRole('definition');
    expect(await facts.allTextContents()).toEqual(expect.arrayContaining(['Acme Ltd', 'max@acme.example', expect.stringMatching(/^Member: /)]));
    expect(await seriousViolations(page)).toEqual([]);
    await screenshots(page, 'team-invitation');

    await page.getByRole('link', { name: 'Sign in to answer' }).click();
    const before = t.smtp.messages.length;
    await page.getByLabel('Email address').fill('max@acme.example');
    await page.getByRole('button', { name: 'Email me a code' }).click();
    await page.getByLabel('Six-digit code').fill(await t.smtp.codeFor('max@acme.example', before));
    await page.getByRole('button', { name: 'Sign in' }).click();

    await page.getByRole('heading', { name: 'Join Acme Ltd' }).waitFor();
    await page.getByRole('button', { name: 'Accept and join Acme Ltd' }).click();
    await page.waitForURL(`**${teamPath}`);
    await page.getByRole('heading', { name: 'Acme Ltd', level: 1 }).waitFor();
    const members = page.getByRole('list', { name: 'Members' });
    await members.locator('li[data-member="max@acme.example"]').getByText('max@acme.example (you)').waitFor();
    expect(await members.locator('li[data-member="ada@acme.example"] .badge').textContent()).toBe('Admin');
    // A member manages nothing: no invitations, keys or webhooks, and no way to remove others; leaving is theirs.
    expect(await page.getByRole('heading', { name: 'Invitations' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: /^Remove/ }).count()).toBe(0);
    await page.getByRole('button', { name: 'Leave team' }).waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    expect(csp).toEqual([]);
  });

  it('the admin sees the new member on the team page', async () => {
    await admin.reload();
    const member = admin.getByRole('list', { name: 'Members' }).locator('li[data-member="max@acme.example"]');
    await member.getByRole('button', { name: 'Remove max@acme.example' }).waitFor();
    expect(await member.locator('.badge').textContent()).toBe('Member');
    await admin.getByText('No pending invitations.').waitFor();
    await admin.getByRole('cell', { name: 'Joined as member' }).waitFor();
    expect(adminCsp).toEqual([]);
  });
});
