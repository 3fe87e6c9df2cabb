import { mkdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { startTestApp, type TestApp } from './harness.js';

const AXE = join(import.meta.dirname, '..', '..', 'node_modules', 'axe-core', 'axe.min.js');
export const SHOTS_DIR = '/tmp/ui-shots';
const DESKTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run', '--disable-sync', '--disable-quic'],
  });
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (!address || typeof address === 'string') throw new Error('no port');
  return address.port;
}

/**
 * The app for a browser: served as http://localhost:PORT, a secure context whose host can be a
 * WebAuthn relying party (an IP address cannot), so passkeys work with Chromium's virtual authenticator.
 */
export async function startBrowserApp(overrides: Record<string, string> = {}, options: Parameters<typeof startTestApp>[1] = {}): Promise<TestApp & { origin: string }> {
  const port = await freePort();
  const origin = `http://localhost:${port}`;
  const t = await startTestApp({ PORT: String(port), PUBLIC_BASE_URL: origin, OTP_REQUESTS_PER_WINDOW: '50', ...overrides }, options);
  return { ...t, origin };
}

export async function newContext(browser: Browser, origin: string, viewport = DESKTOP): Promise<BrowserContext> {
  const context = await browser.newContext({ baseURL: origin, viewport, permissions: [] });
  // Below jest's 30 s, so that a stuck step fails naming its locator.
  context.setDefaultTimeout(10_000);
  return context;
}

/** Signs in through the UI with the code read from the captured mail. */
export async function signInThroughUi(page: Page, t: TestApp, email: string): Promise<void> {
  const before = t.smtp.messages.length;
  await page.goto('/sign-in');
  await page.getByLabel('Email address').fill(email);
  await page.getByRole('button', { name: 'Email me a code' }).click();
  const code = await t.smtp.codeFor(email, before);
  await page.getByLabel('Six-digit code').fill(code);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Your records' }).waitFor();
}

type AxeViolation = { id: string; impact: string | null; help: string; nodes: { target: string[] }[] };

/** Console errors of the page that report a Content-Security-Policy refusal (none expected). */
export function collectCspViolations(page: Page): string[] {
  const found: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error' && /Content Security Policy/i.test(message.text())) found.push(message.text());
  });
  return found;
}

/** axe-core in the page: the serious and critical violations (none expected). */
export async function seriousViolations(page: Page): Promise<string[]> {
  // Evaluated over the DevTools protocol: the page's own CSP (rightly) refuses injected script tags.
  const loaded = await page.evaluate(() => 'axe' in globalThis);
  if (!loaded) await page.evaluate(readFileSync(AXE, 'utf8'));
  const violations = await page.evaluate(async () => {
    const page = globalThis as unknown as { axe: { run: (context: unknown, options: object) => Promise<{ violations: AxeViolation[] }> }; document: unknown };
    const result = await page.axe.run(page.document, { resultTypes: ['violations'] });
    return result.violations;
  });
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.help} at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

/**
 * A full-page screenshot at desktop and phone sizes into /tmp/ui-shots/, for people to look at; `fullPage: false`
 * takes the window only (Chromium may paint a very long page, such as /api/docs, blank when capturing its whole length).
 */
export async function screenshots(page: Page, name: string, dir = SHOTS_DIR, { fullPage = true } = {}): Promise<void> {
  mkdirSync(dir, { recursive: true });
  const original = page.viewportSize() ?? DESKTOP;
  for (const [size, viewport] of [['desktop', DESKTOP], ['phone', PHONE]] as const) {
    await page.setViewportSize(viewport);
    await page.screenshot({ path: join(dir, `${name}-${size}.png`), fullPage });
    // Nothing may make the page scroll sideways (a phone shows the whole width).
    const overflow = await page.evaluate(() => {
      const root = (globalThis as any).document.documentElement;
      return root.scrollWidth - root.clientWidth;
    });
    if (overflow > 0) throw new Error(`${name} scrolls sideways by ${overflow}px at ${size} size`);
  }
  await page.setViewportSize(original);
}

/** Drops a file on the page's drop zone the way a person's drag and drop does (a DataTransfer with a File). */
export async function dropFile(page: Page, name: string, bytes: Buffer, type = 'application/octet-stream'): Promise<void> {
  const dataTransfer = await page.evaluateHandle(
    ({ fileName, data, mime }) => {
      const g = globalThis as any;
      const transfer = new g.DataTransfer();
      transfer.items.add(new g.File([new Uint8Array(data)], fileName, { type: mime }));
      return transfer;
    },
    { fileName: name, data: [...bytes], mime: type },
  );
  await page.dispatchEvent('.drop-zone', 'drop', { dataTransfer });
}

/** The assistant's redirect endpoint, played by the browser context: it records where the browser lands. */
export async function assistantCallback(context: BrowserContext): Promise<() => Promise<URL>> {
  let resolve!: (url: URL) => void;
  let landed = new Promise<URL>((r) => (resolve = r));
  await context.route('https://assistant.example/**', async (route) => {
    resolve(new URL(route.request().url()));
    await route.fulfill({ status: 200, contentType: 'text/html', body: '<!doctype html><title>Assistant</title><h1>Back at the assistant</h1>' });
  });
  return async () => {
    const url = await landed;
    landed = new Promise<URL>((r) => (resolve = r));
    return url;
  };
}
