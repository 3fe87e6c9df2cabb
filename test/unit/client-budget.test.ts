import { ClientBudget } from '../../src/graph/transport/client-budget.js';

describe('ClientBudget', () => {
  it('admits a client its operations per minute, refuses the next with the seconds until one fits, and slides', () => {
    let now = Date.UTC(2026, 10, 26, 12, 0, 0);
    const budget = new ClientBudget({ perMinute: 10, now: () => now });
    const taken = Array.from({ length: 11 }, () => budget.take('198.51.100.1'));
    expect(taken.map((t) => t.admitted)).toEqual([...Array(10).fill(true), false]);
    expect(taken[9]!.quota).toMatchObject({ limit: 10, windowSeconds: 60, remaining: 0 });
    // Honest: at the next minute the full minute before still weighs all 10; one more fits 6 s into it.
    expect(taken[10]!.quota.resetSeconds).toBe(66);
    // Another client is not affected.
    expect(budget.take('198.51.100.2').admitted).toBe(true);
    const probe = new ClientBudget({ perMinute: 10, now: () => now });
    for (let i = 0; i < 10; i += 1) probe.take('p');
    const start = now;
    now = start + 60_000;
    expect(probe.take('p').admitted).toBe(false);
    now = start + 66_000;
    expect(probe.take('p').admitted).toBe(true);
    now = start;
    // Half a minute into the next window, the previous one weighs half: 5 operations fit again.
    now += 90_000;
    const next = Array.from({ length: 6 }, () => budget.take('198.51.100.1'));
    expect(next.map((t) => t.admitted)).toEqual([true, true, true, true, true, false]);
    // The refusal waits until the previous window weighs little enough for one more (6 s here).
    expect(next[5]!.quota.resetSeconds).toBe(6);
    now += 6_000;
    expect(budget.take('198.51.100.1').admitted).toBe(true);
  });
});
