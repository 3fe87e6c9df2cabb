import { AnswerCache } from '../../src/domain/shared/answer-cache.js';

const fill = async (cache: AnswerCache<{ n: number }>, count: number) => {
  for (let n = 0; n < count; n += 1) await cache.get(`key${n}`, async () => ({ n }), () => true);
};

describe('AnswerCache.invalidate', () => {
  it.each([1, 3, 256, 257, 2_000])('drops all of %i answers, and the next read loads again', async (count) => {
    const cache = new AnswerCache<{ n: number }>({ ttlMs: 60_000, maxEntries: 10_000 });
    await fill(cache, count);
    expect(cache.size).toBe(count);
    cache.invalidate();
    expect(cache.size).toBe(0);
    for (const n of new Set([0, count - 1])) {
      let loaded = false;
      const answer = await cache.get(`key${n}`, async () => ((loaded = true), { n: -1 }), () => true);
      expect({ loaded, answer }).toEqual({ loaded: true, answer: { n: -1 } });
    }
  });

  it('does not keep an answer whose load began before an invalidation, even on an empty cache', async () => {
    const cache = new AnswerCache<{ n: number }>({ ttlMs: 60_000, maxEntries: 10 });
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const pending = cache.get('key', async () => (await gate, { n: 1 }), () => true);
    cache.invalidate();
    release();
    expect(await pending).toEqual({ n: 1 });
    expect(cache.size).toBe(0);
  });
});
