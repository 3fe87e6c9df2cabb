import { madeOnFirstUse } from '../../src/domain/shared/first-use.js';

describe('madeOnFirstUse (the chain connection, the OAuth provider)', () => {
  it('makes the thing once, at the first call, for every caller at once and after', async () => {
    let made = 0;
    const get = madeOnFirstUse(async () => ({ n: ++made }));
    expect(made).toBe(0);
    const [a, b] = await Promise.all([get(), get()]);
    expect(a).toBe(b);
    expect(await get()).toBe(a);
    expect(made).toBe(1);
  });

  it('forgets a failed attempt: the callers of that attempt get its error, the next call tries again', async () => {
    let attempts = 0;
    const get = madeOnFirstUse(async () => {
      attempts += 1;
      if (attempts === 1) throw new Error('the chain is down');
      return 'connected';
    });
    const failed = await Promise.allSettled([get(), get()]);
    expect(failed.map((outcome) => outcome.status)).toEqual(['rejected', 'rejected']);
    expect(attempts).toBe(1);
    await expect(get()).resolves.toBe('connected');
    await expect(get()).resolves.toBe('connected');
    expect(attempts).toBe(2);
  });
});
