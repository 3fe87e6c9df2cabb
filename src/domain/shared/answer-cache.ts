import { LRUCache } from 'lru-cache';

export type AnswerCacheSettings<T> = {
  ttlMs: number;
  maxEntries: number;
  /** A budget in the units of `sizeOf` (e.g. records held), for answers of very different sizes. */
  maxSize?: number;
  sizeOf?: (answer: T) => number;
};

/**
 * Answers that only change together with a domain event, kept in memory. `invalidate()` drops them
 * all: the composition root calls it when this instance commits events and when any instance's
 * events arrive over LISTEN/NOTIFY; the TTL bounds what a lost notification could leave behind.
 * A load that began before an invalidation is not stored (it may have read the old state).
 */
export class AnswerCache<T extends object> {
  private readonly entries: LRUCache<string, T>;
  private generation = 0;

  constructor(settings: AnswerCacheSettings<T>) {
    const { sizeOf, maxSize } = settings;
    this.entries = new LRUCache<string, T>({
      max: settings.maxEntries,
      ttl: settings.ttlMs,
      ...(sizeOf && maxSize ? { maxSize, sizeCalculation: (answer: T) => Math.max(1, sizeOf(answer)) } : {}),
    });
  }

  /** The cached answer, or `load()`'s, stored when `cacheable` says it can only change with an event. */
  async get(key: string, load: () => Promise<T>, cacheable: (answer: T) => boolean): Promise<T> {
    return this.entries.get(key) ?? this.remember(key, load, (answer) => (cacheable(answer) ? answer : null));
  }

  /**
   * Runs `load` and keeps what `keep` makes of its result (null: nothing), unless an invalidation came
   * meanwhile: for callers whose result is not itself the kept answer (a reply kept only as bytes, only when final).
   */
  async remember<R>(key: string, load: () => Promise<R>, keep: (result: R) => T | null): Promise<R> {
    const generation = this.generation;
    const result = await load();
    if (generation !== this.generation) return result;
    const kept = keep(result);
    if (kept !== null) this.entries.set(key, kept);
    return result;
  }

  /** The answer kept for this key now, without loading one (an answer served before its framework: see kept-public-answers.ts). */
  peek(key: string): T | undefined {
    return this.entries.get(key);
  }

  /** Whether an answer is kept for this key now (expired ones are not). */
  has(key: string): boolean {
    return this.entries.has(key);
  }

  /** Entries up to this many are dropped one by one; more, all at once. */
  private static readonly DELETE_ONE_BY_ONE = 256;

  invalidate(): void {
    this.generation += 1;
    const { size } = this.entries;
    if (size === 0) return;
    // `clear()` walks every slot of the capacity (10,000 for record reads), and this runs on every
    // commit: a few entries cost a few deletes.
    if (size <= AnswerCache.DELETE_ONE_BY_ONE) for (const key of [...this.entries.keys()]) this.entries.delete(key);
    else this.entries.clear();
  }

  /** Answers held now (tests). */
  get size(): number {
    return this.entries.size;
  }
}
