import { FreshReads } from '../../src/domain/identity/credential-epoch.js';

describe('FreshReads', () => {
  it('shares one read among callers that arrive before it is sent, and never a read under way with a later caller', async () => {
    const sent: Array<(value: number) => void> = [];
    const reads = new FreshReads(() => new Promise<number>((resolve) => sent.push(resolve)));
    const early = [reads.get(), reads.get()];
    await Promise.resolve();
    await Promise.resolve();
    expect(sent).toHaveLength(1);
    // Arrives while the first read is under way: it waits for a read sent after it arrived.
    const late = [reads.get(), reads.get()];
    expect(sent).toHaveLength(1);
    sent[0]!(1);
    expect(await Promise.all(early)).toEqual([1, 1]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(sent).toHaveLength(2);
    sent[1]!(2);
    expect(await Promise.all(late)).toEqual([2, 2]);
  });

  it('sends the next read after a failed one, and the failure reaches only its own callers', async () => {
    let calls = 0;
    const reads = new FreshReads(async () => {
      calls += 1;
      if (calls === 1) throw new Error('database away');
      return calls;
    });
    await expect(reads.get()).rejects.toThrow('database away');
    await expect(reads.get()).resolves.toBe(2);
  });
});
