import type { MikroORM } from '@mikro-orm/postgresql';
import type { Clock } from '../shared/clock.js';
import { randomToken, sha256Hex } from '../shared/crypto.js';
import { DomainError } from '../shared/errors.js';
import type { CredentialResolver } from '../identity/credential-resolver.js';
import { recordVerifiedContactPoint } from '../identity/contact-points.js';
import type { OtpService } from '../identity/otp-service.js';
import type { Principal, Scope } from '../identity/principal.js';
import { McpGrant } from './entities.js';

const MCP_TOKEN_PREFIX = 'rss_mcp_';

/** The spec's bound for the session-bound retrieval grant and the manual transport token. */
const MCP_GRANT_MAX_SECONDS = 600;

/** What an MCP authentication grants: never more than `retrieve`. */
const MCP_GRANT_SCOPES: readonly Scope[] = ['retrieve'];

export type OpenedGrant = { scopes: Scope[]; expiresIn: number; sessionBound: boolean; transportToken: string | null };

/**
 * Direct MCP authentication without a transport credential: an `authenticate` code opens a
 * `retrieve`-only grant bound to the MCP session, for at most 600 seconds. It proves access only:
 * the principal it yields is `mcp_session`, which no signature method accepts.
 */
export class McpGrants {
  private readonly ttlSeconds: number;

  constructor(
    private readonly deps: {
      orm: MikroORM;
      otp: OtpService;
      clock: Clock;
      ttlSeconds: number;
    },
  ) {
    this.ttlSeconds = Math.min(deps.ttlSeconds, MCP_GRANT_MAX_SECONDS);
  }

  /**
   * Spends the code and opens the grant on the session (`sessionKey`, the stored session's id). With
   * `manualTransportToken` the grant also gets a token for a client that cannot keep the session id.
   */
  async open(sessionKey: string | null | undefined, input: { verificationEventId: string; code: string; manualTransportToken?: boolean | null }, client?: string | null): Promise<OpenedGrant> {
    if (!sessionKey) {
      throw DomainError.invalid(['session'], 'An MCP authentication grant is opened on an MCP session (POST /mcp with Mcp-Session-Id)', 'mcp_session_required');
    }
    return this.deps.otp.verify(input.verificationEventId, input.code, 'authenticate', async (tx, event) => {
      const now = this.deps.clock.now();
      const point = await recordVerifiedContactPoint(tx, 'email', event.destination, now);
      const token = input.manualTransportToken ? MCP_TOKEN_PREFIX + randomToken(32) : null;
      tx.create(McpGrant, {
        session: sessionKey,
        identity: point.identity,
        scopes: [...MCP_GRANT_SCOPES],
        tokenHash: token ? sha256Hex(token) : null,
        expiresAt: new Date(now.getTime() + this.ttlSeconds * 1000),
      });
      await tx.flush();
      return { scopes: [...MCP_GRANT_SCOPES], expiresIn: this.ttlSeconds, sessionBound: true, transportToken: token };
    }, client);
  }

  /** The principal of the live grant on this session, or null (anonymous). */
  async forSession(sessionKey: string): Promise<Principal | null> {
    const grant = await this.deps.orm.em.fork().findOne(
      McpGrant,
      { session: sessionKey, revokedAt: null, expiresAt: { $gt: this.deps.clock.now() } },
      { orderBy: { createdAt: 'desc' } },
    );
    return grant ? { kind: 'mcp_session', identityId: grant.identity, scopes: grant.scopes, mcpSessionId: grant.session, grantId: grant.id, sessionBound: true } : null;
  }

  /** Manual transport tokens, for the MCP transport's credential chain only (never REST or GraphQL). */
  tokenResolver(): CredentialResolver {
    return {
      name: 'mcp_token',
      resolve: async (credential) => {
        if (credential.kind !== 'bearer' || !credential.token.startsWith(MCP_TOKEN_PREFIX)) return null;
        const grant = await this.deps.orm.em.fork().findOne(McpGrant, {
          tokenHash: sha256Hex(credential.token),
          revokedAt: null,
          expiresAt: { $gt: this.deps.clock.now() },
        });
        return grant ? { kind: 'mcp_session', identityId: grant.identity, scopes: grant.scopes, mcpSessionId: grant.session, grantId: grant.id, sessionBound: false } : null;
      },
    };
  }
}
