import { createHash, createHmac } from 'node:crypto';
import 'reflect-metadata';
import type { MikroORM } from '@mikro-orm/postgresql';
import { migrate, openDatabase } from '../../src/infrastructure/database.js';
import { OtpService } from '../../src/domain/identity/otp-service.js';
import type { MailMessage } from '../../src/domain/mail/mailer.js';
import { ClientLimits } from '../../src/domain/shared/client-limits.js';
import { DomainError } from '../../src/domain/shared/errors.js';
import { RateLimiter } from '../../src/domain/shared/rate-limiter.js';
import { createTestDatabase } from '../support/database.js';
import { ManualClock } from '../support/clock.js';

/**
 * A code is consumed in the caller's transaction by the statement that checks it is unused; what is
 * checked after (purpose, expiry, the code) rolls the consumption back with the transaction.
 */
const SECRET = Buffer.from('integration-server-secret-0123456789abcdef');

describe('One-time codes: consumed in the change, checked after, rolled back with it', () => {
  let db: { url: string; drop: () => Promise<void> };
  let orm: MikroORM;
  let otp: OtpService;
  const mail: MailMessage[] = [];
  const clock = new ManualClock();

  beforeAll(async () => {
    db = await createTestDatabase();
    orm = await openDatabase({ url: db.url, poolMax: 4 });
    await migrate(orm, db.url);
    const rateLimiter = new RateLimiter(clock);
    const settings = { ttlSeconds: 600, maxAttempts: 5, requestsPerWindow: 100, requestWindowSeconds: 3600, failuresPerDay: 100 };
    otp = new OtpService({
      orm,
      mailer: { send: async (message) => void mail.push(message) },
      rateLimiter,
      clock,
      settings,
      clientLimits: new ClientLimits({ orm, rateLimiter, settings: { codeCallsPerHour: 1000, verificationsPerMinute: 1000, registrationsPerHour: 1000 } }),
      serverSecret: SECRET,
    });
  });
  afterAll(async () => {
    await orm.close();
    await db.drop();
  });

  const issue = async (email: string) => {
    const { verificationEventId } = await otp.request({ email, purpose: 'signature' });
    const code = /code is (\d{6})/.exec(mail.at(-1)!.text)![1]!;
    return { verificationEventId, code };
  };
  const consumed = async (id: string) => (await orm.em.fork().execute<{ consumed: boolean }[]>('select consumed_at is not null as consumed from verification_events where id = ?', [id]))[0]!.consumed;
  const consumeIn = (id: string, code: string, purpose: 'signature' | 'authenticate', after?: () => void) =>
    orm.em.fork().transactional(async (em) => {
      const event = await otp.consume(em, id, code, purpose);
      after?.();
      return event;
    });
  const codeOf = async (work: Promise<unknown>) => {
    const error = await work.then(() => null, (caught: unknown) => caught);
    expect(error).toBeInstanceOf(DomainError);
    return (error as DomainError).details.issues?.[0]?.type ?? (error as DomainError).code;
  };

  it('consumes a good code once; a second consumption is refused as used', async () => {
    const { verificationEventId, code } = await issue('once@example.org');
    const event = await consumeIn(verificationEventId, code, 'signature');
    expect(event).toMatchObject({ id: verificationEventId, destination: 'once@example.org' });
    expect(await consumed(verificationEventId)).toBe(true);
    expect(await codeOf(consumeIn(verificationEventId, code, 'signature'))).toBe('otp_used');
  });

  it('a wrong code, another purpose or an expired code leaves the event unconsumed', async () => {
    const { verificationEventId, code } = await issue('kept@example.org');
    const wrong = code === '000000' ? '111111' : '000000';
    expect(await codeOf(consumeIn(verificationEventId, wrong, 'signature'))).toBe('otp_invalid');
    expect(await consumed(verificationEventId)).toBe(false);
    expect(await codeOf(consumeIn(verificationEventId, code, 'authenticate'))).toBe('otp_purpose_mismatch');
    expect(await consumed(verificationEventId)).toBe(false);
    clock.advance(601_000);
    expect(await codeOf(consumeIn(verificationEventId, code, 'signature'))).toBe('otp_expired');
    expect(await consumed(verificationEventId)).toBe(false);
  });

  it('a change that fails after consuming its code gives the code back', async () => {
    const { verificationEventId, code } = await issue('given-back@example.org');
    await expect(consumeIn(verificationEventId, code, 'signature', () => {
      throw new Error('the rest of the change failed');
    })).rejects.toThrow('the rest of the change failed');
    expect(await consumed(verificationEventId)).toBe(false);
    await consumeIn(verificationEventId, code, 'signature');
    expect(await consumed(verificationEventId)).toBe(true);
  });

  it('an unknown event is refused as unknown', async () => {
    expect(await codeOf(consumeIn('0190d67a-7e97-4ad4-b9aa-91973d07bbb0', '123456', 'signature'))).toBe('otp_invalid');
  });

  it('stores a code so that its row alone does not give it back: every six-digit code tried unkeyed, none matches', async () => {
    const { verificationEventId, code } = await issue('at-rest@example.org');
    const [row] = await orm.em.fork().execute<{ code_hash: string }[]>('select code_hash from verification_events where id = ?', [verificationEventId]);
    // What anyone who reads the table can try: all 10^6 codes, hashed as the row's id and code.
    let recovered: string | null = null;
    for (let n = 0; n < 1_000_000 && recovered === null; n += 1) {
      const guess = String(n).padStart(6, '0');
      if (createHash('sha256').update(`${verificationEventId}:${guess}`).digest('hex') === row!.code_hash) recovered = guess;
    }
    expect(recovered).toBeNull();
    // With the server secret, the mailed code is the one stored.
    expect(createHmac('sha256', SECRET).update(`${verificationEventId}:${code}`).digest('hex')).toBe(row!.code_hash);
  });
});
