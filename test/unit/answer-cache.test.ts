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

describe('AnswerCache.remember', () => {
  it('keeps what `keep` makes of the result, nothing when it says null, and nothing loaded across an invalidation', async () => {
    const cache = new AnswerCache<{ bytes: string }>({ ttlMs: 60_000, maxEntries: 10 });
    const reply = { status: 200, body: 'answer' };
    const keep = (result: typeof reply) => (result.status === 200 ? { bytes: result.body } : null);
    expect(await cache.remember('kept', async () => reply, keep)).toBe(reply);
    expect(cache.peek('kept')).toEqual({ bytes: 'answer' });
    expect(cache.has('kept')).toBe(true);
    await cache.remember('refused', async () => ({ status: 404, body: 'no' }), keep);
    expect(cache.has('refused')).toBe(false);

    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const pending = cache.remember('late', async () => (await gate, reply), keep);
    cache.invalidate();
    release();
    expect(await pending).toBe(reply);
    expect(cache.peek('late')).toBeUndefined();
  });

  it('holds at most its byte budget', async () => {
    const cache = new AnswerCache<{ file: Buffer }>({ ttlMs: 60_000, maxEntries: 100, maxSize: 10_000, sizeOf: (answer) => answer.file.length });
    for (let n = 0; n < 10; n += 1) await cache.remember(`key${n}`, async () => n, () => ({ file: Buffer.alloc(3_000) }));
    expect(cache.size).toBe(3);
    // The newest are kept.
    expect(cache.has('key9')).toBe(true);
    expect(cache.has('key0')).toBe(false);
  });
});
