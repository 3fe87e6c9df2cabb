import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { simpleParser } from 'mailparser';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { dropFile, launchChromium, newContext, seriousViolations } from '../support/browser.js';
import { freePort } from '../support/chain.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const ALICE = 'alice@first-steps.example';
const BOB = 'bob@first-steps.example';

/**
 * The README's first steps as a newcomer takes them, on the command the README gives: `npm start` in a copy
 * of this checkout with nothing set but the port (no DATABASE_URL, CHAIN_RPC_URL or SMTP_URL: it starts its
 * own PostgreSQL and chain under the copy's .local/, and mail goes to .local/outbox/). Then in Chromium: sign
 * in with the code from the newest .eml there, create an agreement, sign it with an email code, submit it,
 * sign as the other party in another browser profile; once sealed, the signed PDF downloads and the public
 * verification page finds the reference and verifies the downloaded file.
 */
describe('README first steps: npm start, then the web UI at http://localhost:<port>', () => {
  let copy: string;
  let started: ChildProcess;
  let output = '';
  let origin: string;
  let browser: Browser;
  let alice: BrowserContext;
  let bob: BrowserContext;

  beforeAll(async () => {
    copy = fs.mkdtempSync(path.join(os.tmpdir(), 'rss-first-steps-'));
    // The tracked files as they are in this working tree, their times kept (so the dependency stamp stays
    // newer than package.json and `npm start` installs nothing), and this checkout's dependencies.
    const files = execFileSync('git', ['ls-files', '-z'], { cwd: ROOT, encoding: 'utf8' }).split('\0').filter((file) => file && fs.existsSync(path.join(ROOT, file)));
    for (const file of files) {
      fs.mkdirSync(path.dirname(path.join(copy, file)), { recursive: true });
      fs.copyFileSync(path.join(ROOT, file), path.join(copy, file));
      const { atime, mtime } = fs.statSync(path.join(ROOT, file));
      fs.utimesSync(path.join(copy, file), atime, mtime);
    }
    fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(copy, 'node_modules'));

    const port = await freePort();
    origin = `http://localhost:${port}`;
    // A newcomer's environment: no test settings, no database or chain of the test run's.
    const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME, LANG: process.env.LANG ?? 'C.UTF-8', TMPDIR: process.env.TMPDIR, PORT: String(port), LOCAL_PG_STOP_AFTER: '1', LOCAL_CHAIN_STOP_AFTER: '1' };
    started = spawn('npm', ['start'], { cwd: copy, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    started.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    started.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<never>((_, reject) => started.once('exit', (code) => reject(new Error(`npm start exited (${code}):\n${output.slice(-4000)}`))));
    const ready = (async () => {
      for (;;) {
        const answer = await fetch(`http://127.0.0.1:${port}/health/ready`).catch(() => null);
        if (answer?.status === 200) return;
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
    })();
    await Promise.race([ready, exited]);
    browser = await launchChromium();
    [alice, bob] = await Promise.all([newContext(browser, origin), newContext(browser, origin)]);
  }, 600_000);

  afterAll(async () => {
    await browser?.close();
    if (started?.pid) {
      // The whole group (npm, with-db, the service) gets the stop; with-db then stops the PostgreSQL and
      // the chain it started (LOCAL_*_STOP_AFTER) and exits last: the copy goes once nobody is left in it.
      const alive = () => {
        try {
          process.kill(-started.pid!, 0);
          return true;
        } catch {
          return false;
        }
      };
      if (alive()) process.kill(-started.pid, 'SIGTERM');
      for (const deadline = Date.now() + 45_000; alive() && Date.now() < deadline; ) await new Promise((resolve) => setTimeout(resolve, 200));
      started.stdout?.destroy();
      started.stderr?.destroy();
    }
    if (copy) fs.rmSync(copy, { recursive: true, force: true });
  }, 90_000);

  /** The six-digit code in the newest .eml to `address` in the copy's local outbox, newer than `after`. */
  const codeFromOutbox = async (address: string, after: Set<string>): Promise<string> => {
    const outbox = path.join(copy, '.local/outbox');
    for (const deadline = Date.now() + 30_000; Date.now() < deadline; await new Promise((resolve) => setTimeout(resolve, 200))) {
      const files = fs.existsSync(outbox) ? fs.readdirSync(outbox).filter((name) => name.endsWith('.eml') && !after.has(name)).sort().reverse() : [];
      for (const name of files) {
        const mail = await simpleParser(fs.readFileSync(path.join(outbox, name)));
        const to = Array.isArray(mail.to) ? mail.to : mail.to ? [mail.to] : [];
        const code = /code is (\d{6})/.exec(mail.text ?? '')?.[1];
        if (code && to.some((entry) => entry.value.some((a) => a.address === address))) return code;
      }
    }
    throw new Error(`no code to ${address} in ${outbox}`);
  };
  const seen = () => new Set(fs.existsSync(path.join(copy, '.local/outbox')) ? fs.readdirSync(path.join(copy, '.local/outbox')) : []);

  const signIn = async (page: Page, email: string) => {
    const before = seen();
    await page.goto('/sign-in');
    await page.getByLabel('Email address').fill(email);
    await page.getByRole('button', { name: 'Email me a code' }).click();
    await page.getByLabel('Six-digit code').fill(await codeFromOutbox(email, before));
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Your records' }).waitFor();
  };

  const signWithEmailCode = async (page: Page, email: string) => {
    await page.getByRole('link', { name: 'Sign', exact: true }).click();
    const before = seen();
    await page.getByRole('button', { name: 'Start Email code' }).click();
    await page.getByLabel('Signature code from the mail').fill(await codeFromOutbox(email, before));
    await page.getByRole('button', { name: 'Confirm code' }).click();
    await page.getByText('1 of 1 method done.').waitFor();
    await page.getByRole('button', { name: 'Sign version 1' }).click();
    await page.getByRole('heading', { name: 'Signed' }).waitFor();
  };

  it('signs in with the outbox code, creates, signs and submits an agreement; the other party signs; the sealed PDF verifies publicly', async () => {
    const page = await alice.newPage();
    await signIn(page, ALICE);
    await page.getByRole('link', { name: 'New record' }).first().click();
    await page.getByLabel('Title (optional)').fill('First steps');
    await page.getByLabel('Terms').fill('We agree to try this service together and to tell each other what we found.');
    await page.getByLabel('Party 1 name').fill('Bob');
    await page.getByLabel('Party 1 email').fill(BOB);
    await page.getByRole('button', { name: 'Create agreement draft' }).click();
    await page.getByRole('heading', { name: 'First steps' }).waitFor();
    const reference = decodeURIComponent(new URL(page.url()).pathname.split('/')[2]!);
    expect(reference).toMatch(/^AGR-/);

    await signWithEmailCode(page, ALICE);
    await page.getByRole('link', { name: `← ${reference}` }).click();
    await page.getByRole('button', { name: 'Submit for signatures' }).click();
    await page.getByRole('dialog', { name: 'Submit this record?' }).getByRole('button', { name: 'Submit and invite' }).click();
    await page.getByText('Awaiting signatures').first().waitFor();

    const other = await bob.newPage();
    await signIn(other, BOB);
    await other.locator(`li[data-record="${reference}"]`).getByRole('link').click();
    await other.getByRole('heading', { name: 'First steps' }).waitFor();
    await signWithEmailCode(other, BOB);

    await page.goto(`/records/${encodeURIComponent(reference)}`);
    const download = page.getByRole('button', { name: 'Download the signed PDF' });
    await download.waitFor({ timeout: 120_000 });
    const [file] = await Promise.all([page.waitForEvent('download'), download.click()]);
    const pdf = fs.readFileSync(await file.path());
    expect(pdf.subarray(0, 5).toString()).toBe('%PDF-');

    const stranger = await (await newContext(browser, origin)).newPage();
    await stranger.goto(`/verify/${reference}`);
    await stranger.getByRole('heading', { name: 'Certificate' }).waitFor();
    await dropFile(stranger, `${reference}.pdf`, pdf, 'application/pdf');
    await stranger.locator('[data-verdict="verified"]').waitFor({ timeout: 30_000 });
    expect(await seriousViolations(stranger)).toEqual([]);
  }, 600_000);
});
