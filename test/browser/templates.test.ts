import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { signWithEmailOtp } from '../support/ceremony.js';
import { agreementBody, type TestApp } from '../support/harness.js';
import { collectCspViolations, launchChromium, newContext, screenshots, seriousViolations, signInThroughUi, startBrowserApp } from '../support/browser.js';

/**
 * Daily work at volume in the browser: a template with placeholders and two party roles (a server
 * validation issue shown beside its field), a draft made from it with whose turn it is and the
 * reminders switch on the record page; a bulk send from a CSV file with its live progress and the
 * failed rows' report; an export of sealed records downloaded as a ZIP.
 */
describe('Web UI: templates', () => {
  let t: TestApp & { origin: string };
  let browser: Browser;
  let page: Page;
  let csp: string[];
  let templatePath: string;
  let dir: string;

  beforeAll(async () => {
    // Jobs on: bulk sends and exports are made by jobs.
    [t, browser, dir] = await Promise.all([startBrowserApp({ JOBS_ENABLED: 'true' }), launchChromium(), mkdtemp(path.join(tmpdir(), 'ui-templates-'))]);
    page = await (await newContext(browser, t.origin)).newPage();
    csp = collectCspViolations(page);
    await signInThroughUi(page, t, 'ada@acme.example');
  });
  afterAll(async () => {
    await browser?.close();
    await t?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('creates a template with placeholders and two party roles; a server issue shows beside its field', async () => {
    await page.getByRole('link', { name: 'Templates', exact: true }).click();
    await page.getByRole('heading', { name: 'Your templates', level: 1 }).waitFor();
    await page.getByText('You have no templates yet.').waitFor();
    expect(await seriousViolations(page)).toEqual([]);

    await page.getByRole('link', { name: 'New template' }).click();
    await page.getByRole('heading', { name: 'New template', level: 1 }).waitFor();
    await page.getByLabel('Template name').fill('Studio lease');
    await page.getByLabel('Title (optional)').fill('Lease for {{client}}');
    await page.getByLabel('Text', { exact: true }).fill('The studio at {{address}} is let to {{client}} for {{rent}} euros a month, payable before the fifth day of each month.');
    // The placeholders found in the text become fields in one click.
    await page.getByRole('button', { name: 'Add their fields' }).click();
    await page.getByLabel('Field 3 label').fill('Monthly rent');
    await page.getByLabel('Field 3 max length').fill('8');
    await page.getByLabel('Role 1 label').fill('Tenant');
    await page.getByRole('button', { name: 'Add role' }).click();
    await page.getByLabel('Role 2 label').fill('Guarantor');
    await page.getByRole('radio', { name: 'One at a time, in list order' }).check();
    // A bad field name is refused by the service, which names the field: the page shows it there.
    await page.getByLabel('Field 1 name').fill('Client');
    await page.getByRole('button', { name: 'Create template' }).click();
    const nameInput = page.getByLabel('Field 1 name');
    await page.getByText('Lowercase letters, digits and _, starting with a letter (at most 40)').waitFor();
    expect(await nameInput.getAttribute('aria-invalid')).toBe('true');
    expect(await seriousViolations(page)).toEqual([]);
    await screenshots(page, 'template-edit-issue');

    await nameInput.fill('client');
    await page.getByRole('button', { name: 'Create template' }).click();
    await page.getByRole('heading', { name: 'Studio lease', level: 1 }).waitFor();
    templatePath = new URL(page.url()).pathname;
    expect(templatePath).toMatch(/^\/templates\/[0-9a-f-]{36}$/);
    await page.getByText(/^Version 1:/).waitFor();

    await page.getByRole('link', { name: 'Templates', exact: true }).click();
    const item = page.getByRole('list', { name: 'Templates' }).locator('li[data-template="Studio lease"]');
    await item.getByText('3 fields').waitFor();
    await item.getByText('2 roles').waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await screenshots(page, 'templates');
  });

  it('uses the template: the draft carries the filled text, then shows whose turn it is and turns reminders off', async () => {
    await page.locator('li[data-template="Studio lease"]').getByRole('link', { name: 'Use Studio lease' }).click();
    await page.getByRole('heading', { name: 'Use Studio lease', level: 1 }).waitFor();
    await page.getByLabel('Address').fill('14 Rue des Acacias, Lyon');
    await page.getByLabel('Client').fill('Élodie Marchand');
    await page.getByLabel('Monthly rent').fill('850');
    await page.getByLabel('Tenant name').fill('Élodie Marchand');
    await page.getByLabel('Tenant email').fill('elodie@example.com');
    await page.getByLabel('Guarantor name').fill('Bob Example');
    await page.getByLabel('Guarantor email').fill('bob@example.com');
    await page.getByRole('region', { name: 'Preview' }).getByText('is let to Élodie Marchand for 850 euros').waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await screenshots(page, 'template-use');
    await page.getByRole('button', { name: 'Create draft' }).click();

    await page.getByRole('heading', { name: 'Lease for Élodie Marchand', level: 1 }).waitFor();
    await page.getByText('The studio at 14 Rue des Acacias, Lyon is let to Élodie Marchand for 850 euros a month, payable before the fifth day of each month.').waitFor();
    const details = page.locator('dl.facts');
    await details.getByText('One at a time, in list order').waitFor();
    await details.getByRole('link', { name: 'Version 1' }).waitFor();
    const reference = new URL(page.url()).pathname.split('/')[2]!;

    // Signed and submitted over the API: the tenant is invited first, the guarantor after.
    const token = await t.signIn('ada@acme.example');
    await signWithEmailOtp(t, token, 'ada@acme.example', reference);
    expect((await t.request('POST', `/api/v1/agreements/${reference}/submit`, { token })).status).toBe(200);
    await page.getByText('Now signing: Élodie Marchand').waitFor();
    await page.locator('li[data-party="Élodie Marchand"]').getByText('Their turn').waitFor();
    expect(await page.locator('li[data-party="Bob Example"]').getByText('Their turn').count()).toBe(0);

    await page.getByText(/^Reminders: on/).waitFor();
    await page.getByRole('button', { name: 'Turn reminders off' }).click();
    await page.getByRole('button', { name: 'Turn reminders on' }).waitFor();
    await page.getByText('Reminders: off').waitFor();
    const record = await t.request('GET', `/api/v1/agreements/${reference}`, { token });
    expect(record.body.reminders).toMatchObject({ enabled: false });
    expect(await seriousViolations(page)).toEqual([]);
    await screenshots(page, 'record-from-template');
    expect(csp).toEqual([]);
  });

  it('bulk sends the template from a CSV file: live progress to 100%, and a report of the failed row to download', async () => {
    await page.goto(templatePath);
    await page.getByRole('link', { name: 'Bulk send' }).click();
    await page.getByRole('heading', { name: 'Bulk send Studio lease', level: 1 }).waitFor();
    const header = 'client,address,rent,party_1_name,party_1_contact,party_1_contact_type,party_2_name,party_2_contact,party_2_contact_type';
    expect(await page.getByLabel('Expected header line').textContent()).toBe(header);
    const [template] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download a CSV template' }).click()]);
    expect(template.suggestedFilename()).toBe('studio-lease-bulk-send.csv');
    expect(await readFile(await template.path(), 'utf8')).toBe(`${header}\r\n`);
    expect(await seriousViolations(page)).toEqual([]);

    // Three rows; the second's rent is longer than the field allows.
    const csv = [
      'client,address,rent,party_1_name,party_1_contact,party_2_name,party_2_contact',
      'Ann Tenant,1 Garden Row,700,Ann Tenant,ann@example.com,Gus Guarantor,gus@example.com',
      'Ben Tenant,2 Garden Row,700000000,Ben Tenant,ben@example.com,Gus Guarantor,gus@example.com',
      '"Cy Tenant, Jr.",3 Garden Row,650,Cy Tenant,cy@example.com,Gus Guarantor,gus@example.com',
    ].join('\n');
    const file = path.join(dir, 'leases.csv');
    await writeFile(file, csv);
    await page.getByLabel('CSV file').setInputFiles(file);
    await page.getByRole('button', { name: 'Start bulk send' }).click();

    const progress = page.getByRole('progressbar', { name: 'Rows processed' });
    await page.getByRole('heading', { name: 'Bulk send finished' }).waitFor();
    expect(await progress.evaluate((bar) => [(bar as unknown as { value: number }).value, (bar as unknown as { max: number }).max])).toEqual([3, 3]);
    expect(await progress.getAttribute('aria-valuetext')).toBe('3 of 3 rows (100%)');
    const counts = page.getByRole('definition');
    expect(await counts.allTextContents()).toEqual(expect.arrayContaining(['3 of 3']));
    expect(await page.locator('dl.facts dt:has-text("Created") + dd').textContent()).toBe('2');
    expect(await page.locator('dl.facts dt:has-text("Failed") + dd').textContent()).toBe('1');
    await page.getByRole('cell', { name: /At most 8 characters/ }).waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await screenshots(page, 'bulk-send');

    const [report] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download the failed rows (CSV)' }).click()]);
    expect(report.suggestedFilename()).toBe('studio-lease-failed-rows.csv');
    const lines = (await readFile(await report.path(), 'utf8')).trim().split('\r\n');
    expect(lines[0]).toBe('row,reasons');
    expect(lines.slice(1)).toEqual([expect.stringMatching(/^2,.*At most 8 characters/)]);

    // The two drafts are the caller's, with the CSV's values filled in.
    await page.getByRole('link', { name: 'Records', exact: true }).click();
    const records = page.getByRole('list', { name: 'Records' });
    await records.getByRole('link', { name: 'Lease for Ann Tenant' }).waitFor();
    await records.getByRole('link', { name: 'Lease for Cy Tenant, Jr.' }).waitFor();
    expect(await records.getByRole('link', { name: 'Lease for Ben Tenant' }).count()).toBe(0);
    expect(csp).toEqual([]);
  });

  it('exports sealed records and downloads the ZIP once it is ready', async () => {
    // Two declarations signed by their declarant and submitted: sealed at once.
    const token = await t.signIn('ada@acme.example');
    for (const title of ['Garden rules 2026', 'Parking rules 2026']) {
      const created = await t.request('POST', '/api/v1/declarations', { token, body: agreementBody({ parties: undefined, title }) });
      await signWithEmailOtp(t, token, 'ada@acme.example', created.body.id);
      expect((await t.request('POST', `/api/v1/agreements/${created.body.id}/submit`, { token })).body.status).toBe('sealed');
    }

    await page.getByRole('link', { name: 'Exports', exact: true }).click();
    await page.getByRole('heading', { name: 'Exports', level: 1 }).waitFor();
    await page.getByText('No exports yet.').waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await page.getByLabel('Status').selectOption('sealed');
    await page.getByRole('checkbox', { name: 'Sealed metadata' }).uncheck();
    await page.getByRole('button', { name: 'Start export' }).click();

    const item = page.getByRole('list', { name: 'Exports' }).getByRole('listitem').first();
    await item.getByText('Signed PDFs, Audit trails').waitFor();
    await item.getByText('2 records').waitFor();
    const download = item.getByRole('button', { name: /^Download/ });
    await download.waitFor({ timeout: 30_000 });
    expect(await item.getByRole('progressbar').getAttribute('aria-valuetext')).toBe('2 of 2 records (100%)');
    expect(await seriousViolations(page)).toEqual([]);
    await screenshots(page, 'exports');

    const [zip] = await Promise.all([page.waitForEvent('download'), download.click()]);
    expect(await zip.failure()).toBeNull();
    const bytes = await readFile(await zip.path());
    expect(bytes.subarray(0, 2).toString('latin1')).toBe('PK');
    expect(csp).toEqual([]);
  });
});
