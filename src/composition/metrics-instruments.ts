import type pg from 'pg';
import { Gauge, type Registry } from 'prom-client';
import type { CodeOutcome, Instruments, JobOutcome, MailOutcome, OAuthOutcome, OutboxOutcome, SealCompletionOutcome } from '../domain/shared/instruments.js';
import { FastCounter, FastHistogram } from './metric-families.js';

/** Distinct values one label keeps before the rest count as `other`: a client naming its operations at random cannot grow the registry. */
const LABEL_VALUES_MAX = 200;
/** What a GraphQL name may look like; anything else (never the case after parsing) counts as `other`. */
const GRAPHQL_NAME = /^[_A-Za-z][_0-9A-Za-z]{0,99}$/;

/**
 * The instruments port (src/domain/shared/instruments.ts) over counters and histograms rendered by the
 * prom-client `registry` (metric-families.ts: each child made once, nothing allocated a report).
 */
export function prometheusInstruments(registry: Registry): Instruments {
  const graphql = new FastCounter(
    registry,
    'rss_graphql_operations_total',
    'GraphQL operations answered by this instance, by operation name (anonymous: "(anonymous)"), transport (graphql, rest, mcp) and outcome (ok or the error code)',
    ['operation', 'via', 'outcome'],
  );
  const errors = new FastCounter(registry, 'rss_errors_total', 'Errors answered to callers by this instance, by code', ['code']);
  const tools = new FastCounter(registry, 'rss_mcp_tool_calls_total', 'MCP tool calls answered by this instance, by tool and outcome (ok or the error_code)', ['tool', 'outcome']);
  const jobs = new FastCounter(registry, 'rss_jobs_total', 'Jobs this instance ran, by job name and outcome (ok, failed)', ['job', 'outcome']);
  const jobTimes = new FastHistogram(
    registry,
    'rss_job_duration_seconds',
    'How long the jobs this instance ran took, by job name and outcome (ok, failed)',
    ['job', 'outcome'],
    [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
  );
  const outbox = new FastCounter(registry, 'rss_outbox_deliveries_total', 'Outbox events this instance delivered (delivered) or put back for a later attempt (retry)', ['outcome']);
  const seals = new FastCounter(registry, 'rss_seals_total', 'Records this instance sealed');
  const artifacts = new FastHistogram(
    registry,
    'rss_seal_artifacts_ready_seconds',
    'Time from a seal to its PDF and card stored, observed by the instance that finished them',
    [],
    [1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800, 3600],
  );
  const degraded = new FastCounter(registry, 'rss_seals_degraded_total', 'Sealed PDFs this instance made below B-LTA because their timestamp authorities or revocation servers did not answer, by the level reached (B-B, B-T, B-LT)', ['level']);
  const completions = new FastCounter(
    registry,
    'rss_seal_completions_total',
    'Attempts of this instance to complete a degraded seal, by outcome (completed: B-LTA now; improved: a better level, still lacking; failed: nothing stored)',
    ['outcome'],
  );
  const batches = new FastHistogram(registry, 'rss_anchor_batch_seals', 'Seals per anchoring batch this instance prepared', [], [1, 2, 5, 10, 20, 50, 100, 200, 500]);
  const chainErrors = new FastCounter(registry, 'rss_anchor_chain_errors_total', 'Anchoring attempts of this instance that failed (chain RPC, rejected or replaced transaction, unexpected)');
  const mail = new FastCounter(registry, 'rss_mail_deliveries_total', 'Mail delivery attempts of this instance by outcome (sent, retry, failed: the last attempt failed)', ['outcome']);
  const refusals = new FastCounter(registry, 'rss_rate_limit_refusals_total', 'Requests this instance refused for a rate limit, by rule', ['rule']);
  const oauth = new FastCounter(registry, 'rss_oauth_outcomes_total', 'OAuth authorization server outcomes on this instance (token_issued, token_refused, consent_given, consent_denied)', ['outcome']);
  const codes = new FastCounter(registry, 'rss_one_time_codes_total', 'One-time codes on this instance by purpose (authenticate: sign-in) and outcome (requested, verified, refused)', ['purpose', 'outcome']);
  const operationNames = boundedLabel((name) => GRAPHQL_NAME.test(name));
  return {
    graphqlOperation: (operation, via, outcome) => graphql.child(operation === null ? '(anonymous)' : operationNames(operation), via, outcome).inc(),
    errorAnswered: (code) => errors.child(code).inc(),
    mcpToolCall: (tool, outcome) => tools.child(tool, outcome).inc(),
    jobFinished: (job: string, outcome: JobOutcome, seconds: number) => {
      jobs.child(job, outcome).inc();
      jobTimes.child(job, outcome).observe(seconds);
    },
    outboxDeliveries: (outcome: OutboxOutcome, count: number) => outbox.child(outcome).inc(count),
    sealed: (count) => seals.inc(count),
    artifactsReady: (seconds) => artifacts.observe(seconds),
    sealDegraded: (level) => degraded.child(level).inc(),
    sealCompletion: (outcome: SealCompletionOutcome) => completions.child(outcome).inc(),
    anchorBatch: (size) => batches.observe(size),
    chainError: () => chainErrors.inc(),
    mail: (outcome: MailOutcome) => mail.child(outcome).inc(),
    rateLimited: (rule) => refusals.child(rule).inc(),
    oauth: (outcome: OAuthOutcome) => oauth.child(outcome).inc(),
    oneTimeCode: (purpose: string, outcome: CodeOutcome) => codes.child(purpose, outcome).inc(),
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
  const statements = new FastHistogram(
    registry,
    'rss_database_statement_duration_seconds',
    'SQL statements this instance ran on its database pool, and how long each took',
    [],
    [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10],
  ).child();
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
