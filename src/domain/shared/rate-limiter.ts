import type { EntityManager } from '@mikro-orm/postgresql';
import { DomainError } from './errors.js';
import type { Clock } from './clock.js';

export type RateLimitRule = { limit: number; windowSeconds: number };

/**
 * Sliding-window counters in PostgreSQL, so that every instance on one database shares them: one
 * atomic upsert per hit into the current fixed window, weighed against the previous window by how
 * much of it still overlaps (no double burst at a window edge). Old windows are swept by a job.
 */
export class RateLimiter {
  constructor(private readonly clock: Clock) {}

  async hit(em: EntityManager, key: string, rule: RateLimitRule, what: string): Promise<void> {
    const now = this.clock.now().getTime();
    const windowMs = rule.windowSeconds * 1000;
    const windowStart = Math.floor(now / windowMs) * windowMs;
    const rows = await em.execute<{ hits: number; previous: number | null }[]>(
      `with current as (
         insert into rate_limit_windows (key, window_start, hits) values (?, ?, 1)
         on conflict (key, window_start) do update set hits = rate_limit_windows.hits + 1
         returning hits)
       select current.hits, (select hits from rate_limit_windows where key = ? and window_start = ?) as previous
         from current`,
      [key, new Date(windowStart), key, new Date(windowStart - windowMs)],
    );
    const overlap = 1 - (now - windowStart) / windowMs;
    const estimate = Number(rows[0]?.hits ?? 0) + Number(rows[0]?.previous ?? 0) * overlap;
    if (estimate > rule.limit) {
      const retryAfterSeconds = Math.max(1, Math.ceil((windowStart + windowMs - now) / 1000));
      throw new DomainError('rate_limited', `Too many ${what}; try again in ${retryAfterSeconds} seconds`, {
        retryAfterSeconds,
      });
    }
  }
}
