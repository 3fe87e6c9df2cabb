import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import pg from 'pg';
import type { Browser, BrowserContext, Page, WebSocket } from 'playwright-core';
import type { TestApp } from '../support/harness.js';
import { collectCspViolations, dropFile, launchChromium, newContext, screenshots, seriousViolations, signInThroughUi, startBrowserApp } from '../support/browser.js';
import { startPrivateChain, type PrivateChain } from '../support/chain.js';
import { sealTwoPartyAgreement, type SealedAgreement } from '../support/seal-agreement.js';

const SHOTS = '/tmp/ui-shots2';
/** The PDF is made and the seal anchored by jobs after the last signature: a few seconds, never a timed assertion. */
const ARTIFACT_WAIT = { timeout: 60_000 };

async function documentStatus(t: TestApp, sealed: SealedAgreement): Promise<number> {
  const response = await fetch(`${t.url}/api/v1/agreements/${sealed.id}/document`, { headers: { authorization: `Bearer ${sealed.initiator}` } });
  await response.arrayBuffer();
  return response.status;
}

describe('Web UI: sealed artifacts, the audit trail, and public verification of the downloaded PDF', () => {
  let chain: PrivateChain;
  let t: TestApp & { origin: string };
  let browser: Browser;
  let alice: BrowserContext;
  let page: Page;
  let sealed: SealedAgreement;
  let pdf: Buffer;
  let txHash: string;

  beforeAll(async () => {
    // Jobs make the PDF and anchor the seal on a private anvil (a real chain).
    chain = await startPrivateChain();
    [t, browser] = await Promise.all([startBrowserApp({ JOBS_ENABLED: 'true', CHAIN_RPC_URL: chain.url, LOCAL_STATE_DIR: chain.dir }), launchChromium()]);
    sealed = await sealTwoPartyAgreement(t);
    alice = await newContext(browser, t.origin);
    page = await alice.newPage();
    await signInThroughUi(page, t, 'alice@example.com');
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await t?.stop();
    await chain?.destroy();
  });

  it('shows the sealed artifacts and the audit trail, and downloads the PDF whose bytes hash to the document hash shown', async () => {
    const requests: string[] = [];
    page.on('request', (request) => requests.push(request.url()));
    const cspViolations = collectCspViolations(page);
    // Once the job has made the PDF, take it away again so that the page opens while it is "being made".
    // The service heals a missing PDF on its own (a job run that outlived the tests' 2 s lock, or the
    // sweep once the seal is a minute old, makes it again): if the page already shows it, take it away again.
    while ((await documentStatus(t, sealed)) !== 200) await new Promise((resolve) => setTimeout(resolve, 200));
    const db = new pg.Client({ connectionString: t.databaseUrl });
    await db.connect();
    const pending = page.locator('[data-artifact="pdf-pending"]');
    const ready = page.getByRole('button', { name: 'Download the signed PDF' });
    let subscribed!: Promise<void>;
    for (let attempt = 1; ; attempt += 1) {
      await db.query(`delete from sealed_artifacts where record_id = $1 and kind = 'sealed_pdf'`, [sealed.id]);
      subscribed = activitySubscribed(page);
      await page.goto(`/records/${sealed.reference}`);
      await pending.or(ready).first().waitFor();
      if (await pending.isVisible()) break;
      if (attempt === 5) throw new Error('the PDF was made again every time it was taken away');
    }
    await db.end();
    // The page hears of the PDF through its activity subscription: an event published before the page
    // has subscribed is not for it (on a loaded machine the socket can open after the notice shows).
    await subscribed;
    // Made again: its sealed_pdf_ready activity event turns the notice into the download, without a reload.
    await t.app.services.sealArtifacts.pdf(sealed.id);
    await page.getByRole('button', { name: 'Download the signed PDF' }).waitFor(ARTIFACT_WAIT);
    await page.locator('[data-chain-status="confirmed"]').waitFor(ARTIFACT_WAIT);
    const shownHash = (await page.locator('[data-document-hash]').textContent())!;
    expect(shownHash).toMatch(/^sha256:[0-9a-f]{64}$/);
    await page.getByText(/^PAdES B-[BT]$/).waitFor();
    txHash = (await page.locator('[data-chain-status] a, [data-chain-status] dd.mono').first().textContent())!;
    expect(txHash).toMatch(/^0x[0-9a-f]{64}$/);
    await page.getByRole('img', { name: /identicon/i }).first().waitFor();
    await page.getByRole('link', { name: `/verify/${sealed.reference}` }).waitFor();
    await page.getByText('npx record-verify sealed.pdf --rpc').waitFor();

    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download the signed PDF' }).click()]);
    pdf = await readFile(await download.path());
    expect(pdf.subarray(0, 5).toString()).toBe('%PDF-');
    expect(`sha256:${createHash('sha256').update(pdf).digest('hex')}`).toBe(shownHash);
    expect(download.suggestedFilename()).toBe(`${sealed.reference}.pdf`);
    // The bearer went in a header: no URL the page asked for carries the session token.
    expect(requests.some((url) => url.includes(sealed.initiator))).toBe(false);

    const trail = page.locator('[data-slot="audit-trail"]');
    await trail.getByText('Chain intact').waitFor();
    await trail.getByRole('cell', { name: /All signatures complete → sealed/ }).first().waitFor();
    expect(await trail.getByRole('row').count()).toBeGreaterThan(4);

    await page.getByRole('button', { name: 'View the share card' }).click();
    await page.getByRole('img', { name: `Share card of ${sealed.reference}` }).waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    expect(cspViolations).toEqual([]);
    await screenshots(page, 'record-sealed', SHOTS);
  }, 90_000);

  it('lets a stranger verify the downloaded PDF by file drop and by the transaction hash', async () => {
    const stranger = await newContext(browser, t.origin);
    const publicPage = await stranger.newPage();
    await publicPage.goto(`/verify/${sealed.reference}`);
    await publicPage.getByRole('heading', { name: 'Certificate' }).waitFor();
    await publicPage.getByRole('img', { name: /identicon/i }).waitFor();
    await publicPage.locator('[data-chain-status="confirmed"]').getByText(txHash).waitFor();
    // The sealed PDF's level and the seal certificate that signed it (no timestamp authority here: B-B).
    const facts = publicPage.locator('dl.facts');
    await facts.getByText('PAdES B-B').waitFor();
    await facts.getByText(/^CN=.*development seal$/).waitFor();
    await facts.locator('dt:text-is("Certificate SHA-256") + dd').getByText(/^sha256:[0-9a-f]{64}$/).waitFor();

    await dropFile(publicPage, `${sealed.reference}.pdf`, pdf, 'application/pdf');
    await publicPage.locator('[data-verdict="verified"]').waitFor();
    await publicPage.getByText('Matched by document hash (the current PDF, version 1 of 1).').waitFor();
    expect(await seriousViolations(publicPage)).toEqual([]);
    await screenshots(publicPage, 'verify-sealed', SHOTS);

    const altered = Buffer.concat([pdf, Buffer.from('\n%')]);
    await dropFile(publicPage, 'altered.pdf', altered, 'application/pdf');
    await publicPage.locator('[data-verdict="no_match"]').waitFor();

    await publicPage.getByRole('tab', { name: 'Transaction' }).click();
    await publicPage.getByLabel('Transaction hash').fill(txHash);
    await publicPage.getByRole('button', { name: 'Check', exact: true }).click();
    await publicPage.locator('[data-verdict="verified"]').waitFor();
    expect(await seriousViolations(publicPage)).toEqual([]);
    await stranger.close();
  });
});

/** Resolves once the page has sent the subscription of its activity feed over its GraphQL socket. */
function activitySubscribed(page: Page): Promise<void> {
  return new Promise((resolve) => {
    const onSocket = (socket: WebSocket) =>
      socket.on('framesent', ({ payload }) => {
        const text = String(payload);
        if (text.includes('"subscribe"') && text.includes('recordActivity')) {
          page.off('websocket', onSocket);
          resolve();
        }
      });
    page.on('websocket', onSocket);
  });
}
