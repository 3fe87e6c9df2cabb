import type { MikroORM } from '@mikro-orm/postgresql';
import type { Clock } from '../shared/clock.js';
import { randomToken, sha256Hex } from '../shared/crypto.js';
import { AccessToken } from './entities.js';
import type { OtpService } from './otp-service.js';
import { recordVerifiedContactPoint } from './contact-points.js';
import type { Principal } from './principal.js';
import { requireAccess } from './operation-access.js';

export const ACCESS_TOKEN_PREFIX = 'rss_at_';
export const API_KEY_PREFIX = 'rss_key_';

export type IssuedSession = { accessToken: string; expiresIn: number; identityId: string };

/** Turns an `authenticate` OTP into a bearer session (credential-resolver.ts turns it back into a principal). */
export class SessionService {
  constructor(
    private readonly deps: {
      orm: MikroORM;
      otp: OtpService;
      clock: Clock;
      accessTokenTtlSeconds: number;
      /** Called once sessions are ended: every instance stops reusing their resolved principals (the credential epoch). */
      credentialsChanged: () => Promise<void>;
    },
  ) {}

  /**
   * Ends the caller's session at once, on every instance; with `everywhere`, every session of the
   * caller's identity (other browsers, other devices). API keys and connected assistants are left as
   * they are (they are revoked on their own). Answers how many sessions were ended.
   */
  async signOut(principal: Principal | null, everywhere = false): Promise<{ sessionsEnded: number }> {
    const caller = requireAccess(principal, 'identity.signOut');
    const now = this.deps.clock.now();
    const which = everywhere ? { identity: caller.identityId } : { id: caller.tokenId };
    const ended = await this.deps.orm.em.fork().nativeUpdate(AccessToken, { ...which, revokedAt: null, expiresAt: { $gt: now } }, { revokedAt: now });
    await this.deps.credentialsChanged();
    return { sessionsEnded: ended };
  }

  /**
   * Verifies a code at the generic verify route: an `authenticate` code opens a session; an
   * `agreement_confirmation` code is spent and proves control of its address, nothing more (no
   * session, no signature, no record moves). Codes of other purposes are refused there.
   */
  async verifyCode(verificationEventId: string, code: string, client?: string | null): Promise<IssuedSession | { confirmed: true }> {
    if ((await this.deps.otp.purposeOf(verificationEventId)) === 'agreement_confirmation') {
      return this.deps.otp.verify(verificationEventId, code, 'agreement_confirmation', async () => ({ confirmed: true as const }), client);
    }
    return this.signIn(verificationEventId, code, client);
  }

  /** `client`: the anonymous caller's network address (limited per address). */
  async signIn(verificationEventId: string, code: string, client?: string | null): Promise<IssuedSession> {
    return this.deps.otp.verify(verificationEventId, code, 'authenticate', async (tx, event) => {
      const now = this.deps.clock.now();
      const point = await recordVerifiedContactPoint(tx, 'email', event.destination, now);
      const accessToken = ACCESS_TOKEN_PREFIX + randomToken(32);
      tx.create(AccessToken, {
        tokenHash: sha256Hex(accessToken),
        identity: point.identity,
        contactPoint: point.id,
        expiresAt: new Date(now.getTime() + this.deps.accessTokenTtlSeconds * 1000),
        createdAt: now,
      });
      await tx.flush();
      return { accessToken, expiresIn: this.deps.accessTokenTtlSeconds, identityId: point.identity };
    }, client);
  }
}
