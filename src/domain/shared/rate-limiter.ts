import type { EntityManager } from '@mikro-orm/postgresql';
import { preparedQuery } from './sql.js';
import { DomainError } from './errors.js';
import type { Clock } from './clock.js';
import type { Quota } from './quotas.js';
import { noInstruments, type Instruments } from './instruments.js';

/** `name`: what its refusals are counted under (`rss_rate_limit_refusals_total{rule}`), one word per rule, never the key. */
export type RateLimitRule = { limit: number; windowSeconds: number; name?: string };

/** Floating-point slack: a hit exactly at the computed instant passes. */
const EPSILON = 1e-9;

/**
 * Sliding-window counters in PostgreSQL, so that every instance on one database shares them: one
 * atomic conditional upsert into the current fixed window, weighed against the previous window by
 * how much of it still overlaps (no double burst at a window edge). A refused hit is not counted, so
 * a client that keeps trying is not locked out longer, and Retry-After is the moment the next hit
 * really passes. Old windows are swept by a job.
 *
 * Outside a transaction, the hits on one key that arrive while its statement is in flight go
 * together in the next one, which admits as many of them as the window has room for (in the order
 * they came): a client hammering one route costs one statement per round trip, not one per request,
 * and the counts stay exact across instances.
 */
export class RateLimiter {
  /** Per key and rule, the hits waiting for the statement in flight to finish. */
  private readonly queues = new Map<string, Waiter[]>();

  constructor(
    private readonly clock: Clock,
    private readonly instruments: Instruments = noInstruments,
  ) {}

  /**
   * Counts one hit, or throws `rate_limited` (with the seconds until one passes) without counting it.
   * Answers the quota the hit left; `observe` also sees the quota of a refused hit (nothing left).
   */
  async hit(em: EntityManager, key: string, rule: RateLimitRule, what: string, observe?: (quota: Quota) => void): Promise<Quota> {
    const { quota, waitMs } = await new Promise<HitOutcome>((resolve, reject) => this.enqueue(em, key, rule, { resolve, reject }));
    // Here, in the caller's own async context: the quota reaches the request that made this hit.
    observe?.(quota);
    if (waitMs !== null) {
      this.instruments.rateLimited(rule.name ?? 'unnamed');
      throw refusal(what, waitMs);
    }
    return quota;
  }

  private enqueue(em: EntityManager, key: string, rule: RateLimitRule, waiter: Waiter): void {
    // In a transaction the hit belongs to it (it commits or rolls back with the caller's writes).
    if (em.isInTransaction()) {
      void this.count(em, key, rule, [waiter]);
      return;
    }
    const id = `${key}\u0000${rule.limit}/${rule.windowSeconds}`;
    const waiting = this.queues.get(id);
    if (waiting) {
      waiting.push(waiter);
      return;
    }
    const queue = [waiter];
    this.queues.set(id, queue);
    void (async () => {
      while (queue.length > 0) await this.count(em, key, rule, queue.splice(0));
      this.queues.delete(id);
    })();
  }

  /** Counts a batch of hits on one key in one statement and settles each waiter (never throws). */
  private async count(em: EntityManager, key: string, rule: RateLimitRule, batch: Waiter[]): Promise<void> {
    try {
      const window = this.window(rule);
      const { now, overlap } = window;
      const windowMs = rule.windowSeconds * 1000;
      const admitted = admittedCount(rule);
      // Up to `batch.length` hits counted, as many as pass: hits (these included) + previous * overlap <= limit.
      // `granted` keeps how many this statement counted (RETURNING sees only the row as updated).
      // The previous window weighs by its overlap, and not at all once its last hit is a whole window old.
      const [counted] = await preparedQuery<{ hits: number; granted: number; previous: number; last_hit_at: Date | null; previous_last_hit_at: Date | null }>(
        em,
        `with previous as (select coalesce(p.hits, 0) as hits, p.last_hit_at as last from (select 1) one
             left join rate_limit_windows p on p.key = ? and p.window_start = ? and (p.last_hit_at is null or p.last_hit_at > ?::timestamptz))
         insert into rate_limit_windows (key, window_start, hits, granted, last_hit_at)
           select ?, ?, g, g, ?::timestamptz from (select least(?::int, floor(?::float8 - previous.hits * ?::float8))::int as g from previous) fresh where g >= 1
         on conflict (key, window_start) do update
           set hits = rate_limit_windows.hits + least(?::int, floor(?::float8 - rate_limit_windows.hits - (select hits from previous) * ?::float8))::int,
               granted = least(?::int, floor(?::float8 - rate_limit_windows.hits - (select hits from previous) * ?::float8))::int,
               last_hit_at = excluded.last_hit_at
           where rate_limit_windows.hits + 1 + (select hits from previous) * ?::float8 <= ?::float8
         returning hits, granted, last_hit_at, (select hits from previous) as previous, (select last from previous) as previous_last_hit_at`,
        [key, window.previousStart, new Date(now - windowMs), key, window.start, new Date(now), batch.length, admitted, overlap, batch.length, admitted, overlap, batch.length, admitted, overlap, overlap, admitted],
      );
      const granted = counted ? Number(counted.granted) : 0;
      // The hits counted now weigh until a whole window after the current one began.
      const resetSeconds = Math.max(1, Math.ceil((window.start.getTime() + 2 * windowMs - now) / 1000));
      batch.slice(0, granted).forEach((waiter, i) => {
        const used = Number(counted!.hits) - granted + i + 1 + Number(counted!.previous) * overlap;
        waiter.resolve({ quota: { ...quotaOf(rule, resetSeconds), remaining: Math.max(0, Math.floor(rule.limit - used + EPSILON)) }, waitMs: null });
      });
      if (granted === batch.length) return;
      // The window is full: the rest wait until one more hit passes.
      const counts: WindowCounts = counted
        ? { current: Number(counted.hits), previous: Number(counted.previous), currentLastHit: counted.last_hit_at, previousLastHit: counted.previous_last_hit_at }
        : await countsIn(em, key, window, windowMs);
      const passesAt = passesAtAfter(rule, window, counts);
      const quota = { ...quotaOf(rule, Math.max(resetSeconds, Math.ceil((passesAt - now) / 1000))), remaining: 0 };
      for (const waiter of batch.slice(granted)) waiter.resolve({ quota, waitMs: passesAt - now });
    } catch (error) {
      for (const waiter of batch) waiter.reject(error);
    }
  }

  /**
   * For budgets spent only by failures (wrong codes), read in a statement of the caller's own: the
   * window a rule counts in now (the hits of a key at `window_start` = `start`, and at `previousStart`),
   * whose counts `checkCounts` then judges.
   */
  window(rule: RateLimitRule): CountWindow {
    return windowAt(rule, this.clock.now().getTime());
  }

  /** Throws like `hit` would, without counting, on counts read in `window` (null: no row). */
  checkCounts(rule: RateLimitRule, window: CountWindow, counted: WindowCounts, what: string): void {
    const passesAt = passesAtAfter(rule, window, counted);
    if (passesAt > window.now) {
      this.instruments.rateLimited(rule.name ?? 'unnamed');
      throw refusal(what, passesAt - window.now);
    }
  }
}

/** The count a rule admits, with the same slack as `hit` and `checkCounts`: for a statement that weighs a budget itself. */
export function admittedCount(rule: RateLimitRule): number {
  return rule.limit + EPSILON;
}

/** A rule's counting window at one instant: `overlap` is how much of the previous window still weighs. */
export type CountWindow = { now: number; start: Date; previousStart: Date; overlap: number };
/** What one hit came to: the quota it left, and how long until one more passes if it was refused (null: counted). */
type HitOutcome = { quota: Quota; waitMs: number | null };
type Waiter = { resolve: (outcome: HitOutcome) => void; reject: (error: unknown) => void };

function quotaOf(rule: RateLimitRule, resetSeconds: number): Omit<Quota, 'remaining'> {
  return { limit: rule.limit, windowSeconds: rule.windowSeconds, resetSeconds };
}

/**
 * A key's hits in a window and in the one before it (null: no row), and, when known, when each last
 * counted one (a previous window whose last hit is a whole window old is read as empty).
 */
type WindowCounts = { current: number | null; previous: number | null; currentLastHit?: Date | string | null; previousLastHit?: Date | string | null };

/** A rule's counting window at the instant `now` (milliseconds). */
export function windowAt(rule: RateLimitRule, now: number): CountWindow {
  const windowMs = rule.windowSeconds * 1000;
  const start = Math.floor(now / windowMs) * windowMs;
  return { now, start: new Date(start), previousStart: new Date(start - windowMs), overlap: 1 - (now - start) / windowMs };
}

async function countsIn(em: EntityManager, key: string, window: CountWindow, windowMs: number): Promise<WindowCounts> {
  const [row] = await preparedQuery<{ current: number | null; current_last: Date | null; previous: number | null; previous_last: Date | null }>(
    em,
    `select c.hits as current, c.last_hit_at as current_last, p.hits as previous, p.last_hit_at as previous_last from (select 1) one
       left join rate_limit_windows c on c.key = ? and c.window_start = ?
       left join rate_limit_windows p on p.key = ? and p.window_start = ? and (p.last_hit_at is null or p.last_hit_at > ?::timestamptz)`,
    [key, window.start, key, window.previousStart, new Date(window.now - windowMs)],
  );
  return row ? { current: row.current, previous: row.previous, currentLastHit: row.current_last, previousLastHit: row.previous_last } : { current: null, previous: null };
}

/**
 * When one more hit passes, given the window's counts: `window.now` when it passes now. Never more
 * than a window away when the last hits are known: a whole window after the last hit that fills the
 * count, that window weighs nothing (the current one, once it is the previous; or the previous one).
 */
function passesAtAfter(rule: RateLimitRule, window: CountWindow, counted: WindowCounts): number {
  const current = Number(counted.current ?? 0);
  const previous = Number(counted.previous ?? 0);
  const estimate = current + 1 + previous * window.overlap;
  if (estimate <= admittedCount(rule)) return window.now;
  const windowMs = rule.windowSeconds * 1000;
  const lastThatFills = rule.limit - 1 - current >= 0 ? counted.previousLastHit : counted.currentLastHit;
  const forgotten = lastThatFills ? new Date(lastThatFills).getTime() + windowMs : Number.POSITIVE_INFINITY;
  return Math.min(admittedAt(rule, window.start.getTime(), current, previous), forgotten);
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
