import { HttpTimestampAuthority, PDF, PdfDict, PdfName, PdfString } from '@libpdf/core';
import type { Browser, BrowserContext, Locator, Page, Request } from 'playwright-core';
import type { TestApp } from '../support/harness.js';
import { collectCspViolations, launchChromium, newContext, screenshots, seriousViolations, startBrowserApp } from '../support/browser.js';
import { startPrivateChain, type PrivateChain } from '../support/chain.js';
import { sealTwoPartyAgreement, type SealedAgreement } from '../support/seal-agreement.js';
import { startTimestampAuthority, type TimestampAuthorityServer } from '../support/timestamp-authority.js';
import { waitFor } from '../support/wait.js';

const CARD_HEADING = 'Check it here, without this service';
const PDF_DROP_LABEL = 'Choose the sealed PDF, or drop it here';
const RPC_LABEL = 'Chain node (JSON-RPC URL)';
/** The verifier runs in the page (its chunk may load lazily, then signature checks and chain reads): a deadline, not a timing goal. */
const VERDICT_WAIT = { timeout: 30_000 };

type Check = { ok: string | null; text: string };
type LocalResult = { verdict: string | null; reason: string | null; checks: Record<string, Check> };

/** The sealed PDF as its initiator downloads it (made by a job after the last signature). */
async function sealedPdf(t: TestApp, sealed: SealedAgreement): Promise<Buffer> {
  return waitFor(async () => {
    const response = await fetch(`${t.url}/api/v1/agreements/${sealed.id}/document`, { headers: { authorization: `Bearer ${sealed.initiator}` } });
    return response.status === 200 ? Buffer.from(await response.arrayBuffer()) : null;
  });
}

/**
 * A copy with one byte changed inside the signed bytes but outside the signature's /Contents hole and
 * anything a reader interprets: a letter of the Producer text when it is written plainly, otherwise
 * the binary comment on the header's second line (every reader skips it; the signature's digest covers it).
 */
function tampered(pdf: Buffer): Buffer {
  const copy = Buffer.from(pdf);
  const byteRange = /\/ByteRange\s*\[\s*(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s*\]/.exec(copy.toString('latin1'));
  if (!byteRange) throw new Error('the sealed PDF has no /ByteRange');
  const holeStart = Number(byteRange[1]) + Number(byteRange[2]);
  const holeEnd = Number(byteRange[3]);
  const producer = copy.indexOf('/Producer (');
  let at = producer >= 0 ? producer + '/Producer ('.length : -1;
  if (at < 0 || !/[A-Za-z]/.test(String.fromCharCode(copy[at]!)) || (at >= holeStart && at < holeEnd)) {
    const comment = copy.indexOf('\n%', 5);
    if (comment < 0 || comment > 40) throw new Error(`no header comment line in ${JSON.stringify(copy.subarray(0, 40).toString('latin1'))}`);
    at = comment + 2;
  }
  copy[at] = copy[at]! ^ 0x01;
  if (copy.equals(pdf)) throw new Error('the copy was not changed');
  return copy;
}

/**
 * The sealed PDF changed the way an attacker would: an incremental revision that changes the document
 * (`change`), then closed with a genuine document timestamp from a timestamp authority, so that every
 * signature and timestamp in the file still verifies over its own bytes.
 */
async function changedAfterSeal(pdf: Buffer, tsa: TimestampAuthorityServer, change: (doc: PDF) => void): Promise<Buffer> {
  const doc = await PDF.load(pdf);
  change(doc);
  const appended = await doc.save({ incremental: true });
  const { bytes } = await (await PDF.load(appended)).addTimestamp({ timestampAuthority: new HttpTimestampAuthority(tsa.url) });
  const changed = Buffer.from(bytes);
  if (changed.length <= pdf.length || !changed.subarray(0, pdf.length).equals(pdf)) throw new Error('the changed PDF does not keep the sealed bytes and append to them');
  return changed;
}

/** Page resources the service hands out as plain files (the built UI): its HTML for the page's own address, its bundles, its icon. */
function isStaticFile(request: Request, pagePath: string): boolean {
  if (request.method() !== 'GET') return false;
  const { pathname } = new URL(request.url());
  if (pathname === pagePath) return request.isNavigationRequest() && request.resourceType() === 'document';
  return pathname.startsWith('/assets/') || pathname === '/favicon.svg';
}

const localCard = (page: Page): Locator => page.locator('.card', { has: page.getByRole('heading', { name: CARD_HEADING }) });

async function openVerifyPage(page: Page, reference: string): Promise<Locator> {
  await page.goto(`/verify/${reference}`);
  await page.getByRole('heading', { name: CARD_HEADING }).waitFor();
  return localCard(page);
}

/** Drops the file on the card's own drop zone the way a person's drag and drop does (a DataTransfer with a File). */
async function dropOnCard(page: Page, card: Locator, name: string, bytes: Buffer): Promise<void> {
  const zone = card.locator('label', { hasText: PDF_DROP_LABEL });
  await zone.waitFor();
  const dataTransfer = await page.evaluateHandle(
    ({ fileName, data }) => {
      const g = globalThis as any;
      const transfer = new g.DataTransfer();
      transfer.items.add(new g.File([new Uint8Array(data)], fileName, { type: 'application/pdf' }));
      return transfer;
    },
    { fileName: name, data: [...bytes] },
  );
  await zone.dispatchEvent('drop', { dataTransfer });
}

/** Chooses the file through the card's file input (the picker). */
async function chooseInCard(card: Locator, name: string, bytes: Buffer): Promise<void> {
  await card.getByLabel(PDF_DROP_LABEL).setInputFiles({ name, mimeType: 'application/pdf', buffer: bytes });
}

/** Waits for the page's own verdict, then reads it with every check it lists (for assertions that name what went wrong). */
async function localResult(page: Page): Promise<LocalResult> {
  const verdict = page.locator('[data-local-verdict="verified"], [data-local-verdict="failed"]');
  await verdict.first().waitFor(VERDICT_WAIT);
  const items = page.getByRole('list', { name: 'Checks run in this browser' }).locator('li[data-check]');
  const checks: Record<string, Check> = {};
  for (const item of await items.all()) {
    checks[(await item.getAttribute('data-check')) ?? '?'] = { ok: await item.getAttribute('data-ok'), text: (await item.innerText()).trim() };
  }
  const reason = page.locator('[data-local-reason]');
  return {
    verdict: await verdict.first().getAttribute('data-local-verdict'),
    reason: (await reason.count()) > 0 ? (await reason.first().innerText()).trim() : null,
    checks,
  };
}

describe('Web UI: a sealed PDF checked in the browser, without the service', () => {
  let chain: PrivateChain;
  let t: TestApp & { origin: string };
  let browser: Browser;
  let stranger: BrowserContext;
  let sealed: SealedAgreement;
  let other: SealedAgreement;
  let pdf: Buffer;
  let otherPdf: Buffer;
  let tsa: TimestampAuthorityServer;

  beforeAll(async () => {
    // Jobs make the PDFs and anchor the seals on a private anvil (a real chain); the page names the same node.
    chain = await startPrivateChain();
    [t, browser, tsa] = await Promise.all([
      startBrowserApp({ CHAIN_RPC_URL: chain.url, LOCAL_STATE_DIR: chain.dir, JOBS_ENABLED: 'true', CHAIN_PUBLIC_RPC_URL: chain.url }),
      launchChromium(),
      // An attacker's timestamp authority: genuine tokens, for closing a changed file with a document timestamp.
      startTimestampAuthority('grant'),
    ]);
    sealed = await sealTwoPartyAgreement(t, {}, { initiator: 'ana@example.com', party: 'ben@example.com' });
    other = await sealTwoPartyAgreement(t, { title: 'Bicycle loan', body: 'I lend my bicycle to Dan for the summer; he returns it oiled by September.' }, { initiator: 'cora@example.com', party: 'dan@example.com' });
    await t.app.services.anchoring!.settle();
    [pdf, otherPdf] = await Promise.all([sealedPdf(t, sealed), sealedPdf(t, other)]);
    stranger = await newContext(browser, t.origin);
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await t?.stop();
    await tsa?.close();
    await chain?.destroy();
  });

  it('verifies a sealed PDF in the browser with the service\'s verification routes blocked', async () => {
    const page = await stranger.newPage();
    const cspViolations = collectCspViolations(page);
    const card = await openVerifyPage(page, sealed.reference);
    const rpc = await card.getByLabel(RPC_LABEL).inputValue();
    expect(rpc.replace(/\/+$/, '')).toBe(chain.url.replace(/\/+$/, ''));

    // From here the service is gone: every request to its origin fails, but for the UI's own static chunks.
    const toService: string[] = [];
    const toChain: string[] = [];
    const chainOrigin = new URL(chain.url).origin;
    await page.route(
      (url) => url.origin === t.origin,
      async (route) => {
        const request = route.request();
        if (request.method() === 'GET' && new URL(request.url()).pathname.startsWith('/assets/')) await route.continue();
        else await route.abort();
      },
    );
    page.on('request', (request) => {
      const url = new URL(request.url());
      if (url.origin === t.origin) toService.push(`${request.method()} ${url.pathname}${url.search}`);
      if (url.origin === chainOrigin) toChain.push(request.url());
    });

    await dropOnCard(page, card, `${sealed.reference}.pdf`, pdf);
    const result = await localResult(page);
    expect(result).toMatchObject({
      verdict: 'verified',
      checks: { signature: { ok: 'true' }, metadata: { ok: 'true' }, anchor: { ok: 'true' }, record: { ok: 'true' } },
    });
    expect(Object.keys(result.checks).sort()).toEqual(['anchor', 'metadata', 'record', 'seal_key', 'signature', 'trust', 'validity']);
    // The page speaks for itself, not in the command line's words.
    expect(result.checks.trust!.text).toContain('not checked');
    expect(result.checks.trust!.text).not.toContain('--trust');
    expect(toService.filter((request) => !/^GET \/assets\//.test(request))).toEqual([]);
    // The anchor was read from the chain node by the browser itself.
    expect(toChain.length).toBeGreaterThan(0);
    const notChecked = (await page.locator('[data-not-checked]').first().innerText()).trim();
    expect(notChecked).not.toBe('');
    expect(notChecked).not.toContain('--trust');

    expect(await seriousViolations(page)).toEqual([]);
    expect(cspViolations).toEqual([]);
    await screenshots(page, 'verify-in-browser');
    await page.close();
  }, 90_000);

  it('verifies a sealed PDF in the browser with every request to the service aborted from page load', async () => {
    const page = await stranger.newPage();
    const cspViolations = collectCspViolations(page);
    const pagePath = `/verify/${sealed.reference}`;
    // Before the page loads, the service is gone but for the page's static files: its HTML, its bundles, its icon.
    const served: string[] = [];
    const aborted: string[] = [];
    await page.route(
      (url) => url.origin === t.origin,
      async (route) => {
        const request = route.request();
        const line = `${request.method()} ${new URL(request.url()).pathname}`;
        if (isStaticFile(request, pagePath)) {
          served.push(line);
          await route.continue();
        } else {
          aborted.push(line);
          await route.abort('internetdisconnected');
        }
      },
    );
    const sockets: string[] = [];
    page.on('websocket', (socket) => sockets.push(socket.url()));
    const toChain: string[] = [];
    const chainOrigin = new URL(chain.url).origin;
    page.on('request', (request) => {
      if (new URL(request.url()).origin === chainOrigin) toChain.push(request.url());
    });

    const card = await openVerifyPage(page, sealed.reference);
    // The page says why there is no certificate, and offers the check that needs no service.
    await expect(page.locator('[data-service-unreachable]').innerText()).resolves.toMatch(/could not be reached/);
    expect(await page.getByRole('heading', { name: 'Certificate' }).count()).toBe(0);
    const rpc = await card.getByLabel(RPC_LABEL).inputValue();
    expect(rpc.replace(/\/+$/, '')).toBe(chain.url.replace(/\/+$/, ''));
    // All the page asked of the service besides its files was the record's lookup, which failed.
    expect(served).toContain(`GET ${pagePath}`);
    expect(aborted.length).toBeGreaterThan(0);
    expect(aborted.filter((line) => line !== 'POST /graphql')).toEqual([]);
    const abortedAtLoad = aborted.length;

    await dropOnCard(page, card, `${sealed.reference}.pdf`, pdf);
    const result = await localResult(page);
    expect(result).toMatchObject({
      verdict: 'verified',
      checks: { signature: { ok: 'true' }, metadata: { ok: 'true' }, anchor: { ok: 'true' }, record: { ok: 'true' } },
    });
    expect(result.checks.record!.text).toContain(sealed.reference);
    // Checking asked the service nothing: only the verifier's own bundles came from it, and the anchor from the chain node.
    expect(aborted.length).toBe(abortedAtLoad);
    expect(served.filter((line) => line !== `GET ${pagePath}` && !/^GET \/(?:assets\/|favicon\.svg$)/.test(line))).toEqual([]);
    expect(sockets).toEqual([]);
    expect(toChain.length).toBeGreaterThan(0);

    expect(await seriousViolations(page)).toEqual([]);
    expect(cspViolations).toEqual([]);
    await screenshots(page, 'verify-in-browser-offline');
    await page.close();
  }, 90_000);

  it('refuses every kind of revision after the seal that changes the document (an action, a page, an embedded file, /AA, /Info, an annotation, a form field), even closed by a genuine document timestamp, naming what changed', async () => {
    const page = await stranger.newPage();
    const cspViolations = collectCspViolations(page);

    // An action that runs when the file opens, added to the catalog after the seal.
    const withAction = await changedAfterSeal(pdf, tsa, (doc) => {
      doc.getCatalog().set('OpenAction', PdfDict.of({ S: PdfName.of('JavaScript'), JS: PdfString.fromString('app.alert("This agreement was cancelled")') }));
    });
    let card = await openVerifyPage(page, sealed.reference);
    await dropOnCard(page, card, 'with-action.pdf', withAction);
    const action = await localResult(page);
    expect(action).toMatchObject({ verdict: 'failed', checks: { signature: { ok: 'false' } } });
    expect(`${action.reason ?? ''} ${action.checks.signature!.text}`).toContain('gains /OpenAction');
    expect(await seriousViolations(page)).toEqual([]);
    await screenshots(page, 'verify-in-browser-open-action');

    // A page added after the seal.
    const withPage = await changedAfterSeal(pdf, tsa, (doc) => {
      doc.addPage();
    });
    card = await openVerifyPage(page, sealed.reference);
    await chooseInCard(card, 'with-page.pdf', withPage);
    const added = await localResult(page);
    expect(added).toMatchObject({ verdict: 'failed', checks: { signature: { ok: 'false' } } });
    expect(`${added.reason ?? ''} ${added.checks.signature!.text}`).toContain('/Root /Pages');

    // The other changes an attacker would make, each closed by a genuine document timestamp: each named.
    const attacks: [string, (doc: PDF) => void, string][] = [
      ['embedded-file', (doc) => {
        doc.attachments.remove('sealed-metadata.json');
        doc.attachments.add('sealed-metadata.json', new TextEncoder().encode('{"title":"Forged"}'), { mimeType: 'application/json' });
      }, '/Root /Names /EmbeddedFiles'],
      ['additional-actions', (doc) => doc.getCatalog().set('AA', PdfDict.of({ WC: PdfDict.of({ S: PdfName.of('JavaScript'), JS: PdfString.fromString('app.alert(1)') }) })), 'gains /AA'],
      ['info', (doc) => doc.setTitle('Cancelled agreement'), '/Info /Title'],
      ['annotation', (doc) => void doc.getPage(0)!.addTextAnnotation({ rect: { x: 50, y: 700, width: 20, height: 20 }, contents: 'Void', open: true }), 'page 1 /Annots'],
      ['form-field', (doc) => doc.getForm()!.getFields()[0]!.getDict().set('T', PdfString.fromString('Approved by the board')), '/Root /AcroForm /Fields[0] /T'],
    ];
    for (const [name, change, named] of attacks) {
      card = await openVerifyPage(page, sealed.reference);
      await chooseInCard(card, `${name}.pdf`, await changedAfterSeal(pdf, tsa, change));
      const result = await localResult(page);
      expect({ name, verdict: result.verdict, signature: result.checks.signature!.ok }).toEqual({ name, verdict: 'failed', signature: 'false' });
      expect(`${result.reason ?? ''} ${result.checks.signature!.text}`).toContain(named);
    }
    expect(tsa.granted).toBeGreaterThanOrEqual(7);
    expect(cspViolations).toEqual([]);
    await page.close();
  }, 90_000);

  it('names the reason when the PDF was changed', async () => {
    const page = await stranger.newPage();
    const cspViolations = collectCspViolations(page);

    let card = await openVerifyPage(page, sealed.reference);
    await dropOnCard(page, card, 'changed.pdf', tampered(pdf));
    const changed = await localResult(page);
    expect(changed).toMatchObject({ verdict: 'failed', checks: { signature: { ok: 'false' } } });
    expect(changed.reason).toBeTruthy();
    expect(await seriousViolations(page)).toEqual([]);
    await screenshots(page, 'verify-in-browser-changed');

    // Another record's genuine PDF, on this record's page: sealed and anchored, but not this record.
    card = await openVerifyPage(page, sealed.reference);
    await chooseInCard(card, `${other.reference}.pdf`, otherPdf);
    const elsewhere = await localResult(page);
    expect(elsewhere).toMatchObject({ verdict: 'failed', checks: { record: { ok: 'false' } } });
    expect(elsewhere.reason).toBeTruthy();
    expect(cspViolations).toEqual([]);
    await page.close();
  }, 90_000);

  it('says when the chain node cannot be reached', async () => {
    const page = await stranger.newPage();
    const cspViolations = collectCspViolations(page);
    const card = await openVerifyPage(page, sealed.reference);
    await card.getByLabel(RPC_LABEL).fill('http://127.0.0.1:9/');
    await chooseInCard(card, `${sealed.reference}.pdf`, pdf);
    const result = await localResult(page);
    expect(result).toMatchObject({ verdict: 'failed', checks: { signature: { ok: 'true' }, anchor: { ok: 'false' } } });
    const anchorText = result.checks.anchor!.text;
    // The page's CSP may refuse a node it does not name: then the page says so; otherwise the node did not answer.
    if (cspViolations.length > 0) expect(anchorText).toMatch(/content security policy|CSP|not allowed|blocked|policy|may connect only to/i);
    else expect(anchorText).toMatch(/reach|connect|answer|respond|network|refused|unavailable|fail/i);
    await screenshots(page, 'verify-in-browser-no-node');
    await page.close();
  }, 90_000);
});
