import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { Counter, Histogram, Registry } from 'prom-client';
import { countsOf, FastCounter, FastHistogram } from '../../src/composition/metric-families.js';

type Family = { name: string; help: string; type: string; metrics: { value?: string; labels?: Record<string, string>; count?: string; sum?: string; buckets?: Record<string, string> }[] };

const BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
// Boundaries included: a value equal to a bucket's upper bound counts in that bucket (Prometheus's `le`).
const OBSERVED: [string, string, string, number][] = [
  ['GET', '/api/v1/agreements/{agr_id}', '2xx', 0.004],
  ['GET', '/api/v1/agreements/{agr_id}', '2xx', 0.005],
  ['GET', '/api/v1/agreements/{agr_id}', '2xx', 0.3],
  ['GET', '/api/v1/agreements/{agr_id}', '4xx', 11],
  ['POST', '/graphql', '2xx', 0.02],
  ['POST', 'a "quoted\\ route\nwith a line', '5xx', 1],
];

/**
 * The counters and histograms of the request path (metric-families.ts) render, through a prom-client
 * registry, exactly what prom-client's own Counter and Histogram render for the same observations,
 * and an independent parser (a port of the Prometheus Python client's) reads them.
 */
describe('metric families', () => {
  it("render a histogram and its counts as prom-client's own Histogram and Counter do", async () => {
    const ours = new Registry();
    const histogram = new FastHistogram(ours, 'http_request_duration_seconds', 'How long', ['method', 'route', 'status_class'], BUCKETS);
    countsOf(ours, histogram, 'http_requests_total', 'How many');
    const theirs = new Registry();
    const reference = new Histogram({ name: 'http_request_duration_seconds', help: 'How long', labelNames: ['method', 'route', 'status_class'], buckets: BUCKETS, registers: [theirs] });
    const counted = new Counter({ name: 'http_requests_total', help: 'How many', labelNames: ['method', 'route', 'status_class'], registers: [theirs] });
    for (const [method, route, status, seconds] of OBSERVED) {
      histogram.child(method, route, status).observe(seconds);
      reference.labels(method, route, status).observe(seconds);
      counted.labels(method, route, status).inc();
    }
    const text = await ours.metrics();
    expect(text).toBe(await theirs.metrics());

    const families = parsePrometheusTextFormat(text) as Family[];
    expect(families.find((family) => family.name === 'http_request_duration_seconds')?.type).toBe('HISTOGRAM');
    // The parser merges a histogram's labelled series into one: its lines are read here as they are.
    const line = (series: string) => text.split('\n').find((l) => l.startsWith(`http_request_duration_seconds_${series} `))?.split(' ').at(-1);
    const reads = 'method="GET",route="/api/v1/agreements/{agr_id}",status_class="2xx"';
    expect(line(`count{${reads}}`)).toBe('3');
    expect(Number(line(`sum{${reads}}`))).toBeCloseTo(0.309);
    expect(line(`bucket{le="0.005",${reads}}`)).toBe('2');
    expect(line(`bucket{le="0.25",${reads}}`)).toBe('2');
    expect(line(`bucket{le="0.5",${reads}}`)).toBe('3');
    expect(line(`bucket{le="10",method="GET",route="/api/v1/agreements/{agr_id}",status_class="4xx"}`)).toBe('0');
    expect(line(`bucket{le="+Inf",method="GET",route="/api/v1/agreements/{agr_id}",status_class="4xx"}`)).toBe('1');
    expect(text).toContain('route="a \\"quoted\\\\ route\\nwith a line"');
    const requests = families.find((family) => family.name === 'http_requests_total')!;
    expect(requests.type).toBe('COUNTER');
    expect(requests.metrics.map((metric) => [metric.labels?.method, metric.labels?.status_class, metric.value])).toEqual([
      ['GET', '2xx', '3'],
      ['GET', '4xx', '1'],
      ['POST', '2xx', '1'],
      ['POST', '5xx', '1'],
    ]);
  });

  it('render counters with and without labels as prom-client does, 0 before anything is counted', async () => {
    const ours = new Registry();
    const seals = new FastCounter(ours, 'rss_seals_total', 'Sealed');
    const operations = new FastCounter(ours, 'rss_graphql_operations_total', 'Operations', ['operation', 'via', 'outcome']);
    const times = new FastHistogram(ours, 'rss_database_statement_duration_seconds', 'Statements', [], [0.001, 0.01]);
    const theirs = new Registry();
    const referenceSeals = new Counter({ name: 'rss_seals_total', help: 'Sealed', registers: [theirs] });
    const referenceOperations = new Counter({ name: 'rss_graphql_operations_total', help: 'Operations', labelNames: ['operation', 'via', 'outcome'], registers: [theirs] });
    const referenceTimes = new Histogram({ name: 'rss_database_statement_duration_seconds', help: 'Statements', buckets: [0.001, 0.01], registers: [theirs] });
    expect(await ours.metrics()).toBe(await theirs.metrics());

    seals.inc(2);
    referenceSeals.inc(2);
    for (const [operation, via, outcome] of [
      ['GetRecord', 'graphql', 'ok'],
      ['GetRecord', 'rest_api', 'ok'],
      ['GetRecord', 'graphql', 'ok'],
      ['(anonymous)', 'graphql', 'not_found'],
    ] as const) {
      operations.child(operation, via, outcome).inc();
      referenceOperations.labels(operation, via, outcome).inc();
    }
    for (const seconds of [0.0005, 0.002, 0.5]) {
      times.observe(seconds);
      referenceTimes.observe(seconds);
    }
    const text = await ours.metrics();
    expect(text).toBe(await theirs.metrics());
    const families = parsePrometheusTextFormat(text) as Family[];
    expect(families.find((family) => family.name === 'rss_seals_total')?.metrics[0]?.value).toBe('2');
    expect(families.find((family) => family.name === 'rss_graphql_operations_total')?.metrics.find((metric) => metric.labels?.via === 'graphql' && metric.labels.outcome === 'ok')?.value).toBe('2');
    expect(families.find((family) => family.name === 'rss_database_statement_duration_seconds')?.metrics[0]?.buckets).toEqual({ '0.001': '1', '0.01': '2', '+Inf': '3' });
  });

  it("answers prom-client's JSON and reset as its own metrics do", async () => {
    const registry = new Registry();
    const histogram = new FastHistogram(registry, 'http_request_duration_seconds', 'How long', ['method'], [0.1, 1]);
    countsOf(registry, histogram, 'http_requests_total', 'How many');
    const operations = new FastCounter(registry, 'rss_graphql_operations_total', 'Operations', ['operation']);
    histogram.child('GET').observe(0.05);
    operations.child('GetRecord').inc(3);
    const json = await registry.getMetricsAsJSON();
    expect(json.find((metric) => metric.name === 'rss_graphql_operations_total')).toMatchObject({ type: 'counter', values: [{ labels: { operation: 'GetRecord' }, value: 3 }] });
    expect(json.find((metric) => metric.name === 'http_requests_total')).toMatchObject({ type: 'counter', values: [{ labels: { method: 'GET' }, value: 1 }] });
    registry.resetMetrics();
    const after = await registry.metrics();
    expect(after).not.toContain('GetRecord');
    expect(after).not.toContain('method="GET"');
  });

  it('refuses a second family of one name in a registry, as prom-client does', () => {
    const registry = new Registry();
    new FastCounter(registry, 'rss_seals_total', 'Sealed');
    expect(() => new FastCounter(registry, 'rss_seals_total', 'Sealed')).toThrow(/already been registered/);
    expect(() => new Counter({ name: 'rss_seals_total', help: 'Sealed', registers: [registry] })).toThrow(/already been registered/);
  });
});
