import { startTestApp, type TestApp } from '../support/harness.js';

describe('First sign-in of a new address', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ OTP_REQUESTS_PER_WINDOW: '20' });
  });
  afterAll(async () => {
    await t.stop();
  });

  it('signs in three parallel verifies for one new address into one identity, without a 500', async () => {
    for (let round = 0; round < 3; round += 1) {
      const email = `race${round}@example.com`;
      const codes: { eventId: string; code: string }[] = [];
      for (let i = 0; i < 3; i += 1) {
        const before = t.smtp.messages.length;
        const requested = await t.request('POST', '/api/v1/verification/request-otp', { body: { email, purpose: 'authenticate' } });
        codes.push({ eventId: requested.body.verification_event_id as string, code: await t.smtp.codeFor(email, before) });
      }
      const verified = await Promise.all(
        codes.map(({ eventId, code }) => t.request('POST', '/api/v1/verification/verify-otp', { body: { verification_event_id: eventId, code } })),
      );
      expect(verified.map((response) => response.status)).toEqual([200, 200, 200]);
      expect(new Set(verified.map((response) => response.body.identity_id)).size).toBe(1);
      const points = await t.request('GET', '/api/v1/identity/contact-points', { token: verified[0]!.body.access_token });
      expect(points.body.contact_points).toHaveLength(1);
    }
  });
});
