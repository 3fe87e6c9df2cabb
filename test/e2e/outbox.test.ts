import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startTestApp, type TestApp } from '../support/harness.js';
import { waitFor } from '../support/wait.js';

describe('Development mail outbox', () => {
  let t: TestApp;
  let outbox: string;

  beforeAll(async () => {
    outbox = await mkdtemp(path.join(os.tmpdir(), 'rss-outbox-'));
    t = await startTestApp({ SMTP_URL: '', MAIL_OUTBOX_DIR: outbox });
  });
  afterAll(async () => {
    await t.stop();
    await rm(outbox, { recursive: true, force: true });
  });

  it('writes mail to the outbox folder when SMTP_URL is unset, never to the log', async () => {
    const requested = await t.request('POST', '/api/v1/verification/request-otp', { body: { email: 'dev@example.com', purpose: 'authenticate' } });
    expect(requested.status).toBe(200);
    // The mail worker may have claimed the message already: deliver what is due, then wait for the file.
    await t.app.services.mail.deliverDue();
    const files = await waitFor(async () => {
      const names = (await readdir(outbox)).filter((name) => name.endsWith('.eml'));
      return names.length > 0 && names;
    }, 30_000);
    expect(files).toHaveLength(1);
    const message = await readFile(path.join(outbox, files[0]!), 'utf8');
    const code = /code is (\d{6})/.exec(message)?.[1];
    expect(code).toMatch(/^\d{6}$/);
    expect(message).toContain('To: dev@example.com');
    expect(t.smtp.messages).toHaveLength(0);
    expect(t.logs()).not.toContain(code);
    const verified = await t.request('POST', '/api/v1/verification/verify-otp', {
      body: { verification_event_id: requested.body.verification_event_id, code },
    });
    expect(verified.status).toBe(200);
  });
});
