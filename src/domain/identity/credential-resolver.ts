import type { MikroORM } from '@mikro-orm/postgresql';
import { LRUCache } from 'lru-cache';
import type { Clock } from '../shared/clock.js';
import { sha256Hex } from '../shared/crypto.js';
import { DomainError } from '../shared/errors.js';
import { AccessToken, ApiKey } from './entities.js';
import { Team } from '../teams/entities.js';
import { SESSION_SCOPES, type Principal } from './principal.js';
import type { ConnectorAccessToken, ConnectorGrants } from './connector-grants.js';

/** Credentials as a transport read them (HTTP headers, graphql-ws connection params), not yet checked. */
export type PresentedCredentials = { bearer?: string; apiKey?: string };

/** One presented credential. */
type Credential = { kind: 'bearer'; token: string } | { kind: 'api_key'; key: string };

/**
 * One kind of credential: answers the principal for a credential it recognises, or null when the
 * credential is not its kind (the next resolver of the chain is asked). A credential of its kind
 * that does not check out (unknown, expired, revoked) throws `unauthenticated`.
 */
export type CredentialResolver = {
  readonly name: string;
  resolve(credential: Credential): Promise<Principal | ResolvedCredential | null>;
};

/** A principal with the credential's own expiry (null: none): such answers may be reused briefly. */
type ResolvedCredential = { principal: Principal; expiresAt: Date | null };

/**
 * Reuse of resolved credentials: how long, against which clock (expiry is checked on every reuse),
 * and the epoch that revocations advance (an answer is reused only under the epoch it was resolved in).
 */
export type PrincipalCacheSettings = { ttlMs: number; clock: Clock; epoch: { current(): Promise<string> } };

type ReusableCredential = ResolvedCredential & { epoch: string };

/**
 * The one way from presented credentials to a principal, used by REST, GraphQL over HTTP and
 * graphql-ws alike: nothing presented is anonymity (null); something presented that no resolver
 * accepts is an error, never anonymity.
 */
export class CredentialResolverChain {
  private readonly cache: LRUCache<string, ReusableCredential> | null;
  private generation = 0;

  constructor(
    private readonly resolvers: readonly CredentialResolver[],
    private readonly caching: PrincipalCacheSettings | null = null,
  ) {
    this.cache = caching && caching.ttlMs > 0 ? new LRUCache<string, ReusableCredential>({ max: 10_000, ttl: caching.ttlMs }) : null;
  }

  /**
   * Forgets every reused answer: called when a credential is revoked or identities merge (on this
   * instance at once, on the others through LISTEN/NOTIFY). The epoch makes the others exact before
   * the notification arrives; the TTL bounds how long an unused entry is kept.
   */
  invalidate(): void {
    this.generation += 1;
    this.cache?.clear();
  }

  async authenticate(presented: PresentedCredentials): Promise<Principal | null> {
    const credential: Credential | null =
      presented.bearer !== undefined
        ? { kind: 'bearer', token: presented.bearer }
        : presented.apiKey !== undefined
          ? { kind: 'api_key', key: presented.apiKey }
          : null;
    if (!credential) return null;
    // Keyed by the secret's hash: the cache never holds a credential itself.
    const key = this.cache ? `${credential.kind}:${sha256Hex(credential.kind === 'bearer' ? credential.token : credential.key)}` : '';
    // Read after this request began: an answer resolved under an earlier epoch may predate a revocation.
    const epoch = this.cache ? await this.caching!.epoch.current() : '';
    const cached = this.cache?.get(key);
    if (cached && cached.epoch === epoch && (cached.expiresAt === null || cached.expiresAt > this.caching!.clock.now())) return cached.principal;
    const generation = this.generation;
    for (const resolver of this.resolvers) {
      const answer = await resolver.resolve(credential);
      if (!answer) continue;
      if (!('principal' in answer)) return answer;
      if (this.cache && generation === this.generation) this.cache.set(key, { ...answer, epoch });
      return answer.principal;
    }
    throw new DomainError(
      'unauthenticated',
      credential.kind === 'bearer' ? 'The bearer token is invalid or has expired' : 'The API key is invalid, revoked or expired',
    );
  }
}

/** Bearer sessions opened with an email one-time code (access tokens). */
export function sessionTokenResolver(orm: MikroORM, clock: Clock): CredentialResolver {
  return {
    name: 'session',
    resolve: async (credential) => {
      if (credential.kind !== 'bearer') return null;
      const em = orm.em.fork();
      const session = await em.findOne(AccessToken, { tokenHash: sha256Hex(credential.token), revokedAt: null, expiresAt: { $gt: clock.now() } });
      if (!session) return null;
      const principal: Principal = { kind: 'session', identityId: session.identity, scopes: SESSION_SCOPES, tokenId: session.id, contactPointId: session.contactPoint };
      return { principal, expiresAt: session.expiresAt };
    },
  };
}

/** Scoped API keys. */
export function apiKeyResolver(orm: MikroORM, clock: Clock): CredentialResolver {
  return {
    name: 'api_key',
    resolve: async (credential) => {
      if (credential.kind !== 'api_key') return null;
      const em = orm.em.fork();
      const now = clock.now();
      const apiKey = await em.findOne(ApiKey, {
        keyHash: sha256Hex(credential.key),
        revokedAt: null,
        $or: [{ expiresAt: null }, { expiresAt: { $gt: now } }],
      });
      if (!apiKey) return null;
      // Touch last_used_at at most once a minute: a hot key should not write on every request.
      await em.execute(`update api_keys set last_used_at = ? where id = ? and (last_used_at is null or last_used_at < ?)`, [
        now,
        apiKey.id,
        new Date(now.getTime() - 60_000),
      ]);
      // A key whose identity is a team's acts for that team (domain/teams).
      const teamKey = (await em.count(Team, { id: apiKey.identity })) > 0;
      return { principal: { kind: 'api_key', identityId: apiKey.identity, scopes: apiKey.scopes, apiKeyId: apiKey.id, teamKey }, expiresAt: apiKey.expiresAt };
    },
  };
}

/** Port to the authorization server: the access token it issued under this value, or null (unknown, expired, revoked). */
export type ConnectorTokenLookup = (token: string) => Promise<ConnectorAccessToken | null>;

/**
 * Hosted assistant connectors: OAuth access tokens bound to `resource` (the `/mcp/oauth` endpoint).
 * Only the chain of that endpoint holds this resolver, so a connector token is refused everywhere
 * else, and a token issued for another resource, or of a connection that ended, is refused here.
 */
export function connectorTokenResolver(lookup: ConnectorTokenLookup, grants: ConnectorGrants, resource: string): CredentialResolver {
  return {
    name: 'oauth',
    resolve: async (credential) => {
      if (credential.kind !== 'bearer') return null;
      const token = await lookup(credential.token);
      return token ? grants.principalFor(token, resource) : null;
    },
  };
}
