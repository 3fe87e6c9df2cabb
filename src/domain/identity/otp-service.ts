import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import type { Config } from '../../config.js';
import type { Clock } from '../shared/clock.js';
import { constantTimeEqual, randomDigits, sha256Hex } from '../shared/crypto.js';
import { DomainError, IssueCollector } from '../shared/errors.js';
import type { RateLimiter } from '../shared/rate-limiter.js';
import type { Mailer } from '../mail/mailer.js';
import { OTP_PURPOSES, VerificationEvent, type OtpPurpose } from './entities.js';
import { isValidEmail, normalizeEmail } from './contact-points.js';
import { isUuid } from '../shared/ids.js';

const SUBJECTS: Record<OtpPurpose, string> = {
  authenticate: 'Your sign-in code',
  signature: 'Your signature code',
  agreement_confirmation: 'Your confirmation code',
  contact_point_link: 'Your code to link this address',
};

const EXPLANATIONS: Record<OtpPurpose, string> = {
  authenticate: 'Use it to sign in. It proves access only and cannot sign anything.',
  signature: 'Use it only to sign the record you are signing now.',
  agreement_confirmation: 'Use it only to confirm the record you were asked to confirm.',
  contact_point_link: 'Use it only to link this address to your identity.',
};

export type IssuedOtp = { verificationEventId: string; purpose: OtpPurpose; expiresAt: Date };

/**
 * One-time codes: six digits, mailed to the address only, stored as a salted hash, single use,
 * bound to one purpose, expiring, with a limited number of attempts.
 */
export class OtpService {
  constructor(
    private readonly orm: MikroORM,
    private readonly mailer: Mailer,
    private readonly rateLimiter: RateLimiter,
    private readonly clock: Clock,
    private readonly settings: Config['otp'],
  ) {}

  async request(input: { email: string; purpose: string }): Promise<IssuedOtp> {
    const email = normalizeEmail(input.email ?? '');
    const issues = new IssueCollector();
    if (!isValidEmail(email)) issues.add(['email'], 'Enter a valid email address', 'invalid_email');
    if (!(OTP_PURPOSES as readonly string[]).includes(input.purpose)) {
      issues.add(['purpose'], `Purpose must be one of ${OTP_PURPOSES.join(', ')}`, 'invalid_enum');
    }
    issues.throwIfAny();
    const purpose = input.purpose as OtpPurpose;
    const em = this.orm.em.fork();
    await this.rateLimiter.hit(
      em,
      `otp:${purpose}:${email}`,
      { limit: this.settings.requestsPerWindow, windowSeconds: this.settings.requestWindowSeconds },
      'code requests for this address',
    );
    const now = this.clock.now();
    const code = randomDigits(6);
    const event = em.create(VerificationEvent, {
      purpose,
      channel: 'email',
      destination: email,
      codeHash: '',
      maxAttempts: this.settings.maxAttempts,
      expiresAt: new Date(now.getTime() + this.settings.ttlSeconds * 1000),
      createdAt: now,
    });
    event.codeHash = hashCode(event.id, code);
    await em.flush();
    const minutes = Math.round(this.settings.ttlSeconds / 60);
    await this.mailer.send({
      to: email,
      subject: SUBJECTS[purpose],
      text: `Your code is ${code}\n\n${EXPLANATIONS[purpose]}\nIt expires in ${minutes} minutes and works once.\nIf you did not ask for it, ignore this message.\n`,
    });
    return { verificationEventId: event.id, purpose, expiresAt: event.expiresAt };
  }

  /**
   * Spends one attempt on the event and consumes it when the code matches. Every failure is a
   * validation error on `code` (or 429 once the attempts are used up); nothing says whether the
   * event exists.
   */
  async consume(em: EntityManager, eventId: string, code: string, purpose: OtpPurpose): Promise<VerificationEvent> {
    const invalid = () => DomainError.invalid(['code'], 'The code is wrong or has expired', 'otp_invalid');
    if (!isUuid(eventId)) throw DomainError.invalid(['verificationEventId'], 'Unknown verification event', 'otp_invalid');
    if (!/^[0-9]{6}$/.test(code ?? '')) throw DomainError.invalid(['code'], 'The code is six digits', 'pattern');
    const now = this.clock.now();
    const event = await em.findOne(VerificationEvent, { id: eventId });
    if (!event) throw DomainError.invalid(['verificationEventId'], 'Unknown verification event', 'otp_invalid');
    if (event.purpose !== purpose) {
      throw DomainError.invalid(['code'], `This code was issued for '${event.purpose}' and cannot be used here`, 'otp_purpose_mismatch');
    }
    if (event.consumedAt) throw DomainError.invalid(['code'], 'This code has already been used', 'otp_used');
    if (event.expiresAt.getTime() <= now.getTime()) throw DomainError.invalid(['code'], 'This code has expired', 'otp_expired');
    // Count the attempt atomically before comparing, so parallel guesses cannot exceed the limit. It runs
    // outside the caller's transaction (a fork is bound to the pool): a failed attempt must stay counted.
    const spent = await em.fork().execute<{ attempts: number }[]>(
      `update verification_events set attempts = attempts + 1
       where id = ? and consumed_at is null and attempts < max_attempts returning attempts`,
      [event.id],
    );
    if (spent.length === 0) {
      const retryAfterSeconds = Math.max(1, Math.ceil((event.expiresAt.getTime() - now.getTime()) / 1000));
      throw new DomainError('rate_limited', 'Too many wrong codes; request a new code', { retryAfterSeconds });
    }
    if (!constantTimeEqual(event.codeHash, hashCode(event.id, code))) throw invalid();
    const consumed = await em.execute<{ id: string }[]>(
      `update verification_events set consumed_at = ? where id = ? and consumed_at is null returning id`,
      [now, event.id],
    );
    if (consumed.length === 0) throw DomainError.invalid(['code'], 'This code has already been used', 'otp_used');
    event.consumedAt = now;
    return event;
  }
}


function hashCode(eventId: string, code: string): string {
  return sha256Hex(`${eventId}:${code}`);
}
