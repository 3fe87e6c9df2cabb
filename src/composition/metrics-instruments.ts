import type pg from 'pg';
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { CodeOutcome, Instruments, JobOutcome, MailOutcome, OAuthOutcome, OutboxOutcome } from '../domain/shared/instruments.js';

/** Distinct values one label keeps before the rest count as `other`: a client naming its operations at random cannot grow the registry. */
const LABEL_VALUES_MAX = 200;
/** What a GraphQL name may look like; anything else (never the case after parsing) counts as `other`. */
const GRAPHQL_NAME = /^[_A-Za-z][_0-9A-Za-z]{0,99}$/;

/**
 * The instruments port (src/domain/shared/instruments.ts) over prom-client, registered on `registry`.
 * Each family's children (one per set of label values) are made once and kept (`children`): reporting
 * allocates no label object, no bound function.
 */
export function prometheusInstruments(registry: Registry): Instruments {
  const registers = [registry];
  const graphql = new Counter({
    name: 'rss_graphql_operations_total',
    help: 'GraphQL operations answered by this instance, by operation name (anonymous: "(anonymous)"), transport (graphql, rest, mcp) and outcome (ok or the error code)',
    labelNames: ['operation', 'via', 'outcome'],
    registers,
  });
  const errors = new Counter({ name: 'rss_errors_total', help: 'Errors answered to callers by this instance, by code', labelNames: ['code'], registers });
  const tools = new Counter({ name: 'rss_mcp_tool_calls_total', help: 'MCP tool calls answered by this instance, by tool and outcome (ok or the error_code)', labelNames: ['tool', 'outcome'], registers });
  const jobs = new Counter({ name: 'rss_jobs_total', help: 'Jobs this instance ran, by job name and outcome (ok, failed)', labelNames: ['job', 'outcome'], registers });
  const jobTimes = new Histogram({
    name: 'rss_job_duration_seconds',
    help: 'How long the jobs this instance ran took, by job name and outcome (ok, failed)',
    labelNames: ['job', 'outcome'],
    buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
    registers,
  });
  const outbox = new Counter({ name: 'rss_outbox_deliveries_total', help: 'Outbox events this instance delivered (delivered) or put back for a later attempt (retry)', labelNames: ['outcome'], registers });
  const seals = new Counter({ name: 'rss_seals_total', help: 'Records this instance sealed', registers });
  const artifacts = new Histogram({
    name: 'rss_seal_artifacts_ready_seconds',
    help: 'Time from a seal to its PDF and card stored, observed by the instance that finished them',
    buckets: [1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800, 3600],
    registers,
  });
  const batches = new Histogram({ name: 'rss_anchor_batch_seals', help: 'Seals per anchoring batch this instance prepared', buckets: [1, 2, 5, 10, 20, 50, 100, 200, 500], registers });
  const chainErrors = new Counter({ name: 'rss_anchor_chain_errors_total', help: 'Anchoring attempts of this instance that failed (chain RPC, rejected or replaced transaction, unexpected)', registers });
  const mail = new Counter({ name: 'rss_mail_deliveries_total', help: 'Mail delivery attempts of this instance by outcome (sent, retry, failed: the last attempt failed)', labelNames: ['outcome'], registers });
  const refusals = new Counter({ name: 'rss_rate_limit_refusals_total', help: 'Requests this instance refused for a rate limit, by rule', labelNames: ['rule'], registers });
  const oauth = new Counter({ name: 'rss_oauth_outcomes_total', help: 'OAuth authorization server outcomes on this instance (token_issued, token_refused, consent_given, consent_denied)', labelNames: ['outcome'], registers });
  const codes = new Counter({
    name: 'rss_one_time_codes_total',
    help: 'One-time codes on this instance by purpose (authenticate: sign-in) and outcome (requested, verified, refused)',
    labelNames: ['purpose', 'outcome'],
    registers,
  });
  const operationNames = boundedLabel((name) => GRAPHQL_NAME.test(name));
  const counted = {
    graphql: children((a, b, c) => graphql.labels(a, b, c)),
    errors: children((a) => errors.labels(a)),
    tools: children((a, b) => tools.labels(a, b)),
    jobs: children((a, b) => ({ count: jobs.labels(a, b), time: jobTimes.labels(a, b) })),
    outbox: children((a) => outbox.labels(a)),
    mail: children((a) => mail.labels(a)),
    refusals: children((a) => refusals.labels(a)),
    oauth: children((a) => oauth.labels(a)),
    codes: children((a, b) => codes.labels(a, b)),
  };
  return {
    graphqlOperation: (operation, via, outcome) => counted.graphql(operation === null ? '(anonymous)' : operationNames(operation), via, outcome).inc(),
    errorAnswered: (code) => counted.errors(code).inc(),
    mcpToolCall: (tool, outcome) => counted.tools(tool, outcome).inc(),
    jobFinished: (job: string, outcome: JobOutcome, seconds: number) => {
      const child = counted.jobs(job, outcome);
      child.count.inc();
      child.time.observe(seconds);
    },
    outboxDeliveries: (outcome: OutboxOutcome, count: number) => counted.outbox(outcome).inc(count),
    sealed: (count) => seals.inc(count),
    artifactsReady: (seconds) => artifacts.observe(seconds),
    anchorBatch: (size) => batches.observe(size),
    chainError: () => chainErrors.inc(),
    mail: (outcome: MailOutcome) => counted.mail(outcome).inc(),
    rateLimited: (rule) => counted.refusals(rule).inc(),
    oauth: (outcome: OAuthOutcome) => counted.oauth(outcome).inc(),
    oneTimeCode: (purpose: string, outcome: CodeOutcome) => counted.codes(purpose, outcome).inc(),
  };
}

/**
 * A family's children by their label values (up to three), each made once: prom-client's `labels()`
 * makes a labels object and a bound function at every call. The values are from small sets (bounded
 * where a caller names them), so the map stays small.
 */
export function children<T>(make: (a: string, b: string, c: string) => T): (a: string, b?: string, c?: string) => T {
  const made = new Map<string, T>();
  return (a, b = '', c = '') => {
    const key = `${a}\u0000${b}\u0000${c}`;
    let child = made.get(key);
    if (child === undefined) made.set(key, (child = make(a, b, c)));
    return child;
  };
}

/** A label whose values come from callers: the first LABEL_VALUES_MAX acceptable ones are kept, the rest are `other`. */
function boundedLabel(acceptable: (value: string) => boolean): (value: string) => string {
  const seen = new Set<string>();
  return (value) => {
    if (seen.has(value)) return value;
    if (seen.size >= LABEL_VALUES_MAX || !acceptable(value)) return 'other';
    seen.add(value);
    return value;
  };
}

/**
 * The ORM's connection pool: connections in use and requests waiting for one (read at each scrape),
 * and every statement's time on its connection (from sending it to its answer, the wait for a
 * connection excluded), timed by wrapping each connection's `query` once, at its first checkout.
 */
export function observePool(registry: Registry, pool: pg.Pool): void {
  const registers = [registry];
  new Gauge({ name: 'rss_database_pool_connections_in_use', help: 'Connections of this instance\'s database pool checked out now', registers, collect() { this.set(pool.totalCount - pool.idleCount); } });
  new Gauge({ name: 'rss_database_pool_connections_idle', help: 'Open connections of this instance\'s database pool that are idle', registers, collect() { this.set(pool.idleCount); } });
  new Gauge({ name: 'rss_database_pool_requests_waiting', help: 'Requests of this instance waiting for a database connection now', registers, collect() { this.set(pool.waitingCount); } });
  const statements = new Histogram({
    name: 'rss_database_statement_duration_seconds',
    help: 'SQL statements this instance ran on its database pool, and how long each took',
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10],
    registers,
  });
  const timed = new WeakSet<pg.PoolClient>();
  pool.on('acquire', (client) => {
    if (timed.has(client)) return;
    timed.add(client);
    timeStatements(client, (seconds) => statements.observe(seconds));
  });
}

type Query = (config: unknown, values?: unknown, callback?: unknown) => unknown;

/** Times each statement of one connection: its promise (Kysely) or its callback (pg-pool's `query`); a submittable (cursor) is not timed. */
function timeStatements(client: pg.PoolClient, observe: (seconds: number) => void): void {
  const query = client.query.bind(client) as Query;
  (client as unknown as { query: Query }).query = (config, values, callback) => {
    if (typeof (config as { submit?: unknown } | null)?.submit === 'function') return query(config, values, callback);
    const start = performance.now();
    const done = () => observe((performance.now() - start) / 1000);
    if (typeof callback === 'function') {
      return query(config, values, (error: unknown, result: unknown) => {
        done();
        (callback as (error: unknown, result: unknown) => void)(error, result);
      });
    }
    if (typeof values === 'function') {
      return query(config, (error: unknown, result: unknown) => {
        done();
        (values as (error: unknown, result: unknown) => void)(error, result);
      });
    }
    const result = query(config, values);
    if (result instanceof Promise) result.then(done, done);
    return result;
  };
}
