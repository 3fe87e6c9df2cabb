import type { MikroORM } from '@mikro-orm/postgresql';
import { McpSession, type SecretInputMode } from '../../domain/mcp/entities.js';
import type { Clock } from '../../domain/shared/clock.js';
import { randomToken, sha256Hex } from '../../domain/shared/crypto.js';
import { DomainError } from '../../domain/shared/errors.js';
import type { RateLimiter } from '../../domain/shared/rate-limiter.js';

const MCP_SESSION_PREFIX = 'rss_mcps_';

/**
 * A stored MCP session as a transport continues it. `owner`: the endpoint and transport credential
 * that initialized it (`mcp:api_key:<id>`, `mcp_oauth:oauth:<grant>`, `mcp:anonymous`); every later
 * request must come with the same (null: a session opened before sessions had owners, bound to none).
 */
export type OpenMcpSession = { key: string; protocolVersion: string; secretInput: SecretInputMode; owner: string | null };

export type McpSessionLimits = {
  /** Idle lifetime of a session that has been used. */
  idleSeconds: number;
  /** Lifetime of a session that made no call after `initialize`. */
  unusedSeconds: number;
  /** `initialize` calls per client (a caller's identity, else its network address) per minute. */
  initializePerMinute: number;
  /** Live sessions in all; past it `initialize` is refused until some expire or end. */
  maxSessions: number;
};

/**
 * MCP protocol sessions in PostgreSQL: opened at `initialize` on one instance, continued on any
 * other, ended by DELETE, by idling past `idleSeconds`, or, never used, after `unusedSeconds`. One
 * client cannot open them without limit (`initializePerMinute`, `maxSessions`): each costs a row
 * that a flood of `initialize` calls would otherwise multiply.
 */
export class McpSessions {
  constructor(
    private readonly deps: {
      orm: MikroORM;
      clock: Clock;
      limits: McpSessionLimits;
      rateLimiter: RateLimiter;
    },
  ) {}

  /**
   * A new session; the returned id is the client's secret `Mcp-Session-Id`. `client` is who counts
   * the call: an identity (`identity:<id>`) or a network address; null (in-process) is not counted.
   */
  async open(protocolVersion: string, clientName: string | null, client: string | null = null, secretInput: SecretInputMode = 'argument', owner: string | null = null): Promise<{ id: string; key: string }> {
    const em = this.deps.orm.em.fork();
    if (client !== null) {
      await this.deps.rateLimiter.hit(em, `mcp_initialize:${client}`, { limit: this.deps.limits.initializePerMinute, windowSeconds: 60, name: 'mcp_initialize' }, 'MCP sessions opened by this client');
    }
    const now = this.deps.clock.now();
    const live = await em.execute<{ n: number }[]>(
      `select count(*)::int as n from (select 1 from mcp_sessions where closed_at is null and expires_at > ? limit ?) s`,
      [now, this.deps.limits.maxSessions],
    );
    if ((live[0]?.n ?? 0) >= this.deps.limits.maxSessions) {
      throw new DomainError('unavailable', 'Too many MCP sessions are open; try again later', { retryAfterSeconds: 60 });
    }
    const id = MCP_SESSION_PREFIX + randomToken(32);
    const session = em.create(McpSession, {
      sessionHash: sha256Hex(id),
      protocolVersion,
      clientName: clientName?.slice(0, 200) ?? null,
      secretInput,
      owner,
      lastSeenAt: now,
      expiresAt: new Date(now.getTime() + this.deps.limits.unusedSeconds * 1000),
    });
    await em.flush();
    return { id, key: session.id };
  }

  /**
   * The live session with this id (touched: its idle expiry moves on at its first call, then at most
   * once a minute), or null.
   */
  async find(id: string): Promise<OpenMcpSession | null> {
    const now = this.deps.clock.now();
    const minuteAgo = new Date(now.getTime() - 60_000);
    // A session still on its short first lifetime gets the idle one at its first call.
    const unusedBefore = new Date(now.getTime() + Math.max(0, this.deps.limits.idleSeconds - 60) * 1000);
    const rows = await this.deps.orm.em.fork().execute<{ id: string; protocol_version: string; secret_input: SecretInputMode; owner: string | null }[]>(
      `update mcp_sessions set last_seen_at = case when last_seen_at < ? or expires_at < ? then ? else last_seen_at end,
         expires_at = case when last_seen_at < ? or expires_at < ? then ? else expires_at end
       where session_hash = ? and closed_at is null and expires_at > ? returning id, protocol_version, secret_input, owner`,
      [minuteAgo, unusedBefore, now, minuteAgo, unusedBefore, this.expiry(now), sha256Hex(id), now],
    );
    const row = rows[0];
    return row ? { key: row.id, protocolVersion: row.protocol_version, secretInput: row.secret_input, owner: row.owner } : null;
  }

  /**
   * Ends a session (DELETE /mcp) for its owner only (see OpenMcpSession); its grants end with it.
   * Answers whether a live session of that owner was ended.
   */
  async close(id: string, owner: string): Promise<boolean> {
    const now = this.deps.clock.now();
    const em = this.deps.orm.em.fork();
    const ended = await em.execute<{ id: string }[]>(
      `update mcp_sessions set closed_at = ? where session_hash = ? and closed_at is null and expires_at > ? and (owner is null or owner = ?) returning id`,
      [now, sha256Hex(id), now, owner],
    );
    if (ended[0]) await em.execute(`update mcp_grants set revoked_at = ? where session_id = ? and revoked_at is null`, [now, ended[0].id]);
    return ended.length > 0;
  }

  private expiry(now: Date): Date {
    return new Date(now.getTime() + this.deps.limits.idleSeconds * 1000);
  }
}
