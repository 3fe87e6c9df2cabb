import { hkdfSync, randomUUID } from 'node:crypto';
import { openSealed, sealBytes } from '../shared/crypto.js';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Principal } from '../identity/principal.js';
import { canonicalBytes } from '../shared/canonical-json.js';
import type { Clock } from '../shared/clock.js';
import { sha256Hex } from '../shared/crypto.js';
import { DomainError } from '../shared/errors.js';

/** How long a key and its answer are kept (the IETF draft's suggestion: at least a day). */
const IDEMPOTENCY_KEY_TTL_SECONDS = 24 * 60 * 60;
/**
 * A claim's lease: the process running its request renews it every IDEMPOTENCY_RENEW_SECONDS, so a
 * claim whose lease ran out belongs to a request whose process died, and may be taken over.
 */
const IDEMPOTENCY_LEASE_SECONDS = 10;
const IDEMPOTENCY_RENEW_SECONDS = 3;
/** No request runs this long: a claim neither completed nor released (a bug) stops being renewed then. */
const LONGEST_RENEWAL_MS = 15 * 60 * 1000;
/** The header value: a random string, a UUID for instance; at least 16 characters so that the answer it encrypts is not guessable. */
export const IDEMPOTENCY_KEY_LENGTH = { min: 16, max: 255 } as const;

/** A stored answer, in the transport's own terms (REST: status, headers, JSON body; GraphQL: the result). */
export type StoredAnswer = { status: number; headers: Record<string, string>; body: unknown };

/** What a request carries that makes it the same request: compared on every retry with the key. */
export type RequestFingerprint = { transport: 'rest' | 'graphql'; target: string; body: unknown };

/** The 409's message for an `in_progress` outcome. */
export function inProgressMessage(retryAfterSeconds: number): string {
  return retryAfterSeconds <= 1
    ? 'A request with this Idempotency-Key is still being processed; retry shortly'
    : `The request first sent with this Idempotency-Key stopped without an answer (its process is gone); a retry may take it over in ${retryAfterSeconds} s`;
}

export type IdempotencyClaim = { id: string; key: string; scope: string };

export type ClaimOutcome =
  | { outcome: 'claimed'; claim: IdempotencyClaim }
  | { outcome: 'replay'; answer: StoredAnswer }
  /** The key was used with another request: 422. */
  | { outcome: 'mismatch' }
  /**
   * The first request with this key is still running: 409, try again in `retryAfterSeconds` (1 while
   * its process renews the claim; when it stopped renewing, the time until the claim may be taken over).
   */
  | { outcome: 'in_progress'; retryAfterSeconds: number }
  /**
   * The first request's change committed but its answer was never stored (its process died, or the
   * answer failed after the commit): never run again; answer from `recordId`'s state if the transport can.
   */
  | { outcome: 'committed'; recordId: string | null };

/**
 * Idempotency keys (IETF httpapi `Idempotency-Key`) in PostgreSQL, per caller: the first request
 * with a key claims it with one insert-on-conflict (safe across instances), runs, and stores its
 * answer; a retry with the same key and request gets that answer again, one with another request is
 * refused, one that arrives while the first still runs is told so. The change a request makes marks
 * its claim `committed` in its own transaction (claim-context.ts): a claim whose change committed is
 * never taken over and run again, even when its answer was never stored. Keys live 24 hours; the
 * housekeeping job deletes them after that.
 */
export class IdempotencyStore {
  /** The claims this process holds, each renewed until its request completes or is released. */
  private readonly renewals = new Map<string, NodeJS.Timeout>();

  constructor(
    private readonly deps: {
      orm: MikroORM;
      clock: Clock;
      /** The server secret (server-secret.ts): with the caller's key, it derives the key of a stored answer. */
      serverSecret: Buffer;
    },
  ) {}

  /** The header value, checked; a DomainError (validation) names the header when it is unusable. */
  static parseKey(header: string): string {
    // The draft writes the key as a Structured Field string ("..."); a bare token is accepted too.
    const quoted = /^"((?:[^"\\]|\\["\\])*)"$/.exec(header.trim());
    const key = quoted ? quoted[1]!.replace(/\\(["\\])/g, '$1') : header.trim();
    if (key.length < IDEMPOTENCY_KEY_LENGTH.min || key.length > IDEMPOTENCY_KEY_LENGTH.max || !/^[\x21-\x7e]+$/.test(key)) {
      throw DomainError.invalid(
        ['idempotencyKey'],
        `Idempotency-Key must be ${IDEMPOTENCY_KEY_LENGTH.min}..${IDEMPOTENCY_KEY_LENGTH.max} visible ASCII characters (a UUID, for instance)`,
        'idempotency_key_invalid',
      );
    }
    return key;
  }

  /** Whose keys these are: the principal's identity or credential, or an anonymous client's address (hashed). */
  static scopeOf(principal: Principal | null, clientAddress: string | null | undefined): string {
    if (!principal) return `anonymous:${sha256Hex(`client:${clientAddress ?? 'unknown'}`).slice(0, 32)}`;
    switch (principal.kind) {
      case 'session':
        return `identity:${principal.identityId}`;
      case 'api_key':
        return `api_key:${principal.apiKeyId}`;
      case 'oauth':
        return `oauth:${principal.grantId}`;
      case 'mcp_session':
        return `mcp_session:${principal.mcpSessionId}`;
    }
  }

  async claim(scope: string, key: string, request: RequestFingerprint): Promise<ClaimOutcome> {
    const keyHash = sha256Hex(`${scope}\n${key}`);
    const fingerprint = sha256Hex(canonicalBytes({ ...request, scope }));
    const now = this.deps.clock.now();
    const id = randomUUID();
    const em = this.deps.orm.em.fork();
    for (let attempt = 0; attempt < 3; attempt += 1) {
      // A new key, an expired one not yet swept, or a dead claim of the same request: taken in one statement.
      const claimed = await em.execute<{ id: string }[]>(
        `insert into idempotency_keys (id, scope, key_hash, fingerprint, status, response, locked_until, created_at, expires_at)
           values (?, ?, ?, ?, 'running', null, ?, ?, ?)
         on conflict (scope, key_hash) do update
           set id = excluded.id, fingerprint = excluded.fingerprint, status = 'running', response = null,
               locked_until = excluded.locked_until, created_at = excluded.created_at, expires_at = excluded.expires_at
           where idempotency_keys.expires_at <= ?
              or (idempotency_keys.status = 'running' and idempotency_keys.locked_until <= ? and idempotency_keys.fingerprint = excluded.fingerprint)
         returning id`,
        [id, scope, keyHash, fingerprint, new Date(now.getTime() + IDEMPOTENCY_LEASE_SECONDS * 1000), now, new Date(now.getTime() + IDEMPOTENCY_KEY_TTL_SECONDS * 1000), now, now],
      );
      if (claimed.length > 0) {
        this.renew(id);
        return { outcome: 'claimed', claim: { id, key, scope } };
      }
      const [existing] = await em.execute<{ fingerprint: string; status: string; response: string | null; committed_record_id: string | null; locked_until: Date | string | null }[]>(
        'select fingerprint, status, response, committed_record_id, locked_until from idempotency_keys where scope = ? and key_hash = ?',
        [scope, keyHash],
      );
      // Released (or swept) between the two statements: claim again.
      if (!existing) continue;
      if (existing.fingerprint !== fingerprint) return { outcome: 'mismatch' };
      if (existing.status === 'committed') return { outcome: 'committed', recordId: existing.committed_record_id };
      if (existing.status !== 'completed' || existing.response === null) return { outcome: 'in_progress', retryAfterSeconds: this.retryAfter(existing.locked_until) };
      let answer: StoredAnswer;
      try {
        answer = JSON.parse(openSealed(existing.response, this.answerKey(key, scope)).toString('utf8')) as StoredAnswer;
      } catch {
        // Stored under another server secret (it was changed): the change ran; its answer cannot be read.
        return { outcome: 'committed', recordId: null };
      }
      return { outcome: 'replay', answer };
    }
    return { outcome: 'in_progress', retryAfterSeconds: 1 };
  }

  /**
   * A running claim renewed lately (its lease has more than a renewal's time left, with a second for
   * slack) is being worked on: try again in a second. One that stopped being renewed lost its process:
   * it may be taken over once its lease has run out, and that is the wait.
   */
  private retryAfter(lockedUntil: Date | string | null): number {
    const leftSeconds = lockedUntil ? (new Date(lockedUntil).getTime() - this.deps.clock.now().getTime()) / 1000 : 0;
    if (leftSeconds > IDEMPOTENCY_LEASE_SECONDS - IDEMPOTENCY_RENEW_SECONDS - 1) return 1;
    return Math.max(1, Math.ceil(leftSeconds));
  }

  /** Keeps the claim's lease ahead while its request runs here (ended by complete or release). */
  private renew(claimId: string): void {
    const until = Date.now() + LONGEST_RENEWAL_MS;
    const timer = setInterval(() => {
      if (Date.now() > until) return this.stopRenewing(claimId);
      this.deps.orm.em
        .fork()
        .execute(`update idempotency_keys set locked_until = ? where id = ? and status = 'running'`, [new Date(this.deps.clock.now().getTime() + IDEMPOTENCY_LEASE_SECONDS * 1000), claimId])
        // The database away for a moment: the next renewal tries again (the lease outlasts two misses).
        .catch(() => undefined);
    }, IDEMPOTENCY_RENEW_SECONDS * 1000);
    timer.unref();
    this.renewals.set(claimId, timer);
  }

  private stopRenewing(claimId: string): void {
    clearInterval(this.renewals.get(claimId));
    this.renewals.delete(claimId);
  }

  /** Stores the answer of a claimed request; retries with the key get it from now on. */
  async complete(claim: IdempotencyClaim, answer: StoredAnswer): Promise<void> {
    this.stopRenewing(claim.id);
    const sealed = sealBytes(Buffer.from(JSON.stringify(answer), 'utf8'), this.answerKey(claim.key, claim.scope));
    await this.deps.orm.em
      .fork()
      .execute(`update idempotency_keys set status = 'completed', response = ?, locked_until = null where id = ? and status in ('running', 'committed')`, [sealed, claim.id]);
  }

  /**
   * Answers can hold secrets (a new API key, an access token): they are stored encrypted under a key
   * derived from the caller's Idempotency-Key, which the database never holds, and the server secret,
   * which it never holds either: neither a leaked key nor a read of the table alone opens an answer.
   */
  private answerKey(key: string, scope: string): Buffer {
    return Buffer.from(hkdfSync('sha256', Buffer.concat([this.deps.serverSecret, Buffer.from(key, 'utf8')]), scope, 'idempotency-key answer', 32));
  }

  /**
   * Forgets a claim whose request failed in a way worth retrying (5xx, rate limited): the next try runs
   * it. A claim whose change had committed stays: the next try replays it.
   */
  async release(claim: IdempotencyClaim): Promise<void> {
    this.stopRenewing(claim.id);
    await this.deps.orm.em.fork().execute(`delete from idempotency_keys where id = ? and status = 'running'`, [claim.id]);
  }
}
