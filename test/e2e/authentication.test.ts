import { startTestApp, type TestApp } from '../support/harness.js';

describe('Authentication (REST, real SMTP)', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ OTP_MAX_ATTEMPTS: '3', OTP_REQUESTS_PER_WINDOW: '4' });
  });
  afterAll(async () => {
    await t.stop();
  });

  async function requestCode(email: string, purpose = 'authenticate') {
    const before = t.smtp.messages.length;
    const response = await t.request('POST', '/api/v1/verification/request-otp', { body: { email, purpose } });
    expect(response.status).toBe(200);
    const code = await t.smtp.codeFor(email, before);
    return { eventId: response.body.verification_event_id as string, code, response };
  }

  it('mails a six-digit code and exchanges it for a bearer token', async () => {
    const { eventId, code, response } = await requestCode('Alice@Example.com');
    expect(response.body).toEqual({ verification_event_id: eventId, purpose: 'authenticate', expires_at: expect.any(String) });
    expect(JSON.stringify(response.body)).not.toContain(code);
    const mail = await t.smtp.waitFor('alice@example.com');
    expect(mail.subject).toBe('Your sign-in code');

    const verified = await t.request('POST', '/api/v1/verification/verify-otp', { body: { verification_event_id: eventId, code } });
    expect(verified.status).toBe(200);
    expect(verified.body).toEqual({
      verified: true,
      access_token: expect.stringMatching(/^rss_at_/),
      token_type: 'bearer',
      expires_in: 3600,
      identity_id: expect.any(String),
    });

    const points = await t.request('GET', '/api/v1/identity/contact-points', { token: verified.body.access_token });
    expect(points.status).toBe(200);
    expect(points.body.contact_points).toEqual([
      expect.objectContaining({ type: 'email', value: 'alice@example.com', value_hash: expect.stringMatching(/^[0-9a-f]{64}$/) }),
    ]);
  });

  it('refuses a wrong code, then a reused one', async () => {
    const { eventId, code } = await requestCode('reuse@example.com');
    const wrong = code === '000000' ? '111111' : '000000';
    const bad = await t.request('POST', '/api/v1/verification/verify-otp', { body: { verification_event_id: eventId, code: wrong } });
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0]).toMatchObject({ loc: ['body', 'code'], type: 'otp_invalid' });

    const good = await t.request('POST', '/api/v1/verification/verify-otp', { body: { verification_event_id: eventId, code } });
    expect(good.status).toBe(200);
    const reused = await t.request('POST', '/api/v1/verification/verify-otp', { body: { verification_event_id: eventId, code } });
    expect(reused.status).toBe(422);
    expect(reused.body.detail[0]).toMatchObject({ loc: ['body', 'code'], type: 'otp_used' });
  });

  it('locks a code after the attempt limit, even for the right code', async () => {
    const { eventId, code } = await requestCode('limit@example.com');
    const wrong = code === '999999' ? '888888' : '999999';
    for (let i = 0; i < 3; i += 1) {
      const response = await t.request('POST', '/api/v1/verification/verify-otp', { body: { verification_event_id: eventId, code: wrong } });
      expect(response.status).toBe(422);
    }
    const locked = await t.request('POST', '/api/v1/verification/verify-otp', { body: { verification_event_id: eventId, code } });
    // Dead, not "try later": no Retry-After that would only give its remaining life.
    expect(locked.status).toBe(422);
    expect(locked.body.detail[0]).toMatchObject({ loc: ['body', 'code'], type: 'otp_locked' });
    expect(locked.body.detail[0].msg).toMatch(/request a new code/);
    expect(locked.headers.get('retry-after')).toBeNull();
  });

  it('refuses a code issued for another purpose', async () => {
    const { eventId, code } = await requestCode('purpose@example.com', 'signature');
    const response = await t.request('POST', '/api/v1/verification/verify-otp', { body: { verification_event_id: eventId, code } });
    expect(response.status).toBe(422);
    expect(response.body.detail[0].type).toBe('otp_purpose_mismatch');
  });

  it('refuses malformed requests with the offending field', async () => {
    const badEmail = await t.request('POST', '/api/v1/verification/request-otp', { body: { email: 'not-an-email', purpose: 'authenticate' } });
    expect(badEmail.status).toBe(422);
    expect(badEmail.body.detail.map((d: { loc: unknown[] }) => d.loc)).toContainEqual(['body', 'email']);
    const badPurpose = await t.request('POST', '/api/v1/verification/request-otp', { body: { email: 'a@example.com', purpose: 'root' } });
    expect(badPurpose.status).toBe(422);
    expect(badPurpose.body.detail[0].loc).toEqual(['body', 'purpose']);
    const badCode = await t.request('POST', '/api/v1/verification/verify-otp', {
      body: { verification_event_id: '00000000-0000-4000-8000-000000000000', code: '12ab56' },
    });
    expect(badCode.status).toBe(422);
    const malformed = await t.request('POST', '/api/v1/verification/request-otp', { body: '{"email":' });
    expect(malformed.status).toBe(400);
    expect(malformed.body.error_code).toBe('malformed_request');
  });

  it('rate-limits code requests per address with Retry-After', async () => {
    const email = 'flood@example.com';
    for (let i = 0; i < 4; i += 1) {
      const ok = await t.request('POST', '/api/v1/verification/request-otp', { body: { email, purpose: 'authenticate' } });
      expect(ok.status).toBe(200);
    }
    const limited = await t.request('POST', '/api/v1/verification/request-otp', { body: { email, purpose: 'authenticate' } });
    expect(limited.status).toBe(429);
    expect(limited.body).toMatchObject({ error_code: 'rate_limited', retry_after_seconds: expect.any(Number) });
    expect(limited.headers.get('retry-after')).toBe(String(limited.body.retry_after_seconds));
  });

  it('answers 401 without credentials and with an invalid token', async () => {
    const none = await t.request('GET', '/api/v1/identity/agreements');
    expect(none.status).toBe(401);
    expect(none.body.error_code).toBe('unauthenticated');
    const bogus = await t.request('GET', '/api/v1/identity/agreements', { token: 'rss_at_bogus' });
    expect(bogus.status).toBe(401);
    const basic = await t.request('GET', '/api/v1/identity/agreements', { headers: { authorization: 'Basic abc' } });
    expect(basic.status).toBe(401);
  });

  it('never writes a code, token or key to the log', async () => {
    const token = await t.signIn('secretive@example.com');
    const created = await t.request('POST', '/api/v1/api-keys', { token, body: { scopes: ['retrieve'] } });
    expect(created.status).toBe(201);
    await t.request('GET', '/api/v1/identity/agreements', { apiKey: created.body.key });
    await t.graphql('{ authenticationStatus { authenticated } }', {}, { token });
    const codes = t.smtp.messages.map((m) => /code is (\d{6})/.exec(m.text)?.[1]).filter(Boolean) as string[];
    expect(codes.length).toBeGreaterThan(3);
    const logs = t.logs();
    expect(logs).toContain('request completed');
    for (const secret of [...codes, token, created.body.key]) expect(logs).not.toContain(secret);
  });
});
