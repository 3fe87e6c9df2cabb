import pg from 'pg';
import { startTestApp, type TestApp } from '../support/harness.js';
import { waitFor } from '../support/wait.js';

/**
 * Anonymous callers must not be able to stall the service: a transaction never waits for a second
 * pooled connection, so a flood of wrong codes cannot leave every connection "idle in transaction".
 */
describe('Connection pool under a flood of wrong codes', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ OTP_MAX_ATTEMPTS: '5', DATABASE_POOL_MAX: '5' });
  });
  afterAll(async () => {
    await t.stop();
  });

  /** Connections idle in a transaction; background workers are between two statements for an instant, so none must stay so. */
  const noneStuck = () => waitFor(async () => (await idleInTransaction()) === 0, 5000);

  async function idleInTransaction(): Promise<number> {
    const client = new pg.Client({ connectionString: t.databaseUrl });
    await client.connect();
    try {
      const rows = await client.query<{ n: string }>(
        `select count(*) as n from pg_stat_activity where datname = current_database() and state like 'idle in transaction%'`,
      );
      return Number(rows.rows[0]?.n ?? 0);
    } finally {
      await client.end();
    }
  }

  it('answers 200 parallel wrong verify-otp calls, stays ready, and the next correct code works', async () => {
    const email = 'flood@example.com';
    const before = t.smtp.messages.length;
    const requested = await t.request('POST', '/api/v1/verification/request-otp', { body: { email, purpose: 'authenticate' } });
    const eventId = requested.body.verification_event_id as string;
    const code = await t.smtp.codeFor(email, before);
    const wrong = code === '000000' ? '111111' : '000000';

    const answers = await Promise.all(
      Array.from({ length: 200 }, () =>
        fetch(`${t.url}/api/v1/verification/verify-otp`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ verification_event_id: eventId, code: wrong }),
        }).then((response) => response.status),
      ),
    );
    expect(answers.filter((status) => status === 422)).toHaveLength(200);

    const ready = await t.request('GET', '/health/ready');
    expect(ready.status).toBe(200);
    await noneStuck();

    // The locked event is dead; a fresh code signs in.
    const token = await t.signIn(email);
    expect(token).toMatch(/^rss_at_/);
    await noneStuck();
  }, 60_000);
});
