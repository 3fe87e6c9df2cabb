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
});
