import type { MikroORM } from '@mikro-orm/postgresql';
import type { Clock } from '../shared/clock.js';
import { randomToken, sha256Hex } from '../shared/crypto.js';
import { AccessToken, ApiKey } from './entities.js';
import type { OtpService } from './otp-service.js';
import type { Principal } from './principal.js';
import { recordVerifiedContactPoint } from './contact-points.js';
import { DomainError } from '../shared/errors.js';

export const ACCESS_TOKEN_PREFIX = 'rss_at_';
export const API_KEY_PREFIX = 'rss_key_';

export type IssuedSession = { accessToken: string; expiresIn: number; identityId: string };

/** Turns an `authenticate` OTP into a bearer session, and credentials back into principals. */
export class SessionService {
  constructor(
    private readonly orm: MikroORM,
    private readonly otp: OtpService,
    private readonly clock: Clock,
    private readonly accessTokenTtlSeconds: number,
  ) {}

  async signIn(verificationEventId: string, code: string): Promise<IssuedSession> {
    const em = this.orm.em.fork();
    return em.transactional(async (tx) => {
      const event = await this.otp.consume(tx, verificationEventId, code, 'authenticate');
      const now = this.clock.now();
      const point = await recordVerifiedContactPoint(tx, 'email', event.destination, now);
      const accessToken = ACCESS_TOKEN_PREFIX + randomToken(32);
      tx.create(AccessToken, {
        tokenHash: sha256Hex(accessToken),
        identity: point.identity,
        contactPoint: point.id,
        expiresAt: new Date(now.getTime() + this.accessTokenTtlSeconds * 1000),
        createdAt: now,
      });
      await tx.flush();
      return { accessToken, expiresIn: this.accessTokenTtlSeconds, identityId: point.identity };
    });
  }

  /** Resolves the request's credentials. Presented but invalid credentials are an error, never anonymity. */
  async authenticate(credentials: { bearer?: string; apiKey?: string }): Promise<Principal | null> {
    if (credentials.bearer !== undefined) return this.fromBearer(credentials.bearer);
    if (credentials.apiKey !== undefined) return this.fromApiKey(credentials.apiKey);
    return null;
  }

  private async fromBearer(token: string): Promise<Principal> {
    const em = this.orm.em.fork();
    const now = this.clock.now();
    const session = await em.findOne(AccessToken, { tokenHash: sha256Hex(token), revokedAt: null, expiresAt: { $gt: now } });
    if (!session) throw new DomainError('unauthenticated', 'The bearer token is invalid or has expired');
    return { kind: 'bearer', identityId: session.identity, tokenId: session.id, contactPointId: session.contactPoint };
  }

  private async fromApiKey(key: string): Promise<Principal> {
    const em = this.orm.em.fork();
    const now = this.clock.now();
    const apiKey = await em.findOne(ApiKey, {
      keyHash: sha256Hex(key),
      revokedAt: null,
      $or: [{ expiresAt: null }, { expiresAt: { $gt: now } }],
    });
    if (!apiKey) throw new DomainError('unauthenticated', 'The API key is invalid, revoked or expired');
    // Touch last_used_at at most once a minute: a hot key should not write on every request.
    await em.execute(
      `update api_keys set last_used_at = ? where id = ? and (last_used_at is null or last_used_at < ?)`,
      [now, apiKey.id, new Date(now.getTime() - 60_000)],
    );
    return { kind: 'api_key', identityId: apiKey.identity, apiKeyId: apiKey.id, scopes: apiKey.scopes };
  }
}
