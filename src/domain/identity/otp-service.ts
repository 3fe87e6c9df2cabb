import { createHmac } from 'node:crypto';
import type { EntityDictionary, EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { preparedQuery } from '../shared/sql.js';
import type { Config } from '../../config.js';
import type { Clock } from '../shared/clock.js';
import { constantTimeEqual, randomDigits } from '../shared/crypto.js';
import { DomainError, IssueCollector } from '../shared/errors.js';
import { admittedCount, type RateLimiter } from '../shared/rate-limiter.js';
import type { Mailer } from '../mail/mailer.js';
import { OTP_PURPOSES, VerificationEvent, type OtpPurpose } from './entities.js';
import { CONNECTOR_CONSENT_PURPOSE } from '../vocabulary.js';
import { isValidEmail, normalizeEmail } from './contact-points.js';
import { isUuid } from '../shared/ids.js';
import type { Instruments } from '../shared/instruments.js';
import type { ClientLimits } from '../shared/client-limits.js';

const SUBJECTS: Record<OtpPurpose, string> = {
  authenticate: 'Your sign-in code',
  signature: 'Your signature code',
  agreement_confirmation: 'Your confirmation code',
  contact_point_link: 'Your code to link this address',
  connector_consent: 'Your code to connect an assistant',
};

const EXPLANATIONS: Record<OtpPurpose, string> = {
  authenticate: 'Use it to sign in. It proves access only and cannot sign anything.',
  signature: 'Use it only to sign the record you are signing now.',
  agreement_confirmation: 'Use it only to confirm the record you were asked to confirm.',
  contact_point_link: 'Use it only to link this address to your identity.',
  connector_consent: 'Entering it on the connection page allows the assistant named there to act on your records for 90 days. It cannot sign anything.',
};

export type IssuedOtp = { verificationEventId: string; purpose: OtpPurpose; expiresAt: Date };

/**
 * One-time codes: six digits, mailed to the address only, stored as an HMAC under the server secret, single use,
 * bound to one purpose, expiring, with a limited number of attempts.
 */
export class OtpService {
  constructor(
    private readonly deps: {
      orm: MikroORM;
      mailer: Mailer;
      rateLimiter: RateLimiter;
      clock: Clock;
      settings: Config['otp'];
      clientLimits: ClientLimits;
      /** The server secret: codes are stored as HMACs under it, never as plain hashes (server-secret.ts). */
      serverSecret: Buffer;
      instruments?: Instruments;
    },
  ) {}

  /**
   * `em`: the caller's transaction when the code belongs to a larger change (a signature method
   * start); `client`: the anonymous caller's network address (limited per address).
   */
  async request(input: { email: string; purpose: string }, options: { em?: EntityManager; client?: string | null } = {}): Promise<IssuedOtp> {
    await this.deps.clientLimits.admit(options.client, 'request_otp');
    const em = options.em ?? this.deps.orm.em.fork();
    const email = normalizeEmail(input.email ?? '');
    const issues = new IssueCollector();
    if (!isValidEmail(email)) issues.add(['email'], 'Enter a valid email address', 'invalid_email');
    if (!(OTP_PURPOSES as readonly string[]).includes(input.purpose)) {
      issues.add(['purpose'], `Purpose must be one of ${OTP_PURPOSES.join(', ')}`, 'invalid_enum');
    }
    issues.throwIfAny();
    const issued = await this.issue(em, email, input.purpose as OtpPurpose, options.client ?? null);
    // The caller's change flushes its own unit of work (the code with it); a code on its own is written now.
    if (!options.em) await em.flush();
    return issued;
  }

  /** A code of the connector consent page's own purpose, which `request` never issues. */
  async requestConnectorConsent(email: string, client: string | null): Promise<IssuedOtp> {
    await this.deps.clientLimits.admit(client, 'request_otp');
    const normalized = normalizeEmail(email ?? '');
    if (!isValidEmail(normalized)) throw DomainError.invalid(['email'], 'Enter a valid email address', 'invalid_email');
    const em = this.deps.orm.em.fork();
    const issued = await this.issue(em, normalized, CONNECTOR_CONSENT_PURPOSE, client);
    await em.flush();
    return issued;
  }

  /** Writes the code's event and its mail into `em`'s unit of work; the caller flushes (both in one go). */
  private async issue(em: EntityManager, email: string, purpose: OtpPurpose, client: string | null): Promise<IssuedOtp> {
    await this.deps.rateLimiter.hit(
      em,
      `otp:${purpose}:${email}`,
      { limit: this.deps.settings.requestsPerWindow, windowSeconds: this.deps.settings.requestWindowSeconds, name: 'otp_requests' },
      'code requests for this address',
    );
    const now = this.deps.clock.now();
    const code = randomDigits(6);
    const event = em.create(VerificationEvent, {
      purpose,
      channel: 'email',
      destination: email,
      codeHash: '',
      maxAttempts: this.deps.settings.maxAttempts,
      expiresAt: new Date(now.getTime() + this.deps.settings.ttlSeconds * 1000),
      createdAt: now,
    });
    event.codeHash = hashCode(this.deps.serverSecret, event.id, code);
    const minutes = Math.round(this.deps.settings.ttlSeconds / 60);
    await this.deps.mailer.send({
      to: email,
      subject: SUBJECTS[purpose],
      text: `Your code is ${code}\n\n${EXPLANATIONS[purpose]}\nIt expires in ${minutes} minutes and works once.\nIf you did not ask for it, ignore this message.\n`,
      // Someone is waiting for it: before bulk mail, never after it expires, and a newer code replaces it.
      urgency: 'waiting',
      notAfter: event.expiresAt,
      replacesKey: `otp:${purpose}:${email}`,
      client,
    }, em);
    this.deps.instruments?.oneTimeCode(purpose, 'requested');
    return { verificationEventId: event.id, purpose, expiresAt: event.expiresAt };
  }

  /**
   * Checks a code outside any transaction, then runs `work` in a transaction that consumes the
   * event. The attempt is counted first, on its own (autocommit) statement: a wrong guess stays
   * counted, and no transaction ever waits for a second pooled connection.
   */
  /** The purpose a verification event was issued for (null for an unknown event); reveals nothing secret. */
  async purposeOf(eventId: string): Promise<OtpPurpose | null> {
    if (!isUuid(eventId)) return null;
    const event = await this.deps.orm.em.fork().findOne(VerificationEvent, { id: eventId }, { fields: ['purpose'] });
    return event?.purpose ?? null;
  }

  async verify<T>(
    eventId: string,
    code: string,
    purpose: OtpPurpose,
    work: (tx: EntityManager, event: VerificationEvent) => Promise<T>,
    client?: string | null,
  ): Promise<T> {
    await this.deps.clientLimits.admit(client, 'verify_otp');
    await this.spendAttempt(eventId, code, purpose);
    return this.deps.orm.em.fork().transactional(async (tx) => work(tx, await this.consume(tx, eventId, code, purpose)));
  }

  /**
   * Spends one attempt on the event and throws unless the code matches. Call it before the
   * transaction that consumes the event (never inside one). Every failure is a validation error on
   * `code` (`otp_locked` once the attempts are used up); nothing says whether the event exists.
   */
  async spendAttempt(eventId: string, code: string, purpose: OtpPurpose): Promise<void> {
    try {
      await this.spend(eventId, code, purpose);
    } catch (error) {
      this.deps.instruments?.oneTimeCode(purpose, 'refused');
      throw error;
    }
  }

  private async spend(eventId: string, code: string, purpose: OtpPurpose): Promise<void> {
    checkShape(eventId, code);
    const em = this.deps.orm.em.fork();
    // Wrong codes are budgeted per address across all its codes: new codes do not buy new guesses.
    const budget = { limit: this.deps.settings.failuresPerDay, windowSeconds: 86_400, name: 'otp_failures' };
    const window = this.deps.rateLimiter.window(budget);
    const now = this.deps.clock.now();
    // One statement: the event, its address's budget of wrong codes, and the attempt, counted
    // atomically (parallel guesses cannot exceed the limit) and only when the event is usable for
    // `purpose` and the budget has room (the checks below then throw without having spent it).
    // The previous window weighs nothing once its last wrong code is a whole window old (as in RateLimiter.hit),
    // and the last hits bound the wait: Retry-After never exceeds the window.
    const forgotten = new Date(window.now - budget.windowSeconds * 1000);
    const [row] = await preparedQuery<
      EntityDictionary<VerificationEvent> & { budget_current: number | null; budget_previous: number | null; budget_current_last: Date | null; budget_previous_last: Date | null; spent: number | null }
    >(
      em,
      `with event as (select * from verification_events where id = ?),
       budget as (
         select c.hits as current, c.last_hit_at as current_last, p.hits as previous, p.last_hit_at as previous_last
           from event e
           left join rate_limit_windows c on c.key = ? || e.destination and c.window_start = ?
           left join rate_limit_windows p on p.key = ? || e.destination and p.window_start = ? and (p.last_hit_at is null or p.last_hit_at > ?::timestamptz)),
       spent as (
         update verification_events v set attempts = v.attempts + 1
           from budget b
          where v.id = ? and v.consumed_at is null and v.attempts < v.max_attempts and v.purpose = ? and v.expires_at > ?
            and coalesce(b.current, 0) + 1 + coalesce(b.previous, 0) * ?::float8 <= ?::float8
         returning v.attempts)
       select e.*, b.current as budget_current, b.previous as budget_previous, b.current_last as budget_current_last, b.previous_last as budget_previous_last,
              (select attempts from spent) as spent
         from event e cross join budget b`,
      [eventId, FAILURES, window.start, FAILURES, window.previousStart, forgotten, eventId, purpose, now, window.overlap, admittedCount(budget)],
    );
    if (!row) throw DomainError.invalid(['verificationEventId'], 'Unknown verification event', 'otp_invalid');
    const { budget_current: current, budget_previous: previous, budget_current_last: currentLastHit, budget_previous_last: previousLastHit, spent, ...columns } = row;
    const event = em.map(VerificationEvent, columns as EntityDictionary<VerificationEvent>);
    this.checkUsable(event, purpose, now, false);
    this.deps.rateLimiter.checkCounts(budget, window, { current, previous, currentLastHit, previousLastHit }, 'wrong codes for this address');
    // Dead for good: waiting does not help, so no Retry-After (its remaining life would mislead).
    if (spent === null) throw DomainError.invalid(['code'], 'Too many wrong codes: this code no longer works; request a new code', 'otp_locked');
    if (!constantTimeEqual(event.codeHash, hashCode(this.deps.serverSecret, event.id, code))) {
      // The budget refuses the next try (checked above); this one still answers as a wrong code.
      await this.deps.rateLimiter.hit(em, `${FAILURES}${event.destination}`, budget, 'wrong codes for this address').catch(() => undefined);
      throw DomainError.invalid(['code'], 'The code is wrong or has expired', 'otp_invalid');
    }
  }

  /**
   * Consumes the event inside the caller's transaction, after `spendAttempt` accepted the code:
   * single use even when two requests race with the right code. Consumed first and checked after, in
   * one statement: a check that fails throws, and the caller's transaction rolls the consumption back.
   */
  async consume(em: EntityManager, eventId: string, code: string, purpose: OtpPurpose): Promise<VerificationEvent> {
    let event: VerificationEvent;
    try {
      event = await this.consumeChecked(em, eventId, code, purpose);
    } catch (error) {
      this.deps.instruments?.oneTimeCode(purpose, 'refused');
      throw error;
    }
    this.deps.instruments?.oneTimeCode(purpose, 'verified');
    return event;
  }

  private async consumeChecked(em: EntityManager, eventId: string, code: string, purpose: OtpPurpose): Promise<VerificationEvent> {
    checkShape(eventId, code);
    const now = this.deps.clock.now();
    const [row] = await preparedQuery<EntityDictionary<VerificationEvent>>(em, 'update verification_events set consumed_at = ? where id = ? and consumed_at is null returning *', [now, eventId]);
    if (!row) {
      // Unknown, or used already: the read says which (and checks the rest in the usual order).
      await this.usable(em, eventId, code, purpose);
      throw DomainError.invalid(['code'], 'This code has already been used', 'otp_used');
    }
    const event = em.map(VerificationEvent, row);
    // Written above, race-safe: the entity leaves the unit of work so the caller's flush does not write it again.
    em.getUnitOfWork().unsetIdentity(event);
    this.checkUsable(event, purpose, now, true);
    if (!constantTimeEqual(event.codeHash, hashCode(this.deps.serverSecret, event.id, code))) throw DomainError.invalid(['code'], 'The code is wrong or has expired', 'otp_invalid');
    return event;
  }

  private async usable(em: EntityManager, eventId: string, code: string, purpose: OtpPurpose): Promise<VerificationEvent> {
    checkShape(eventId, code);
    // A fixed statement mapped to the entity (on every code check, the ORM builds no query).
    const [row] = await preparedQuery<EntityDictionary<VerificationEvent>>(em, 'select * from verification_events where id = ?', [eventId]);
    if (!row) throw DomainError.invalid(['verificationEventId'], 'Unknown verification event', 'otp_invalid');
    const event = em.getUnitOfWork().getById(VerificationEvent, eventId) ?? em.map(VerificationEvent, row);
    this.checkUsable(event, purpose, this.deps.clock.now(), false);
    return event;
  }

  /** Issued for `purpose`, not used (but for `consumedHere`: this request's own consumption), not expired at `now`. */
  private checkUsable(event: VerificationEvent, purpose: OtpPurpose, now: Date, consumedHere: boolean): void {
    if (event.purpose !== purpose) {
      throw DomainError.invalid(['code'], `This code was issued for '${event.purpose}' and cannot be used here`, 'otp_purpose_mismatch');
    }
    if (event.consumedAt && !consumedHere) throw DomainError.invalid(['code'], 'This code has already been used', 'otp_used');
    if (event.expiresAt.getTime() <= now.getTime()) throw DomainError.invalid(['code'], 'This code has expired', 'otp_expired');
  }
}

/** An event id and a code of the right shape, before any statement. */
function checkShape(eventId: string, code: string): void {
  if (!isUuid(eventId)) throw DomainError.invalid(['verificationEventId'], 'Unknown verification event', 'otp_invalid');
  if (!/^[0-9]{6}$/.test(code ?? '')) throw DomainError.invalid(['code'], 'The code is six digits', 'pattern');
}

/** The key prefix of an address's budget of wrong codes (its rate-limit windows). */
const FAILURES = 'otp-failures:';

/** HMAC-SHA256 of the event and its code under the server secret: the row alone does not give the code back. */
function hashCode(key: Buffer, eventId: string, code: string): string {
  return createHmac('sha256', key).update(`${eventId}:${code}`).digest('hex');
}
