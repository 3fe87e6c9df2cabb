import pg from 'pg';
import { startTestApp, type TestApp } from '../support/harness.js';

/**
 * A flood of code requests from many addresses (an outside audit's 5,483 delayed a sign-in code by
 * 17 minutes, past its lifetime) does not keep a person's new code waiting: codes go before bulk
 * mail, the newest first, several at a time, and never after they expire.
 */
describe('Sign-in codes under a flood of code requests', () => {
  let t: TestApp;
  let db: pg.Client;

  beforeAll(async () => {
    // A slow mail server: 50 ms a message.
    t = await startTestApp({ OTP_REQUESTS_PER_WINDOW: '1000' }, { smtpDelayMs: 50 });
    db = new pg.Client({ connectionString: t.databaseUrl });
    await db.connect();
  });
  afterAll(async () => {
    await db.end();
    await t.stop();
  });

  it('delivers a new sign-in code ahead of hundreds of queued ones, and marks it to be dropped once expired', async () => {
    const FLOOD = 400;
    const request = (email: string, address: string) =>
      fetch(`${t.url}/api/v1/verification/request-otp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-forwarded-for': address },
        body: JSON.stringify({ email, purpose: 'authenticate' }),
      }).then((response) => response.status);
    const statuses: number[] = [];
    for (let batch = 0; batch < FLOOD / 40; batch += 1) {
      statuses.push(...(await Promise.all(Array.from({ length: 40 }, (_, i) => request(`flood${batch * 40 + i}@example.org`, `198.18.${batch}.${i + 1}`)))));
    }
    expect(statuses.every((status) => status === 200)).toBe(true);

    const asked = await request('person@example.com', '203.0.113.50');
    expect(asked).toBe(200);
    const mail = await t.smtp.waitFor('person@example.com', (m) => /code is \d{6}/.test(m.text), 60_000);
    // It went out while most of the flood was still waiting (first come, first served sent it last).
    const floodSentBefore = t.smtp.messages.slice(0, t.smtp.messages.indexOf(mail)).filter((m) => m.to.includes('flood')).length;
    expect(floodSentBefore).toBeLessThan(FLOOD / 2);

    // The code's message says when it stops being worth sending, and which newer message replaces it.
    const { rows } = await db.query(
      `select m.urgency, m.not_after, m.replaces_key, m.client_address, e.expires_at
         from mail_outbox m join verification_events e on e.destination = m.recipient
        where m.recipient = 'person@example.com'`,
    );
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ urgency: 0, replaces_key: 'otp:authenticate:person@example.com', client_address: '203.0.113.50' });
    expect(new Date(rows[0].not_after).getTime()).toBe(new Date(rows[0].expires_at).getTime());
  }, 120_000);
});
