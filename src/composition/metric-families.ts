import type { Metric, Registry } from 'prom-client';

/**
 * Counters and histograms for the request path, rendered by a prom-client registry.
 *
 * prom-client's own `Counter` and `Histogram` turn a child's labels into a string key (sorted names
 * and values joined) at every `inc` and `observe`, also for a child made once with `labels()`: on a
 * record read that is served in about 150 µs, that and the allocations are a visible share. Here a
 * family keeps each child (one per set of label values, up to three) as a plain object found through
 * nested maps, so counting allocates nothing; the registry asks `get()` at a scrape and writes the text
 * format itself (escaping included), as for its own metrics.
 */
abstract class Family<Child> {
  readonly aggregator = 'sum';
  private readonly byValues = new Map<string, Map<string, Map<string, Child>>>();
  private readonly made: Child[] = [];

  constructor(
    registry: Registry,
    readonly name: string,
    readonly help: string,
    protected readonly labelNames: readonly string[] = [],
  ) {
    if (labelNames.length > 3) throw new Error(`${name}: at most three labels`);
    registry.registerMetric(this as unknown as Metric);
  }

  /** The child of these label values (missing values: the family has fewer labels), made at its first use. */
  child(a = '', b = '', c = ''): Child {
    let byB = this.byValues.get(a);
    if (byB === undefined) this.byValues.set(a, (byB = new Map<string, Map<string, Child>>()));
    let byC = byB.get(b);
    if (byC === undefined) byB.set(b, (byC = new Map<string, Child>()));
    let child = byC.get(c);
    if (child === undefined) {
      byC.set(c, (child = this.make(Object.fromEntries(this.labelNames.map((label, i) => [label, [a, b, c][i]!])))));
      this.made.push(child);
    }
    return child;
  }

  /** Forgets every child (prom-client's `registry.resetMetrics()`). */
  reset(): void {
    this.byValues.clear();
    this.made.length = 0;
  }

  /** Every child so far, in the order they were made (a family without labels: its one child, 0 before anything is counted, as prom-client renders it). */
  children(): readonly Child[] {
    if (this.labelNames.length === 0 && this.made.length === 0) this.child();
    return this.made;
  }

  protected abstract make(labels: Record<string, string>): Child;
}

export class CounterChild {
  value = 0;
  constructor(readonly labels: Record<string, string>) {}
  inc(by = 1): void {
    this.value += by;
  }
}

/** A Prometheus counter (`name` ends in `_total`). */
export class FastCounter extends Family<CounterChild> {
  readonly type = 'counter';

  protected make(labels: Record<string, string>): CounterChild {
    return new CounterChild(labels);
  }

  inc(by = 1): void {
    this.child().inc(by);
  }

  async get() {
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values: this.children().map((child) => ({ labels: child.labels, value: child.value })) };
  }
}

export class HistogramChild {
  count = 0;
  sum = 0;
  /** Observations per bucket, each counted in the first bucket whose upper bound holds it (made cumulative when rendered). */
  readonly inBucket: Float64Array;

  constructor(
    readonly labels: Record<string, string>,
    private readonly bounds: readonly number[],
  ) {
    this.inBucket = new Float64Array(bounds.length);
  }

  observe(value: number): void {
    this.count += 1;
    this.sum += value;
    const bounds = this.bounds;
    for (let i = 0; i < bounds.length; i++) {
      if (value <= bounds[i]!) {
        this.inBucket[i]! += 1;
        return;
      }
    }
  }
}

/** A Prometheus histogram (`_bucket` with `le`, `_sum`, `_count`). */
export class FastHistogram extends Family<HistogramChild> {
  readonly type = 'histogram';
  private readonly bounds: readonly number[];

  constructor(registry: Registry, name: string, help: string, labelNames: readonly string[], buckets: readonly number[]) {
    super(registry, name, help, labelNames);
    this.bounds = [...buckets].sort((x, y) => x - y);
  }

  protected make(labels: Record<string, string>): HistogramChild {
    return new HistogramChild(labels, this.bounds);
  }

  observe(value: number): void {
    this.child().observe(value);
  }

  async get() {
    const values: { labels: Record<string, string | number>; value: number; metricName: string }[] = [];
    for (const child of this.children()) {
      let cumulative = 0;
      this.bounds.forEach((bound, i) => {
        cumulative += child.inBucket[i]!;
        values.push({ labels: { le: bound, ...child.labels }, value: cumulative, metricName: `${this.name}_bucket` });
      });
      values.push({ labels: { le: '+Inf', ...child.labels }, value: child.count, metricName: `${this.name}_bucket` });
      values.push({ labels: child.labels, value: child.sum, metricName: `${this.name}_sum` });
      values.push({ labels: child.labels, value: child.count, metricName: `${this.name}_count` });
    }
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values };
  }
}

/**
 * A counter family whose values are a histogram's counts (`http_requests_total` beside
 * `http_request_duration_seconds`): one observation moves both, and the counter costs nothing until a scrape.
 */
export function countsOf(registry: Registry, histogram: FastHistogram, name: string, help: string): void {
  const family = {
    name,
    help,
    type: 'counter',
    aggregator: 'sum',
    // Its values are the histogram's: reset with it.
    reset: () => undefined,
    get: async () => ({ name, help, type: 'counter', aggregator: 'sum', values: histogram.children().map((child) => ({ labels: child.labels, value: child.count })) }),
  };
  registry.registerMetric(family as unknown as Metric);
}
