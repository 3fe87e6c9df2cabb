import { LRUCache } from 'lru-cache';
import type { Quota } from '../../domain/shared/quotas.js';
import { admittedAt, admittedCount, windowAt, type RateLimitRule } from '../../domain/shared/rate-limiter.js';

/** A client's counts: in the window that began at `start`, and in the one before it. */
type Counts = { start: number; current: number; previous: number };

/**
 * A per-instance budget of GraphQL operations per client network address, sliding over a minute
 * with the same arithmetic as the database-backed RateLimiter (the previous minute weighs by how
 * much of it the window still covers). It guards this instance's CPU, which is why it is counted
 * here and not in the database: parsing and validating documents is this process's work, and 200
 * clients sending them made every other read 150 times slower. At most `maxClients` addresses are
 * remembered (the least recent forgotten first).
 */
export class ClientBudget {
  private readonly counts: LRUCache<string, Counts>;
  private readonly rule: RateLimitRule;

  constructor(
    private readonly deps: {
      perMinute: number;
      /** The time, in milliseconds (default: Date.now). */
      now?: () => number;
      maxClients?: number;
      /** Called on each refusal (counted by the metrics). */
      refused?: () => void;
    },
  ) {
    this.rule = { limit: deps.perMinute, windowSeconds: 60 };
    this.counts = new LRUCache({ max: deps.maxClients ?? 50_000 });
  }

  /** Counts one operation of `client`: its quota after it, and whether it was admitted. */
  take(client: string): { admitted: boolean; quota: Quota } {
    const window = windowAt(this.rule, this.deps.now?.() ?? Date.now());
    const start = window.start.getTime();
    const windowMs = this.rule.windowSeconds * 1000;
    let counts = this.counts.get(client);
    if (!counts || counts.start < start - windowMs) counts = { start, current: 0, previous: 0 };
    else if (counts.start < start) counts = { start, current: 0, previous: counts.current };
    const admitted = counts.current + 1 + counts.previous * window.overlap <= admittedCount(this.rule);
    if (admitted) counts.current += 1;
    else this.deps.refused?.();
    this.counts.set(client, counts);
    const remaining = Math.max(0, Math.floor(this.rule.limit - counts.current - counts.previous * window.overlap));
    // Admitted: when everything counted now has stopped weighing (a whole window after this one began);
    // refused: when one more operation fits.
    const until = admitted ? start + 2 * windowMs : admittedAt(this.rule, start, counts.current, counts.previous);
    const resetSeconds = Math.max(1, Math.ceil((until - window.now) / 1000));
    return { admitted, quota: { limit: this.rule.limit, windowSeconds: this.rule.windowSeconds, remaining, resetSeconds } };
  }
}
