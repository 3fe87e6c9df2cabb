import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { startTestApp, type TestApp } from '../support/harness.js';
import { connectMcp } from '../support/mcp.js';
import { sealTwoPartyAgreement, type SealedAgreement } from '../support/seal-agreement.js';
import { waitFor } from '../support/wait.js';

type Sample = { value?: string; labels?: Record<string, string>; count?: string; sum?: string; buckets?: Record<string, string> };
type Family = { name: string; type: string; metrics: Sample[] };

const TOKEN = 'metrics-token-for-the-outcomes-test-0123456789';

/**
 * The outcome families the services report through the instruments port (src/domain/shared/instruments.ts),
 * read from `/metrics` with an independent parser: a sealed record, with its jobs running, moves the
 * GraphQL and REST operations, the jobs, the seal-to-artifacts histogram, mail and the outbox; an MCP
 * tool call, a refused sign-in code and a rate-limited request are counted by tool and rule; and no
 * label carries an id, a reference or an address.
 */
describe('Prometheus metrics: outcomes', () => {
  let t: TestApp;
  let sealed: SealedAgreement;
  let families: Family[];

  const scrape = async (): Promise<Family[]> => {
    const response = await fetch(`${t.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(response.status).toBe(200);
    return parsePrometheusTextFormat(await response.text());
  };
  const family = (name: string): Family => {
    const found = families.find((candidate) => candidate.name === name);
    if (!found) throw new Error(`no family ${name}`);
    return found;
  };
  const matching = (name: string, labels: Record<string, string>) =>
    family(name).metrics.filter((metric) => Object.entries(labels).every(([key, value]) => metric.labels?.[key] === value));
  /** A counter's value, or a histogram's count, summed over the series with these labels. */
  const total = (name: string, labels: Record<string, string> = {}) =>
    matching(name, labels).reduce((sum, metric) => sum + Number(metric.count ?? metric.value ?? 0), 0);

  beforeAll(async () => {
    t = await startTestApp({ METRICS_TOKEN: TOKEN, JOBS_ENABLED: 'true' });
    sealed = await sealTwoPartyAgreement(t, {}, { initiator: 'outcomes-a@example.com', party: 'outcomes-b@example.com' });
    // The artifacts job has made the PDF (and the card with it).
    await waitFor(async () => (await fetch(`${t.url}/api/v1/agreements/${sealed.id}/document`, { headers: { authorization: `Bearer ${sealed.initiator}` } })).status === 200);
    expect((await t.request('GET', `/api/v1/agreements/${sealed.id}`, { token: sealed.initiator })).status).toBe(200);

    // Over /graphql: a named operation and an anonymous one.
    expect((await t.graphql('query MetricsProbe { __typename }')).status).toBe(200);
    expect((await t.graphql('{ __typename }')).status).toBe(200);

    // An MCP tool call (public verification needs no credentials).
    const mcp = await connectMcp(t.url);
    try {
      expect((await mcp.call('verify_agreement', { agr_reference: sealed.reference })).isError).toBe(false);
    } finally {
      await mcp.close();
    }

    // A wrong sign-in code, refused.
    const requested = await t.request('POST', '/api/v1/verification/request-otp', { body: { email: 'outcomes-c@example.com', purpose: 'authenticate' } });
    expect(requested.status).toBe(200);
    const refused = await t.request('POST', '/api/v1/verification/verify-otp', { body: { verification_event_id: requested.body.verification_event_id, code: '000000' } });
    expect(refused.status).toBe(422);

    // Codes requested for one address past its limit (OTP_REQUESTS_PER_WINDOW, 5): the sixth is refused.
    const statuses: number[] = [];
    for (let i = 0; i < 6; i += 1) {
      statuses.push((await t.request('POST', '/api/v1/verification/request-otp', { body: { email: 'outcomes-d@example.com', purpose: 'authenticate' } })).status);
    }
    expect(statuses.at(-1)).toBe(429);

    // Mail goes out through the queue: the scrape that counts is the one after it and the artifacts job.
    await waitFor(async () => {
      families = await scrape();
      return total('rss_mail_deliveries_total', { outcome: 'sent' }) >= 5 && total('rss_jobs_total', { job: 'sealing.make-artifacts', outcome: 'ok' }) >= 1;
    });
  }, 120_000);
  afterAll(async () => {
    await t.stop();
  });

  it('counts a sealed record: its seal, its artifacts job, the time to its PDF and card, its outbox events and its mail', () => {
    expect(total('rss_seals_total')).toBe(1);
    // Labelled histograms lose their labels in this parser (it flattens them): jobs are read from their counter.
    expect(total('rss_jobs_total', { job: 'sealing.make-artifacts', outcome: 'ok' })).toBeGreaterThanOrEqual(1);
    expect(family('rss_job_duration_seconds').type).toBe('HISTOGRAM');
    expect(family('rss_seal_artifacts_ready_seconds').type).toBe('HISTOGRAM');
    expect(total('rss_seal_artifacts_ready_seconds')).toBe(1);
    expect(total('rss_outbox_deliveries_total', { outcome: 'delivered' })).toBeGreaterThanOrEqual(1);
    // Two sign-ins, two signature codes and the refused sign-in's code; the codes asked for past the limit replace each other.
    expect(total('rss_mail_deliveries_total', { outcome: 'sent' })).toBeGreaterThanOrEqual(5);
    expect(total('rss_mail_deliveries_total', { outcome: 'failed' })).toBe(0);
  });

  it('counts GraphQL operations by name, transport and outcome: over /graphql, through REST and through MCP', () => {
    expect(family('rss_graphql_operations_total').type).toBe('COUNTER');
    expect(total('rss_graphql_operations_total', { operation: 'MetricsProbe', via: 'graphql', outcome: 'ok' })).toBe(1);
    expect(total('rss_graphql_operations_total', { operation: '(anonymous)', via: 'graphql', outcome: 'ok' })).toBe(1);
    // REST runs the catalog's operations in-process: the seal's creation, signatures, reads.
    expect(total('rss_graphql_operations_total', { via: 'rest_api', outcome: 'ok' })).toBeGreaterThanOrEqual(8);
    expect(total('rss_graphql_operations_total', { via: 'rest_api', outcome: 'rate_limited' })).toBe(1);
    expect(total('rss_graphql_operations_total', { via: 'mcp', outcome: 'ok' })).toBeGreaterThanOrEqual(1);
    expect(total('rss_mcp_tool_calls_total', { tool: 'verify_agreement', outcome: 'ok' })).toBe(1);
  });

  it('counts a refused sign-in code, a rate-limited request by its rule, and errors by code', () => {
    expect(total('rss_one_time_codes_total', { purpose: 'authenticate', outcome: 'refused' })).toBe(1);
    expect(total('rss_one_time_codes_total', { purpose: 'authenticate', outcome: 'verified' })).toBeGreaterThanOrEqual(2);
    expect(total('rss_one_time_codes_total', { purpose: 'signature', outcome: 'verified' })).toBe(2);
    expect(total('rss_rate_limit_refusals_total', { rule: 'otp_requests' })).toBe(1);
    expect(total('rss_errors_total', { code: 'rate_limited' })).toBe(1);
    expect(total('rss_errors_total', { code: 'validation_error' })).toBeGreaterThanOrEqual(1);
  });

  it('reports the database pool and how long statements take', () => {
    expect(family('rss_database_statement_duration_seconds').type).toBe('HISTOGRAM');
    expect(total('rss_database_statement_duration_seconds')).toBeGreaterThan(50);
    expect(total('rss_database_pool_connections_in_use')).toBeGreaterThanOrEqual(0);
    expect(total('rss_database_pool_requests_waiting')).toBe(0);
  });

  it('keeps every label value free of ids, references and addresses', () => {
    const values = families.flatMap((candidate) => candidate.metrics.flatMap((metric) => Object.values(metric.labels ?? {})));
    expect(values.length).toBeGreaterThan(50);
    const leaks = values.filter((value) => value.includes('@') || value.includes(sealed.id) || value.includes(sealed.reference) || /[0-9a-f]{8}-[0-9a-f]{4}-/i.test(value));
    expect(leaks).toEqual([]);
  });
});
