import pg from 'pg';
import { ManualClock } from '../support/clock.js';
import { startTestApp, type TestApp } from '../support/harness.js';

/** Anonymous routes are limited per client address, and wrong codes per address; known and unknown addresses look alike. */
describe('Anonymous limits', () => {
  let t: TestApp;
  let known: string;

  beforeAll(async () => {
    t = await startTestApp({
      OTP_REQUESTS_PER_WINDOW: '100',
      OTP_MAX_ATTEMPTS: '2',
      OTP_FAILURES_PER_DAY: '3',
      CLIENT_CODE_CALLS_PER_HOUR: '12',
      CLIENT_VERIFICATIONS_PER_MINUTE: '3',
    });
    known = 'known@example.com';
    await t.signIn(known);
  });
  afterAll(async () => {
    await t.stop();
  });

  const requestOtp = (email: string) => t.request('POST', '/api/v1/verification/request-otp', { body: { email, purpose: 'authenticate' } });
  const shape = (response: { status: number; body: Record<string, unknown> }) => ({ status: response.status, keys: Object.keys(response.body).sort() });

  it('answers a known and an unknown address alike', async () => {
    expect(shape(await requestOtp(known))).toEqual(shape(await requestOtp('nobody@example.com')));
  });

  it('limits wrong codes per address across codes, even for the right code afterwards', async () => {
    const email = 'budget@example.com';
    const wrongOnce = async (eventId: string, code: string) =>
      t.request('POST', '/api/v1/verification/verify-otp', { body: { verification_event_id: eventId, code: code === '000000' ? '111111' : '000000' } });
    const codes = [];
    for (let i = 0; i < 2; i += 1) {
      const before = t.smtp.messages.length;
      const requested = await requestOtp(email);
      codes.push({ eventId: requested.body.verification_event_id as string, code: await t.smtp.codeFor(email, before) });
    }
    expect((await wrongOnce(codes[0]!.eventId, codes[0]!.code)).status).toBe(422);
    expect((await wrongOnce(codes[0]!.eventId, codes[0]!.code)).status).toBe(422);
    expect((await wrongOnce(codes[1]!.eventId, codes[1]!.code)).status).toBe(422);
    const right = await t.request('POST', '/api/v1/verification/verify-otp', { body: { verification_event_id: codes[1]!.eventId, code: codes[1]!.code } });
    expect(right.status).toBe(429);
    expect(right.body.error_code).toBe('rate_limited');
    expect(Number(right.headers.get('retry-after'))).toBeGreaterThan(0);
    // Refused before its attempt: the code keeps the one it has left for when the budget has room again.
    const db = new pg.Client({ connectionString: t.databaseUrl });
    await db.connect();
    try {
      const { rows } = await db.query<{ attempts: number }>('select attempts from verification_events where id = $1', [codes[1]!.eventId]);
      expect(rows[0]?.attempts).toBe(1);
    } finally {
      await db.end();
    }
  });

  it('limits public verifications per client address', async () => {
    const answers = [];
    for (let i = 0; i < 4; i += 1) answers.push((await t.request('GET', '/api/v1/public/verify/AGR-0000-0000')).status);
    expect(answers.slice(0, 3).every((status) => status !== 429)).toBe(true);
    expect(answers[3]).toBe(429);
  });

  it('limits code requests per client address, for known and unknown addresses alike', async () => {
    let last = await requestOtp('someone@example.com');
    for (let i = 0; i < 20 && last.status === 200; i += 1) last = await requestOtp(`someone${i}@example.com`);
    expect(last.status).toBe(429);
    const forKnown = await requestOtp(known);
    const forUnknown = await requestOtp('stranger@example.com');
    expect(shape(forKnown)).toEqual(shape(forUnknown));
    expect(forKnown.status).toBe(429);
  });
});

/** The wrong-code budget's Retry-After, like every limit's, never exceeds its window (a day). */
describe('Anonymous limits: the wrong-code budget filled early in its day', () => {
  const clock = new ManualClock();
  let t: TestApp;
  const DAY_MS = 86_400_000;

  beforeAll(async () => {
    // Two hours into a UTC day: the sliding estimate alone would ask for about 30 hours (the rest of this
    // day, then a third of the next until this day's weight fades below the limit).
    const now = Date.now();
    clock.advance(Math.ceil(now / DAY_MS) * DAY_MS + 2 * 3_600_000 - now);
    t = await startTestApp({ OTP_REQUESTS_PER_WINDOW: '100', OTP_MAX_ATTEMPTS: '2', OTP_FAILURES_PER_DAY: '3' }, { clock });
  });
  afterAll(async () => {
    await t.stop();
  });

  it('asks to wait at most a day after the last wrong code, and one second less is still refused', async () => {
    const email = 'early@example.com';
    const codes: { eventId: string; code: string }[] = [];
    for (let i = 0; i < 2; i += 1) {
      const before = t.smtp.messages.length;
      const requested = await t.request('POST', '/api/v1/verification/request-otp', { body: { email, purpose: 'authenticate' } });
      codes.push({ eventId: requested.body.verification_event_id as string, code: await t.smtp.codeFor(email, before) });
    }
    const verify = (at: { eventId: string; code: string }, code: string) =>
      t.request('POST', '/api/v1/verification/verify-otp', { body: { verification_event_id: at.eventId, code } });
    const wrong = (code: string) => (code === '000000' ? '111111' : '000000');
    expect((await verify(codes[0]!, wrong(codes[0]!.code))).status).toBe(422);
    expect((await verify(codes[0]!, wrong(codes[0]!.code))).status).toBe(422);
    expect((await verify(codes[1]!, wrong(codes[1]!.code))).status).toBe(422);

    const refused = await verify(codes[1]!, codes[1]!.code);
    expect(refused.status).toBe(429);
    const wait = Number(refused.headers.get('retry-after'));
    expect(wait).toBeGreaterThan(86_400 - 120);
    expect(wait).toBeLessThanOrEqual(86_400);
    // The wait is exact: a second before it a fresh code is still refused, at its end the code passes.
    clock.advance((wait - 1) * 1000);
    const before = t.smtp.messages.length;
    const again = await t.request('POST', '/api/v1/verification/request-otp', { body: { email, purpose: 'authenticate' } });
    const fresh = { eventId: again.body.verification_event_id as string, code: await t.smtp.codeFor(email, before) };
    expect((await verify(fresh, fresh.code)).status).toBe(429);
    clock.advance(1000);
    expect((await verify(fresh, fresh.code)).status).toBe(200);
  });
});
