import { LRUCache } from 'lru-cache';
import type { Quota } from '../../domain/shared/quotas.js';

type Windows = { start: number; current: number; previous: number };

/**
 * A per-instance budget of GraphQL operations per client network address, sliding over a minute
 * (the previous minute weighs by how much of it the window still covers). It guards this instance's
 * CPU, which is why it is counted here and not in the database: parsing and validating documents is
 * this process's work, and 200 clients sending them made every other read 150 times slower. At most
 * `maxClients` addresses are remembered (the least recent forgotten first).
 */
export class ClientBudget {
  private readonly windows: LRUCache<string, Windows>;

  constructor(
    private readonly perMinute: number,
    private readonly now: () => number = Date.now,
    maxClients = 50_000,
  ) {
    this.windows = new LRUCache({ max: maxClients });
  }

  /** Counts one operation of `client`: its quota after it, and whether it was admitted. */
  take(client: string): { admitted: boolean; quota: Quota } {
    const now = this.now();
    const start = Math.floor(now / 60_000) * 60_000;
    let windows = this.windows.get(client);
    if (!windows || windows.start < start - 60_000) windows = { start, current: 0, previous: 0 };
    else if (windows.start < start) windows = { start, current: 0, previous: windows.current };
    const overlap = 1 - (now - start) / 60_000;
    const weighed = () => windows.current + windows.previous * overlap;
    const admitted = weighed() + 1 <= this.perMinute;
    if (admitted) windows.current += 1;
    this.windows.set(client, windows);
    const remaining = Math.max(0, Math.floor(this.perMinute - weighed()));
    // Admitted: when everything counted now has stopped weighing (a whole window after this one began);
    // refused: when one more operation fits.
    const resetSeconds = admitted ? Math.max(1, Math.ceil((start + 120_000 - now) / 1000)) : this.secondsUntilRoom(windows, start, now);
    return { admitted, quota: { limit: this.perMinute, windowSeconds: 60, remaining, resetSeconds } };
  }

  /** Seconds until one more operation fits: the previous minute's weight shrinks as time passes. */
  private secondsUntilRoom(windows: Windows, start: number, now: number): number {
    if (windows.current + 1 > this.perMinute) return Math.max(1, Math.ceil((start + 60_000 - now) / 1000));
    // current + previous * (1 - (t - start) / 60 s) + 1 <= limit, solved for t.
    const t = start + 60_000 * (1 - (this.perMinute - 1 - windows.current) / windows.previous);
    return Math.max(1, Math.ceil((t - now) / 1000));
  }
}
