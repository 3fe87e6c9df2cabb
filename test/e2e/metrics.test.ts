import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { startTestApp, type TestApp } from '../support/harness.js';
import { sealTwoPartyAgreement } from '../support/seal-agreement.js';

type Family = { name: string; type: string; metrics: { value?: string; labels?: Record<string, string>; count?: string; buckets?: Record<string, string> }[] };

const TOKEN = 'metrics-token-for-the-test-0123456789';

/**
 * `GET /metrics` in the Prometheus text format, read with an independent parser
 * (parse-prometheus-text-format, a port of the Prometheus Python client's): the process's figures,
 * requests by route template, and the backlogs from the database, which a sealed record moves.
 */
describe('Prometheus metrics', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ METRICS_TOKEN: TOKEN });
  });
  afterAll(async () => {
    await t.stop();
  });

  const scrape = async (): Promise<Family[]> => {
    const response = await fetch(`${t.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    return parsePrometheusTextFormat(await response.text());
  };
  const gauge = (families: Family[], name: string, labels: Record<string, string> = {}) =>
    Number(
      families
        .find((family) => family.name === name)
        ?.metrics.find((metric) => Object.entries(labels).every(([key, value]) => metric.labels?.[key] === value))?.value ?? 'NaN',
    );

  it('answers only its bearer token', async () => {
    expect((await fetch(`${t.url}/metrics`)).status).toBe(401);
    expect((await fetch(`${t.url}/metrics`, { headers: { authorization: 'Bearer wrong' } })).status).toBe(401);
    const without = await startTestApp({}, { sameDatabaseAs: t });
    try {
      expect((await fetch(`${without.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } })).status).toBe(404);
    } finally {
      await without.stop();
    }
  });

  it('answers on a port of its own without a token (METRICS_PORT, bound to METRICS_HOST), and then not on the main port', async () => {
    const own = await startTestApp({ METRICS_PORT: '0', METRICS_HOST: '127.0.0.1' }, { sameDatabaseAs: t });
    try {
      expect(own.app.metricsUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      // Each instance counts its own requests only, though both hear the process's HTTP servers.
      expect((await fetch(`${t.url}/api/openapi.json`)).status).toBe(200);
      expect((await fetch(`${own.url}/health/ready`)).status).toBe(200);
      const scraped = await fetch(`${own.app.metricsUrl}/metrics`);
      expect(scraped.status).toBe(200);
      const families = parsePrometheusTextFormat(await scraped.text()) as Family[];
      expect(families.map((family) => family.name)).toEqual(expect.arrayContaining(['rss_sealed_records', 'http_requests_total']));
      const routes = families.find((family) => family.name === 'http_requests_total')!.metrics.map((metric) => metric.labels?.route);
      expect(routes).toContain('/health/ready');
      expect(routes).not.toContain('/api/openapi.json');
      expect((await fetch(`${own.app.metricsUrl}/other`)).status).toBe(404);
      expect((await fetch(`${own.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } })).status).toBe(404);
    } finally {
      await own.stop();
    }
  });

  it("moves the seal and request figures when a record is sealed, under route templates, never ids", async () => {
    const before = await scrape();
    const names = before.map((family) => family.name);
    expect(names).toEqual(
      expect.arrayContaining(['process_cpu_seconds_total', 'process_resident_memory_bytes', 'nodejs_eventloop_lag_seconds', 'nodejs_heap_space_size_used_bytes', 'nodejs_active_handles_total', 'nodejs_version_info', 'http_request_duration_seconds']),
    );
    // prom-client's defaults but its GC durations (a PerformanceObserver that costs reads about 1%: metrics.ts).
    expect(names).not.toContain('nodejs_gc_duration_seconds');
    const sealedBefore = gauge(before, 'rss_sealed_records');
    const waitingBefore = gauge(before, 'rss_seals_waiting_artifacts');

    const sealed = await sealTwoPartyAgreement(t, {}, { initiator: 'metrics-a@example.com', party: 'metrics-b@example.com' });
    expect((await t.request('GET', `/api/v1/agreements/${sealed.id}`, { token: await t.signIn('metrics-a@example.com') })).status).toBe(200);
    const after = await scrape();
    expect(gauge(after, 'rss_sealed_records')).toBe(sealedBefore + 1);
    // Jobs are off here: the seal waits for its PDF and card until they are made.
    expect(gauge(after, 'rss_seals_waiting_artifacts')).toBe(waitingBefore + 1);
    expect(gauge(after, 'rss_anchors', { status: 'pending' })).toBeGreaterThanOrEqual(1);
    // No chain here: the seal stays pending, so the oldest unconfirmed anchor has an age (from its seal).
    expect(gauge(after, 'rss_anchors_oldest_unconfirmed_age_seconds')).toBeGreaterThanOrEqual(0);
    expect(after.map((family) => family.name)).toEqual(expect.arrayContaining(['rss_anchors_oldest_unconfirmed_age_seconds', 'rss_mail_oldest_queued_age_seconds', 'rss_messenger_messages']));
    expect(gauge(after, 'rss_mail_oldest_queued_age_seconds')).toBeGreaterThanOrEqual(0);
    await t.app.services.sealArtifacts.make(sealed.id);
    expect(gauge(await scrape(), 'rss_seals_waiting_artifacts')).toBe(waitingBefore);

    expect(after.find((family) => family.name === 'http_request_duration_seconds')?.type).toBe('HISTOGRAM');
    const requests = after.find((family) => family.name === 'http_requests_total')!;
    expect(requests.type).toBe('COUNTER');
    const routes = requests.metrics.map((metric) => metric.labels?.route ?? '');
    expect(routes).toContain('/api/v1/agreements/{agr_id}');
    expect(routes.every((route) => !route.includes(sealed.id) && !route.includes(sealed.reference) && !route.includes('@'))).toBe(true);
    const read = requests.metrics.find((metric) => metric.labels?.route === '/api/v1/agreements/{agr_id}' && metric.labels.method === 'GET' && metric.labels.status_class === '2xx');
    expect(Number(read?.value)).toBeGreaterThanOrEqual(1);
  }, 60_000);
});
