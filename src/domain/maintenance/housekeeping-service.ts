import type { MikroORM } from '@mikro-orm/postgresql';
import type { Clock } from '../shared/clock.js';

export type SweepResult = { verificationEvents: number; accessTokens: number; rateLimitWindows: number };

/** Deletes what has outlived its use: spent or expired codes, dead sessions, old rate-limit windows. Idempotent. */
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
    };
  }
}
