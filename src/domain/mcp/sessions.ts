import type { MikroORM } from '@mikro-orm/postgresql';
import type { Clock } from '../shared/clock.js';
import { randomToken, sha256Hex } from '../shared/crypto.js';
import { McpSession } from './entities.js';

export const MCP_SESSION_PREFIX = 'rss_mcps_';

/** A stored MCP session as a transport continues it. */
export type OpenMcpSession = { key: string; protocolVersion: string };

/**
 * MCP protocol sessions in PostgreSQL: opened at `initialize` on one instance, continued on any
 * other, ended by DELETE or by idling past `idleSeconds`.
 */
export class McpSessions {
  constructor(
    private readonly orm: MikroORM,
    private readonly clock: Clock,
    private readonly idleSeconds: number,
  ) {}

  /** A new session; the returned id is the client's secret `Mcp-Session-Id`. */
  async open(protocolVersion: string, clientName: string | null): Promise<{ id: string; key: string }> {
    const id = MCP_SESSION_PREFIX + randomToken(32);
    const now = this.clock.now();
    const em = this.orm.em.fork();
    const session = em.create(McpSession, {
      sessionHash: sha256Hex(id),
      protocolVersion,
      clientName: clientName?.slice(0, 200) ?? null,
      lastSeenAt: now,
      expiresAt: this.expiry(now),
    });
    await em.flush();
    return { id, key: session.id };
  }

  /** The live session with this id (touched: its idle expiry moves on, at most once a minute), or null. */
  async find(id: string): Promise<OpenMcpSession | null> {
    const now = this.clock.now();
    const rows = await this.orm.em.fork().execute<{ id: string; protocol_version: string }[]>(
      `update mcp_sessions set last_seen_at = case when last_seen_at < ? then ? else last_seen_at end,
         expires_at = case when last_seen_at < ? then ? else expires_at end
       where session_hash = ? and closed_at is null and expires_at > ? returning id, protocol_version`,
      [new Date(now.getTime() - 60_000), now, new Date(now.getTime() - 60_000), this.expiry(now), sha256Hex(id), now],
    );
    const row = rows[0];
    return row ? { key: row.id, protocolVersion: row.protocol_version } : null;
  }

  /** Ends a session (DELETE /mcp); its grants end with it. Answers whether a live session was ended. */
  async close(id: string): Promise<boolean> {
    const now = this.clock.now();
    const em = this.orm.em.fork();
    const ended = await em.execute<{ id: string }[]>(
      `update mcp_sessions set closed_at = ? where session_hash = ? and closed_at is null and expires_at > ? returning id`,
      [now, sha256Hex(id), now],
    );
    if (ended[0]) await em.execute(`update mcp_grants set revoked_at = ? where session_id = ? and revoked_at is null`, [now, ended[0].id]);
    return ended.length > 0;
  }

  private expiry(now: Date): Date {
    return new Date(now.getTime() + this.idleSeconds * 1000);
  }
}
