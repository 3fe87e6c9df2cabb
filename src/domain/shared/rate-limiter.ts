import type { EntityManager } from '@mikro-orm/postgresql';
import { preparedQuery } from '../database.js';
import { DomainError } from './errors.js';
import type { Clock } from './clock.js';
import type { Quota } from './quotas.js';

export type RateLimitRule = { limit: number; windowSeconds: number };

/** Floating-point slack: a hit exactly at the computed instant passes. */
const EPSILON = 1e-9;

/**
 * Sliding-window counters in PostgreSQL, so that every instance on one database shares them: one
 * atomic conditional upsert per hit into the current fixed window, weighed against the previous
 * window by how much of it still overlaps (no double burst at a window edge). A refused hit is not
 * counted, so a client that keeps trying is not locked out longer, and Retry-After is the moment
 * the next hit really passes. Old windows are swept by a job.
 */
export class RateLimiter {
  constructor(private readonly clock: Clock) {}

  /**
   * Counts one hit, or throws `rate_limited` (with the seconds until one passes) without counting it.
   * Answers the quota the hit left; `observe` also sees the quota of a refused hit (nothing left).
   */
  async hit(em: EntityManager, key: string, rule: RateLimitRule, what: string, observe?: (quota: Quota) => void): Promise<Quota> {
    const now = this.clock.now().getTime();
    const windowMs = rule.windowSeconds * 1000;
    const windowStart = Math.floor(now / windowMs) * windowMs;
    const overlap = 1 - (now - windowStart) / windowMs;
    const previousWindow = new Date(windowStart - windowMs);
    // Counted only when it passes: hits (this one included) + previous * overlap <= limit.
    const [counted] = await preparedQuery<{ hits: number; previous: number }>(
      em,
      `with previous as (select coalesce((select hits from rate_limit_windows where key = ? and window_start = ?), 0) as hits)
       insert into rate_limit_windows (key, window_start, hits)
         select ?, ?, 1 from previous where 1 + previous.hits * ?::float8 <= ?::float8
       on conflict (key, window_start) do update set hits = rate_limit_windows.hits + 1
         where rate_limit_windows.hits + 1 + (select hits from previous) * ?::float8 <= ?::float8
       returning hits, (select hits from previous) as previous`,
      [key, previousWindow, key, new Date(windowStart), overlap, rule.limit + EPSILON, overlap, rule.limit + EPSILON],
    );
    // The hits counted now weigh until a whole window after the current one began.
    const resetSeconds = Math.max(1, Math.ceil((windowStart + 2 * windowMs - now) / 1000));
    if (counted) {
      const used = Number(counted.hits) + Number(counted.previous) * overlap;
      const quota = { limit: rule.limit, windowSeconds: rule.windowSeconds, remaining: Math.max(0, Math.floor(rule.limit - used + EPSILON)), resetSeconds };
      observe?.(quota);
      return quota;
    }
    const passesAt = await this.passesAt(em, key, rule, now);
    observe?.({ limit: rule.limit, windowSeconds: rule.windowSeconds, remaining: 0, resetSeconds: Math.max(resetSeconds, Math.ceil((passesAt - now) / 1000)) });
    throw refusal(what, passesAt - now);
  }

  /** Throws like `hit` would, without counting: for budgets spent only by failures (wrong codes). */
  async check(em: EntityManager, key: string, rule: RateLimitRule, what: string): Promise<void> {
    const now = this.clock.now().getTime();
    const passesAt = await this.passesAt(em, key, rule, now);
    if (passesAt > now) throw refusal(what, passesAt - now);
  }

  private async passesAt(em: EntityManager, key: string, rule: RateLimitRule, now: number): Promise<number> {
    const windowMs = rule.windowSeconds * 1000;
    const windowStart = Math.floor(now / windowMs) * windowMs;
    const rows = await preparedQuery<{ current: number | null; previous: number | null }>(
      em,
      `select (select hits from rate_limit_windows where key = ? and window_start = ?) as current,
              (select hits from rate_limit_windows where key = ? and window_start = ?) as previous`,
      [key, new Date(windowStart), key, new Date(windowStart - windowMs)],
    );
    const current = Number(rows[0]?.current ?? 0);
    const previous = Number(rows[0]?.previous ?? 0);
    const estimate = current + 1 + previous * (1 - (now - windowStart) / windowMs);
    return estimate <= rule.limit + EPSILON ? now : admittedAt(rule, windowStart, current, previous);
  }
}

function refusal(what: string, waitMs: number): DomainError {
  const retryAfterSeconds = Math.max(1, Math.ceil(waitMs / 1000));
  return new DomainError('rate_limited', `Too many ${what}; try again in ${retryAfterSeconds} seconds`, { retryAfterSeconds });
}

/**
 * The first instant at which one more hit passes, with no other hits in between. In the current
 * window the previous window's weight fades; once the current window alone is full, the wait runs
 * into the next window, where the current one becomes the fading previous one.
 */
export function admittedAt(rule: RateLimitRule, windowStart: number, current: number, previous: number): number {
  const windowMs = rule.windowSeconds * 1000;
  const room = rule.limit - 1 - current;
  if (room >= 0) return previous <= room ? windowStart : windowStart + windowMs * (1 - room / previous);
  const nextStart = windowStart + windowMs;
  return nextStart + windowMs * (1 - (rule.limit - 1) / current);
}
