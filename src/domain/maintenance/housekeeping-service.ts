import type { MikroORM } from '@mikro-orm/postgresql';
import type { Clock } from '../shared/clock.js';

export type SweepResult = {
  verificationEvents: number;
  accessTokens: number;
  rateLimitWindows: number;
  cardTickets: number;
  outboxEvents: number;
  mail: number;
  messengerMessages: number;
  webhookDeliveries: number;
  mcpSessions: number;
  mcpGrants: number;
  mcpConfirmations: number;
  mcpSecretInputs: number;
  mcpEvents: number;
  idempotencyKeys: number;
  oauthPayloads: number;
  exports: number;
};

/** Deletes what has outlived its use: spent or expired codes, dead sessions, old rate-limit windows, spent card tickets, delivered events, settled webhook deliveries after 30 days, Idempotency-Keys past their 24 hours, expired OAuth objects, expired exports. Idempotent. */
export class HousekeepingService {
  constructor(
    private readonly orm: MikroORM,
    private readonly clock: Clock,
  ) {}

  async sweep(): Promise<SweepResult> {
    const em = this.orm.em.fork();
    const now = this.clock.now();
    const dayAgo = new Date(now.getTime() - 86_400_000);
    const count = async (sql: string, params: unknown[]) => (await em.execute<{ id: string }[]>(`${sql} returning 1 as id`, params)).length;
    return {
      verificationEvents: await count('delete from verification_events where expires_at < ?', [dayAgo]),
      accessTokens: await count('delete from access_tokens where expires_at < ? or revoked_at < ?', [dayAgo, dayAgo]),
      rateLimitWindows: await count('delete from rate_limit_windows where window_start < ?', [dayAgo]),
      // Redeemed and expired share-card tickets go at once; delivered events after a week.
      cardTickets: await count('delete from card_tickets where redeemed_at is not null or expires_at < ?', [now]),
      outboxEvents: await count('delete from outbox_events where delivered_at < ?', [new Date(now.getTime() - 7 * 86_400_000)]),
      mail: await count(`delete from mail_outbox where status in ('sent', 'failed') and created_at < ?`, [dayAgo]),
      messengerMessages: await count(`delete from messenger_outbox where status in ('sent', 'failed') and created_at < ?`, [dayAgo]),
      // Webhook deliveries stay visible to their endpoint's owner for 30 days once settled.
      webhookDeliveries: await count(`delete from webhook_deliveries where status in ('delivered', 'failed') and created_at < ?`, [new Date(now.getTime() - 30 * 86_400_000)]),
      // MCP: ended or idle sessions (their grants go with them), dead grants, and spent or expired confirmation tokens at once.
      mcpSessions: await count('delete from mcp_sessions where expires_at < ? or closed_at < ?', [dayAgo, dayAgo]),
      mcpGrants: await count('delete from mcp_grants where expires_at < ? or revoked_at < ?', [dayAgo, dayAgo]),
      mcpConfirmations: await count('delete from mcp_confirmations where consumed_at is not null or expires_at < ?', [now]),
      // Secret-input links a day past their expiry (a spent one stays till then: its page says done).
      mcpSecretInputs: await count('delete from mcp_secret_inputs where expires_at < ?', [dayAgo]),
      // Answer-stream events kept for resumption (minutes).
      mcpEvents: await count('delete from mcp_events where expires_at < ?', [now]),
      idempotencyKeys: await count('delete from idempotency_keys where expires_at <= ?', [now]),
      // The authorization server's expired codes, tokens, interactions and sessions.
      oauthPayloads: await count('delete from oauth_payloads where expires_at < ?', [dayAgo]),
      // Bulk exports past their expiry (their record lists go with them), and failed ones after a day.
      exports: await count(`delete from exports where expires_at < ? or (status = 'failed' and created_at < ?)`, [now, dayAgo]),
    };
  }
}
