import type { MikroORM } from '@mikro-orm/postgresql';
import { RateLimiter, type RateLimitRule } from '../../src/domain/shared/rate-limiter.js';
import { DomainError } from '../../src/domain/shared/errors.js';
import { ManualClock } from '../support/clock.js';
import { openServiceDatabase } from '../support/service-database.js';

const rule: RateLimitRule = { limit: 5, windowSeconds: 100 };

describe('RateLimiter', () => {
  let orm: MikroORM;
  let close: () => Promise<void>;

  beforeAll(async () => {
    ({ orm, close } = await openServiceDatabase());
  });
  afterAll(async () => {
    await close();
  });

  /** A clock placed `intoWindow` seconds into a fresh window of the rule. */
  function clockAt(intoWindowSeconds: number): ManualClock {
    const clock = new ManualClock();
    const now = clock.now().getTime();
    const windowMs = rule.windowSeconds * 1000;
    const start = Math.floor(now / windowMs) * windowMs + windowMs;
    clock.advance(start - now + intoWindowSeconds * 1000);
    return clock;
  }

  async function attempt(limiter: RateLimiter, key: string): Promise<number | null> {
    try {
      await limiter.hit(orm.em.fork(), key, rule, 'tries');
      return null;
    } catch (error) {
      if (error instanceof DomainError && error.code === 'rate_limited') return error.details.retryAfterSeconds ?? -1;
      throw error;
    }
  }

  it.each([
    ['late in a window (the next window still weighs this one)', 'late', 90],
    ['early in a window', 'early', 5],
  ])('admits a client that waits exactly the given Retry-After: %s', async (_name, key, into) => {
    const clock = clockAt(into);
    const limiter = new RateLimiter(clock);
    for (let i = 0; i < 5; i += 1) expect(await attempt(limiter, key)).toBeNull();
    const retryAfter = await attempt(limiter, key);
    expect(retryAfter).toBeGreaterThan(0);
    clock.advance(retryAfter! * 1000);
    expect(await attempt(limiter, key)).toBeNull();
  });

  it.each([1, 5])('never asks to wait longer than the window, even when the window filled at its start (limit %i)', async (limit) => {
    const tight: RateLimitRule = { limit, windowSeconds: rule.windowSeconds };
    const clock = clockAt(2);
    const limiter = new RateLimiter(clock);
    const tryOnce = () => limiter.hit(orm.em.fork(), `filled-early-${limit}`, tight, 'tries').then(() => null, (error: DomainError) => error.details.retryAfterSeconds!);
    for (let i = 0; i < limit; i += 1) expect(await tryOnce()).toBeNull();
    const retryAfter = (await tryOnce())!;
    // The counted hits are a whole window old after `windowSeconds` (the old estimate said up to two windows).
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(tight.windowSeconds);
    clock.advance((retryAfter - 1) * 1000);
    expect(await tryOnce()).toBeGreaterThan(0);
    clock.advance(1000);
    expect(await tryOnce()).toBeNull();
  });

  it('does not count refused hits: hammering does not extend the lockout', async () => {
    const clock = clockAt(90);
    const limiter = new RateLimiter(clock);
    for (let i = 0; i < 5; i += 1) expect(await attempt(limiter, 'hammer')).toBeNull();
    const first = await attempt(limiter, 'hammer');
    for (let i = 0; i < 20; i += 1) expect(await attempt(limiter, 'hammer')).toBeGreaterThan(0);
    clock.advance(first! * 1000);
    expect(await attempt(limiter, 'hammer')).toBeNull();
  });

  it('says how long to wait, never less than the time the next hit really passes', async () => {
    const clock = clockAt(90);
    const limiter = new RateLimiter(clock);
    for (let i = 0; i < 5; i += 1) await attempt(limiter, 'exact');
    const retryAfter = (await attempt(limiter, 'exact'))!;
    clock.advance((retryAfter - 1) * 1000);
    expect(await attempt(limiter, 'exact')).toBeGreaterThan(0);
  });
  it('counts hits that arrive together in one statement, admitting as many as there is room for, in their order', async () => {
    const limiter = new RateLimiter(clockAt(5));
    const pool = (await orm.em.getConnection().getNativeClient()) as unknown as { query: (...args: unknown[]) => unknown };
    const query = pool.query;
    let statements = 0;
    pool.query = function (this: unknown, ...args: unknown[]) {
      if (JSON.stringify(args[0]).includes('rate_limit_windows')) statements += 1;
      return query.apply(this, args);
    };
    const remaining: number[] = [];
    try {
      const outcomes = await Promise.all(
        Array.from({ length: 12 }, () =>
          limiter.hit(orm.em.fork(), 'together', rule, 'tries', (quota) => remaining.push(quota.remaining)).then(
            () => 'counted',
            (error: DomainError) => error.details.retryAfterSeconds,
          ),
        ),
      );
      expect(outcomes.slice(0, 5)).toEqual(['counted', 'counted', 'counted', 'counted', 'counted']);
      for (const retryAfter of outcomes.slice(5)) expect(retryAfter).toBeGreaterThan(0);
      // Each counted hit has its own place in the window; the refused ones see nothing left.
      expect(remaining.slice(0, 5).sort()).toEqual([0, 1, 2, 3, 4]);
      expect(remaining.slice(5)).toEqual(Array(7).fill(0));
    } finally {
      pool.query = query;
    }
    // The first hit went alone; the eleven that came while it was in flight went together.
    expect(statements).toBeLessThanOrEqual(3);
  });

  it('keeps the count exact when two instances hammer one key at once', async () => {
    const clock = clockAt(5);
    const instances = [new RateLimiter(clock), new RateLimiter(clock)];
    const outcomes = await Promise.all(
      instances.flatMap((limiter) => Array.from({ length: 20 }, () => attempt(limiter, 'shared'))),
    );
    expect(outcomes.filter((outcome) => outcome === null)).toHaveLength(5);
  });

  it('counts a hit in a transaction with the transaction: rolled back, it never happened', async () => {
    const limiter = new RateLimiter(clockAt(5));
    await orm.em
      .fork()
      .transactional(async (em) => {
        for (let i = 0; i < 5; i += 1) await limiter.hit(em, 'rolled-back', rule, 'tries');
        throw new Error('roll back');
      })
      .catch(() => undefined);
    for (let i = 0; i < 5; i += 1) expect(await attempt(limiter, 'rolled-back')).toBeNull();
  });
  it('fails every hit of a batch whose statement fails with the database\'s error, and leaves no hit waiting', async () => {
    const limiter = new RateLimiter(clockAt(5));
    // PostgreSQL refuses a NUL in text: every statement on this key fails.
    const key = 'refused\u0000key';
    const failed = await Promise.allSettled(Array.from({ length: 3 }, () => limiter.hit(orm.em.fork(), key, rule, 'tries')));
    // The database's error, not a refusal with a made-up quota.
    for (const outcome of failed) expect(outcome).toMatchObject({ status: 'rejected', reason: expect.objectContaining({ message: expect.stringMatching(/0x00/) }) });
    // The key's queue was emptied: the next hit runs a statement of its own (and fails the same way).
    await expect(limiter.hit(orm.em.fork(), key, rule, 'tries')).rejects.toThrow(/0x00/);
    expect(await attempt(limiter, 'after-failure')).toBeNull();
  });
});
