import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';

/**
 * One render thread per core the API thread leaves free, at least one and at most four. On two cores a
 * second thread buys no throughput (the API thread, PostgreSQL and the chain share them) and costs
 * about 90 MiB of resident memory while sealing (npm run bench).
 */
export const defaultSealWorkers = Math.min(4, Math.max(1, os.availableParallelism() - 1));

/**
 * The environment, parsed and validated once. Every variable is documented in docs/configuration.md
 * (test/unit/docs.test.ts checks its table against this schema); a bad value stops start-up with a
 * message naming the variable.
 */
const bool = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((value) => value === 'true' || value === '1' || value === 'yes');
const seconds = z.coerce.number().int().positive();

const schema = z.object({
  NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().min(1).default('127.0.0.1'),
  PUBLIC_BASE_URL: z.url().optional(),
  DATABASE_URL: z.string().regex(/^postgres(ql)?:\/\//, 'must be a postgres:// URL'),
  DATABASE_POOL_MAX: z.coerce.number().int().min(1).max(100).default(10),
  // Set when DATABASE_URL is a pooler in transaction mode (PgBouncer): what needs a session of its own goes here.
  DATABASE_DIRECT_URL: z.string().regex(/^postgres(ql)?:\/\//, 'must be a postgres:// URL').optional(),
  // At start-up, how long to wait for PostgreSQL (retrying with backoff, readiness 503) before giving up; 0: not at all.
  DATABASE_START_TIMEOUT_SECONDS: z.coerce.number().int().min(0).max(3600).default(300),
  DATABASE_ACQUIRE_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(10_000),
  DATABASE_STATEMENT_TIMEOUT_MS: z.coerce.number().int().min(0).max(3_600_000).default(30_000),
  DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS: z.coerce.number().int().min(0).max(3_600_000).default(60_000),
  MIGRATE_ON_START: bool.default(true),
  SMTP_URL: z.string().regex(/^smtps?:\/\//, 'must be an smtp:// or smtps:// URL').optional(),
  MAIL_FROM: z.string().min(3).default('Record Signing <no-reply@localhost>'),
  MAIL_OUTBOX_DIR: z.string().default('.local/outbox'),
  GRAPHQL_INTROSPECTION: bool.optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  MONGODB_URL: z.string().regex(/^mongodb(\+srv)?:\/\//, 'must be a mongodb:// URL').optional(),
  JOBS_ENABLED: bool.default(true),
  JOB_LOCK_SECONDS: z.coerce.number().int().min(1).max(3600).default(30),
  SERVER_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
  // GET /metrics (Prometheus text format) for this bearer token; unset: not served.
  METRICS_TOKEN: z.string().min(16, 'must be at least 16 characters').optional(),
  // Or on a port of its own, without a token, bound to METRICS_HOST (a private address).
  METRICS_PORT: z.coerce.number().int().min(0).max(65535).optional(),
  METRICS_HOST: z.string().min(1).default('127.0.0.1'),
  // OpenTelemetry traces (OTLP/HTTP) to this collector; unset: tracing is off and not loaded. The SDK reads
  // the other OTEL_* variables itself (headers, sampler, resource attributes).
  OTEL_EXPORTER_OTLP_ENDPOINT: z.url({ protocol: /^https?$/ }).optional(),
  OTEL_SERVICE_NAME: z.string().min(1).default('record-signing-service'),
  REQUEST_TIMEOUT_SECONDS: z.coerce.number().int().min(1).max(600).default(20),
  // On SIGTERM: how long the listener keeps serving while readiness says 503, and how long the whole stop may take.
  SHUTDOWN_DRAIN_MS: z.coerce.number().int().min(0).max(600_000).default(5000),
  SHUTDOWN_TIMEOUT_MS: z.coerce.number().int().min(1000).max(3_600_000).default(30_000),
  GRAPHQL_OPERATIONS_PER_MINUTE: z.coerce.number().int().min(1).max(1_000_000).default(600),
  // graphql-ws on /graphql: open sockets in all and per client address, and how long an idle one stays.
  WS_MAX_CONNECTIONS: z.coerce.number().int().min(1).max(100_000).default(2000),
  WS_MAX_CONNECTIONS_PER_CLIENT: z.coerce.number().int().min(1).max(100_000).default(50),
  WS_IDLE_SECONDS: z.coerce.number().int().min(1).max(86_400).default(60),
  OTP_TTL_SECONDS: seconds.default(600),
  OTP_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(20).default(5),
  OTP_REQUESTS_PER_WINDOW: z.coerce.number().int().min(1).default(5),
  OTP_REQUEST_WINDOW_SECONDS: seconds.default(900),
  OTP_FAILURES_PER_DAY: z.coerce.number().int().min(1).default(20),
  CLIENT_CODE_CALLS_PER_HOUR: z.coerce.number().int().min(1).default(60),
  CLIENT_VERIFICATIONS_PER_MINUTE: z.coerce.number().int().min(1).default(60),
  OAUTH_REGISTRATIONS_PER_HOUR: z.coerce.number().int().min(1).default(20),
  OAUTH_CONSENT_TTL_SECONDS: z.coerce.number().int().min(60).max(3600).default(900),
  // Client ID Metadata Documents: a client_id that is an https URL is resolved by fetching it.
  OAUTH_CLIENT_METADATA_DOCUMENTS: bool.default(true),
  // Hosts (host or host:port) whose documents are fetched though they resolve to a private address, and a PEM file of
  // further CAs trusted for them (a private network's clients, the tests' own).
  OAUTH_CLIENT_METADATA_ALLOWED_HOSTS: z.string().optional(),
  OAUTH_CLIENT_METADATA_CA_FILE: z.string().optional(),
  ACCESS_TOKEN_TTL_SECONDS: seconds.default(3600),
  // In-memory caches (0 turns one off): public answers of sealed records, resolved credentials, identities' record listings and record reads.
  PUBLIC_ANSWER_CACHE_SECONDS: z.coerce.number().int().min(0).max(3600).default(30),
  LISTING_CACHE_SECONDS: z.coerce.number().int().min(0).max(300).default(10),
  RECORD_CACHE_SECONDS: z.coerce.number().int().min(0).max(300).default(10),
  PRINCIPAL_CACHE_SECONDS: z.coerce.number().int().min(0).max(300).default(10),
  DEFAULT_LAPSE_DAYS: z.coerce.number().int().min(1).max(30).default(14),
  // Reminders to participants who have not signed (0 days between reminders turns them off service-wide).
  REMINDER_EVERY_DAYS: z.coerce.number().int().min(0).max(30).default(3),
  REMINDER_BEFORE_EXPIRY_DAYS: z.coerce.number().int().min(0).max(30).default(1),
  REMINDER_MAX_PER_PARTY: z.coerce.number().int().min(0).max(20).default(3),
  // Bulk exports: how long a ready export can be downloaded (its links are single-use, CARD_TICKET_TTL_SECONDS each).
  EXPORT_TTL_SECONDS: z.coerce.number().int().min(60).max(30 * 24 * 3600).default(24 * 3600),
  EXPORT_MAX_RECORDS: z.coerce.number().int().min(1).max(100_000).default(10_000),
  METHOD_STARTS_PER_WINDOW: z.coerce.number().int().min(1).default(10),
  INVITATION_RESENDS_PER_HOUR: z.coerce.number().int().min(1).default(3),
  // Public proof-post providers: API bases (page hosts derive from them, see proof-post.ts).
  CODEHOST_API_BASE: z.url({ protocol: /^https?$/ }).default('https://api.codehost.example'),
  MICROBLOG_API_BASE: z.url({ protocol: /^https?$/ }).default('https://microblog.example'),
  FORUM_API_BASE: z.url({ protocol: /^https?$/ }).default('https://forum.example'),
  PROOF_FETCH_ALLOW_LOOPBACK: bool.default(false),
  PROOF_FETCHES_PER_WINDOW: z.coerce.number().int().min(1).default(20),
  // Telegram's secret-token alphabet; long enough not to be guessed.
  MESSENGER_WEBHOOK_SECRET: z.string().regex(/^[A-Za-z0-9_-]{16,256}$/, 'must be 16..256 characters of A-Z, a-z, 0-9, _ and -').optional(),
  MESSENGER_BOT_USERNAME: z.string().regex(/^@?[A-Za-z0-9_]{3,64}$/, 'must be a bot username such as record_signing_bot').default('record_signing_bot'),
  MESSENGER_LINK_BASE: z.url().default('https://t.me'),
  MESSENGER_API_BASE: z.url().default('https://api.messenger.example'),
  MESSENGER_BOT_TOKEN: z.string().min(10).optional(),
  MESSENGER_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(50).default(8),
  WEBAUTHN_RP_ID: z.string().regex(/^[a-z0-9.-]+$/i, 'must be a host name such as sign.example.com').optional(),
  WEBAUTHN_RP_NAME: z.string().min(1).max(100).default('Record Signing'),
  WEBAUTHN_ORIGIN: z.url().optional(),
  // Where development state lives (the seal key made on first start, the embedded chain's registry address).
  LOCAL_STATE_DIR: z.string().default('.local'),
  OUTBOX_POLL_MS: z.coerce.number().int().min(10).max(60_000).default(1000),
  MAIL_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(50).default(8),
  MAIL_POLL_MS: z.coerce.number().int().min(10).max(60_000).default(1000),
  MAIL_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(4),
  MAIL_BACKLOG_PER_RECIPIENT: z.coerce.number().int().min(1).max(100_000).default(10),
  MAIL_BACKLOG_PER_CLIENT: z.coerce.number().int().min(1).max(1_000_000).default(50),
  // Webhooks: hosts or networks (CIDR) a non-public or plain-http endpoint may be at; the retry schedule.
  WEBHOOK_ALLOWED_HOSTS: z.string().optional(),
  WEBHOOK_RETRY_SCHEDULE: z.string().regex(/^\s*\d+(ms|s|m|h)(\s*,\s*\d+(ms|s|m|h))*\s*$/, 'must be a comma-separated list of durations such as 5s,1m,2h').optional(),
  WEBHOOK_DISABLE_AFTER_HOURS: z.coerce.number().min(0.001).max(24 * 365).default(120),
  WEBHOOK_CONCURRENCY: z.coerce.number().int().min(1).max(256).default(16),
  WEBHOOK_ENDPOINT_CONCURRENCY: z.coerce.number().int().min(1).max(256).default(4),
  WEBHOOK_OWNER_CONCURRENCY: z.coerce.number().int().min(1).max(1024).default(8),
  WEBHOOK_CONNECT_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(5000),
  WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(15_000),
  WEBHOOK_POLL_MS: z.coerce.number().int().min(10).max(60_000).default(1000),
  // Sealing: the PAdES seal key (PKCS#12); unset in development: a self-signed one under LOCAL_STATE_DIR.
  SEAL_P12_PATH: z.string().min(1).optional(),
  SEAL_P12_PASSWORD: z.string().optional(),
  SEAL_TSA_URLS: z.string().optional(),
  ARCHIVE_RENEW_BEFORE_DAYS: z.coerce.number().int().min(1).max(3650).default(365),
  // A degraded seal (authorities down) is first tried again after this, then at doubling waits up to the bound.
  SEAL_COMPLETION_RETRY_SECONDS: z.coerce.number().int().min(1).max(3600).default(60),
  SEAL_COMPLETION_RETRY_MAX_SECONDS: z.coerce.number().int().min(1).max(7 * 86_400).default(21_600),
  CARD_TICKET_TTL_SECONDS: z.coerce.number().int().min(10).max(3600).default(300),
  SEAL_WORKERS: z.coerce.number().int().min(1).max(32).default(defaultSealWorkers),
  // Anchoring: unset CHAIN_RPC_URL means no chain (the scripts start the embedded one and set it).
  CHAIN_RPC_URL: z.url({ protocol: /^(https?|wss?)$/ }).optional(),
  CHAIN_SIGNER_KEY: z.string().regex(/^0x[0-9a-fA-F]{64}$/, 'must be a 0x-prefixed 32-byte hex private key').optional(),
  CHAIN_REGISTRY_ADDRESS: z.string().regex(/^0x[0-9a-fA-F]{40}$/, 'must be a 0x-prefixed 20-byte hex address').optional(),
  CHAIN_CONFIRMATIONS: z.coerce.number().int().min(1).max(100).optional(),
  CHAIN_EXPLORER_TX_URL: z.string().includes('{tx}', { message: 'must contain {tx}' }).optional(),
  CHAIN_PUBLIC_RPC_URL: z.url({ protocol: /^https?$/ }).optional(),
  CHAIN_NETWORK_NAME: z.string().min(1).max(60).optional(),
  ANCHOR_BATCH_MAX: z.coerce.number().int().min(1).max(1000).default(100),
  ANCHOR_RETRY_MAX_SECONDS: z.coerce.number().int().min(1).default(600),
  // Stuck work (warned in the log, counted in rss_stuck_work, listed by `npm run ops -- status`): how long each may wait.
  STUCK_SEAL_ARTIFACTS_MINUTES: z.coerce.number().int().min(1).max(10_080).default(10),
  STUCK_ANCHORING_MINUTES: z.coerce.number().int().min(1).max(10_080).default(60),
  STUCK_MAIL_MINUTES: z.coerce.number().int().min(1).max(10_080).default(30),
  // MCP (/mcp): DNS-rebinding allow-lists (comma-separated; the defaults are the public base URL and loopback at PORT).
  MCP_ALLOWED_HOSTS: z.string().optional(),
  MCP_ALLOWED_ORIGINS: z.string().optional(),
  MCP_SESSION_IDLE_SECONDS: z.coerce.number().int().min(60).max(30 * 86_400).default(86_400),
  MCP_SESSION_UNUSED_SECONDS: z.coerce.number().int().min(10).max(86_400).default(600),
  MCP_INITIALIZE_PER_MINUTE: z.coerce.number().int().min(1).max(100_000).default(30),
  MCP_MAX_SESSIONS: z.coerce.number().int().min(1).max(10_000_000).default(20_000),
  MCP_GRANT_TTL_SECONDS: z.coerce.number().int().min(10).max(600).default(600),
  MCP_CONFIRMATION_TTL_SECONDS: z.coerce.number().int().min(10).max(3600).default(300),
  MCP_JSON_RESPONSE: bool.default(false),
  MCP_SECRET_INPUT: z.enum(['prefer_url', 'url_only']).default('prefer_url'),
  MCP_SECRET_INPUT_TTL_SECONDS: z.coerce.number().int().min(60).max(600).default(600),
});

/** Every environment variable the service reads (docs/configuration.md and the deployment files are checked against it). */
export const CONFIG_VARIABLES: readonly string[] = Object.keys(schema.shape);

export type Config = {
  env: 'development' | 'test' | 'production';
  port: number;
  host: string;
  publicBaseUrl: string;
  databaseUrl: string;
  /**
   * What needs a session of its own (LISTEN, session advisory locks, the role's timeouts): DATABASE_DIRECT_URL,
   * else DATABASE_URL.
   */
  databaseDirectUrl: string;
  /** DATABASE_URL is a pooler in transaction mode (DATABASE_DIRECT_URL is set): no session state on it. */
  databaseBehindPooler: boolean;
  databasePoolMax: number;
  /** Wait for a pooled connection, PostgreSQL statement_timeout and idle_in_transaction_session_timeout (ms). */
  databaseTimeouts: { acquireTimeoutMs: number; statementTimeoutMs: number; idleInTransactionTimeoutMs: number };
  /** DATABASE_START_TIMEOUT_SECONDS: how long main.ts waits for PostgreSQL at start-up (0: not at all). */
  databaseStartTimeoutSeconds: number;
  migrateOnStart: boolean;
  smtpUrl: string | undefined;
  mailFrom: string;
  mailOutboxDir: string;
  logLevel: string;
  /** Whether `__schema`/`__type` queries are answered (default: not in production). */
  graphqlIntrospection: boolean;
  mongodbUrl: string | undefined;
  jobsEnabled: boolean;
  /** The key of stored code hashes (never logged); unset outside production: generated under LOCAL_STATE_DIR. */
  serverSecret: string | undefined;
  /** The bearer token `GET /metrics` answers to; null: metrics are not served. */
  metricsToken: string | null;
  /** A port of its own for `GET /metrics` (no token), on `metricsHost`; null: none. */
  metricsPort: number | null;
  metricsHost: string;
  /** OpenTelemetry tracing (main.ts starts it before the app loads); null without OTEL_EXPORTER_OTLP_ENDPOINT. */
  tracing: { endpoint: string; serviceName: string } | null;
  /** GraphQL operations (HTTP requests and graphql-ws subscribe messages) per client address per minute, per instance. */
  graphqlOperationsPerMinute: number;
  /** A REST or GraphQL request unanswered after this many seconds gets 503 `unavailable` with Retry-After. */
  requestTimeoutSeconds: number;
  /** The clean stop: readiness 503 and `Connection: close` for `drainMs` while still serving, then the rest within `timeoutMs`. */
  shutdown: { drainMs: number; timeoutMs: number };
  /** graphql-ws: sockets in all and per client address, idle seconds, and the wait for `connection_init`. */
  websocket: { maxConnections: number; maxConnectionsPerClient: number; idleSeconds: number; initTimeoutMs: number };
  /** How long a job's lock holds without its heartbeat: a dead or cut-off worker's job is taken over after this. */
  jobLockSeconds: number;
  otp: { ttlSeconds: number; maxAttempts: number; requestsPerWindow: number; requestWindowSeconds: number; failuresPerDay: number };
  /** Per client network address on the anonymous routes: code requests and verifications (each per hour), public verifications per minute. */
  clientLimits: { codeCallsPerHour: number; verificationsPerMinute: number; registrationsPerHour: number };
  accessTokenTtlSeconds: number;
  /**
   * In-memory caches; 0 seconds turns one off. Public answers of sealed records are dropped on every
   * domain event (any instance, LISTEN/NOTIFY); resolved credentials on every revocation or merge;
   * identities' listing pages on every write to what a record view is made from (any instance, any
   * path: a database trigger notifies). The TTL bounds what a lost notification could leave.
   */
  caches: { publicAnswerSeconds: number; principalSeconds: number; listingSeconds: number; recordSeconds: number };
  /** Hosted assistant connectors: how long a consent page stays usable (seconds). */
  oauth: {
    consentTtlSeconds: number;
    /** Client ID Metadata Documents: on, the hosts fetched despite a private address, and the CAs trusted for them (PEM). */
    clientMetadataDocuments: { enabled: boolean; allowedHosts: string[]; ca: string | null };
  };
  defaultLapseDays: number;
  /** Reminders to participants who have not signed: the service defaults (a record may have its own days), and the cap per participant. `everyDays` 0: no reminders at all. */
  reminders: { everyDays: number; beforeExpiryDays: number; maxPerParty: number };
  /** Bulk exports: how long a ready export stays downloadable, and the most records one export holds. */
  exports: { ttlSeconds: number; maxRecords: number };
  /** Starts of one signature method by one participant per 10 minutes. */
  methodStartsPerWindow: number;
  /** Invitation resends per participant per hour. */
  invitationResendsPerHour: number;
  /**
   * Public proof posts (codehost_gist, microblog_post, forum_post): provider API bases, the test-only
   * switch that lets the SSRF guard reach http://127.0.0.1, and provider checks per participant per 10 minutes.
   */
  proofPosts: { codehostApiBase: string; microblogApiBase: string; forumApiBase: string; allowLoopback: boolean; fetchesPerWindow: number };
  /**
   * The messenger signature method. Without a webhook secret the inbound webhook refuses every call
   * (403), so messenger challenges can be started but never complete.
   */
  messenger: { webhookSecret: string | undefined; botUsername: string; linkBase: string; apiBase: string; botToken: string | undefined };
  /** Passkeys (webauthn_passkey): relying party id and name, and the origin browsers report. */
  webauthn: { rpId: string; rpName: string; origin: string };
  localStateDir: string;
  outboxPollMs: number;
  /** The mail outbox: attempts before a message is `failed`, and how often it looks for due mail. */
  mailQueue: { maxAttempts: number; pollMs: number; concurrency: number; backlogPerRecipient: number; backlogPerClient: number };
  /** The messenger outbox's worker: it polls as often as the mail outbox's. */
  messengerQueue: { maxAttempts: number; pollMs: number };
  /** Webhook delivery: allowed non-public hosts and networks, the retry schedule (seconds after each failed attempt), timeouts. */
  webhooks: {
    allowedHosts: string[];
    retrySchedule: number[];
    disableAfterSeconds: number;
    concurrency: number;
    endpointConcurrency: number;
    ownerConcurrency: number;
    connectMs: number;
    totalMs: number;
    pollMs: number;
  };
  /** Sealing: seal key (never logged), optional RFC 3161 timestamp authorities in failover order. */
  sealing: {
    p12Path: string | undefined;
    p12Password: string | undefined;
    tsaUrls: string[];
    archiveRenewBeforeDays: number;
    completionRetrySeconds: number;
    completionRetryMaxSeconds: number;
    cardTicketTtlSeconds: number;
    workers: number;
  };
  /**
   * The MCP endpoint: Host and Origin allow-lists (null: the public base URL and loopback at the bound
   * port), session idle expiry, the retrieval grant's lifetime (at most 600 s), confirmation tokens'
   * lifetime, and whether responses are plain JSON instead of SSE.
   */
  mcp: {
    allowedHosts: string[] | null;
    allowedOrigins: string[] | null;
    sessionIdleSeconds: number;
    /** A session that made no call after `initialize` ends after this. */
    sessionUnusedSeconds: number;
    /** `initialize` calls per client (identity, else network address) per minute. */
    initializePerMinute: number;
    /** Live sessions in all. */
    maxSessions: number;
    grantTtlSeconds: number;
    confirmationTtlSeconds: number;
    jsonResponse: boolean;
    /**
     * Secret inputs (a signature code, a passkey response): `prefer_url` takes them on the service's
     * page when the client declared URL-mode elicitation, else as tool arguments; `url_only` refuses
     * them as arguments (clients without URL-mode elicitation cannot use those methods).
     */
    secretInput: 'prefer_url' | 'url_only';
    /** Lifetime of a secret-input link (at most 600 seconds). */
    secretInputTtlSeconds: number;
  };
  /** Anchoring; null without CHAIN_RPC_URL. The signer key is never logged. */
  chain: {
    rpcUrl: string;
    signerKey: string | undefined;
    registryAddress: string | undefined;
    confirmations: number | undefined;
    explorerTxUrl: string | undefined;
    /** A JSON-RPC URL anyone may use: the public verification page checks anchors in the browser through it. */
    publicRpcUrl: string | undefined;
    networkName: string | undefined;
    batchMax: number;
    retryMaxSeconds: number;
  } | null;
  /**
   * When waiting work counts as stuck (minutes): a seal without its PDF and card, an anchor pending or
   * retrying (measured from the seal), mail still queued. Failed mail and webhook deliveries are stuck at once.
   */
  stuckWork: { sealArtifactsMinutes: number; anchoringMinutes: number; mailMinutes: number };
};

export class ConfigError extends Error {}

/**
 * What production needs that development makes up: the key of stored code hashes, the seal key, and
 * a mail server (the local outbox folder only when the operator names it on purpose).
 */
function productionRequirements(given: Record<string, string | undefined>): string[] {
  if (given.NODE_ENV !== 'production') return [];
  return [
    ...(given.SERVER_SECRET ? [] : ['  SERVER_SECRET: required in production: at least 32 random characters (it keys the stored hashes of one-time codes)']),
    ...(given.SEAL_P12_PATH ? [] : ['  SEAL_P12_PATH: required in production: the seal key, a PKCS#12 file (its password in SEAL_P12_PASSWORD)']),
    ...(given.SMTP_URL || given.MAIL_OUTBOX_DIR
      ? []
      : ['  SMTP_URL: required in production (without it mail goes to a local folder nobody reads); to keep mail in the outbox folder on purpose, set MAIL_OUTBOX_DIR']),
  ];
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  // An empty variable means "unset" (as in `SMTP_URL= npm start`).
  const given = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined && value !== ''));
  const parsed = schema.safeParse(given);
  // Every problem at once: a bad value and each setting production requires, not one per attempt.
  const lines = [...(parsed.success ? [] : parsed.error.issues.map((issue) => `  ${issue.path.join('.')}: ${issue.message}`)), ...productionRequirements(given)];
  if (!parsed.success || lines.length > 0) throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  const e = parsed.data;
  // In development on this machine, `localhost`: browsers refuse an IP address as a passkey's relying party.
  const loopback = ['127.0.0.1', 'localhost', '::1'].includes(e.HOST);
  const publicBaseUrl = (e.PUBLIC_BASE_URL ?? `http://${e.NODE_ENV === 'development' && loopback ? 'localhost' : e.HOST}:${e.PORT}`).replace(/\/+$/, '');
  return {
    env: e.NODE_ENV,
    port: e.PORT,
    host: e.HOST,
    publicBaseUrl,
    databaseUrl: e.DATABASE_URL,
    databaseDirectUrl: e.DATABASE_DIRECT_URL || e.DATABASE_URL,
    databaseBehindPooler: Boolean(e.DATABASE_DIRECT_URL) && e.DATABASE_DIRECT_URL !== e.DATABASE_URL,
    databasePoolMax: e.DATABASE_POOL_MAX,
    databaseStartTimeoutSeconds: e.DATABASE_START_TIMEOUT_SECONDS,
    databaseTimeouts: {
      acquireTimeoutMs: e.DATABASE_ACQUIRE_TIMEOUT_MS,
      statementTimeoutMs: e.DATABASE_STATEMENT_TIMEOUT_MS,
      idleInTransactionTimeoutMs: e.DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS,
    },
    migrateOnStart: e.MIGRATE_ON_START,
    smtpUrl: e.SMTP_URL,
    mailFrom: e.MAIL_FROM,
    mailOutboxDir: path.resolve(e.MAIL_OUTBOX_DIR),
    logLevel: e.LOG_LEVEL,
    graphqlIntrospection: e.GRAPHQL_INTROSPECTION ?? e.NODE_ENV !== 'production',
    mongodbUrl: e.MONGODB_URL,
    jobsEnabled: e.JOBS_ENABLED,
    jobLockSeconds: e.JOB_LOCK_SECONDS,
    requestTimeoutSeconds: e.REQUEST_TIMEOUT_SECONDS,
    shutdown: { drainMs: e.SHUTDOWN_DRAIN_MS, timeoutMs: e.SHUTDOWN_TIMEOUT_MS },
    serverSecret: e.SERVER_SECRET,
    metricsToken: e.METRICS_TOKEN ?? null,
    metricsPort: e.METRICS_PORT ?? null,
    metricsHost: e.METRICS_HOST,
    tracing: e.OTEL_EXPORTER_OTLP_ENDPOINT ? { endpoint: e.OTEL_EXPORTER_OTLP_ENDPOINT, serviceName: e.OTEL_SERVICE_NAME } : null,
    graphqlOperationsPerMinute: e.GRAPHQL_OPERATIONS_PER_MINUTE,
    websocket: { maxConnections: e.WS_MAX_CONNECTIONS, maxConnectionsPerClient: e.WS_MAX_CONNECTIONS_PER_CLIENT, idleSeconds: e.WS_IDLE_SECONDS, initTimeoutMs: 3000 },
    otp: {
      ttlSeconds: e.OTP_TTL_SECONDS,
      maxAttempts: e.OTP_MAX_ATTEMPTS,
      requestsPerWindow: e.OTP_REQUESTS_PER_WINDOW,
      requestWindowSeconds: e.OTP_REQUEST_WINDOW_SECONDS,
      failuresPerDay: e.OTP_FAILURES_PER_DAY,
    },
    clientLimits: {
      codeCallsPerHour: e.CLIENT_CODE_CALLS_PER_HOUR,
      verificationsPerMinute: e.CLIENT_VERIFICATIONS_PER_MINUTE,
      registrationsPerHour: e.OAUTH_REGISTRATIONS_PER_HOUR,
    },
    accessTokenTtlSeconds: e.ACCESS_TOKEN_TTL_SECONDS,
    caches: { publicAnswerSeconds: e.PUBLIC_ANSWER_CACHE_SECONDS, principalSeconds: e.PRINCIPAL_CACHE_SECONDS, listingSeconds: e.LISTING_CACHE_SECONDS, recordSeconds: e.RECORD_CACHE_SECONDS },
    oauth: {
      consentTtlSeconds: e.OAUTH_CONSENT_TTL_SECONDS,
      clientMetadataDocuments: {
        enabled: e.OAUTH_CLIENT_METADATA_DOCUMENTS,
        allowedHosts: (list(e.OAUTH_CLIENT_METADATA_ALLOWED_HOSTS) ?? []).map((host) => host.toLowerCase()),
        ca: e.OAUTH_CLIENT_METADATA_CA_FILE ? readPem(e.OAUTH_CLIENT_METADATA_CA_FILE, 'OAUTH_CLIENT_METADATA_CA_FILE') : null,
      },
    },
    defaultLapseDays: e.DEFAULT_LAPSE_DAYS,
    reminders: { everyDays: e.REMINDER_EVERY_DAYS, beforeExpiryDays: e.REMINDER_BEFORE_EXPIRY_DAYS, maxPerParty: e.REMINDER_MAX_PER_PARTY },
    exports: { ttlSeconds: e.EXPORT_TTL_SECONDS, maxRecords: e.EXPORT_MAX_RECORDS },
    methodStartsPerWindow: e.METHOD_STARTS_PER_WINDOW,
    invitationResendsPerHour: e.INVITATION_RESENDS_PER_HOUR,
    proofPosts: proofPostConfig(e),
    messenger: {
      webhookSecret: e.MESSENGER_WEBHOOK_SECRET,
      botUsername: e.MESSENGER_BOT_USERNAME.replace(/^@/, ''),
      linkBase: e.MESSENGER_LINK_BASE.replace(/\/+$/, ''),
      apiBase: e.MESSENGER_API_BASE.replace(/\/+$/, ''),
      botToken: e.MESSENGER_BOT_TOKEN,
    },
    webauthn: webauthnConfig(e, publicBaseUrl),
    localStateDir: path.resolve(e.LOCAL_STATE_DIR),
    outboxPollMs: e.OUTBOX_POLL_MS,
    mailQueue: {
      maxAttempts: e.MAIL_MAX_ATTEMPTS,
      pollMs: e.MAIL_POLL_MS,
      concurrency: e.MAIL_CONCURRENCY,
      backlogPerRecipient: e.MAIL_BACKLOG_PER_RECIPIENT,
      backlogPerClient: e.MAIL_BACKLOG_PER_CLIENT,
    },
    messengerQueue: { maxAttempts: e.MESSENGER_MAX_ATTEMPTS, pollMs: e.MAIL_POLL_MS },
    webhooks: {
      allowedHosts: list(e.WEBHOOK_ALLOWED_HOSTS) ?? [],
      retrySchedule: e.WEBHOOK_RETRY_SCHEDULE ? e.WEBHOOK_RETRY_SCHEDULE.split(',').map(durationSeconds) : DEFAULT_WEBHOOK_RETRY_SCHEDULE,
      disableAfterSeconds: e.WEBHOOK_DISABLE_AFTER_HOURS * 3600,
      concurrency: e.WEBHOOK_CONCURRENCY,
      endpointConcurrency: e.WEBHOOK_ENDPOINT_CONCURRENCY,
      ownerConcurrency: e.WEBHOOK_OWNER_CONCURRENCY,
      connectMs: e.WEBHOOK_CONNECT_TIMEOUT_MS,
      totalMs: e.WEBHOOK_TIMEOUT_MS,
      pollMs: e.WEBHOOK_POLL_MS,
    },
    sealing: {
      p12Path: e.SEAL_P12_PATH,
      p12Password: e.SEAL_P12_PASSWORD,
      tsaUrls: (e.SEAL_TSA_URLS ?? '').split(/[\s,]+/).filter(Boolean),
      archiveRenewBeforeDays: e.ARCHIVE_RENEW_BEFORE_DAYS,
      completionRetrySeconds: e.SEAL_COMPLETION_RETRY_SECONDS,
      completionRetryMaxSeconds: Math.max(e.SEAL_COMPLETION_RETRY_MAX_SECONDS, e.SEAL_COMPLETION_RETRY_SECONDS),
      cardTicketTtlSeconds: e.CARD_TICKET_TTL_SECONDS,
      workers: e.SEAL_WORKERS,
    },
    mcp: {
      allowedHosts: list(e.MCP_ALLOWED_HOSTS)?.map((host) => host.toLowerCase()) ?? null,
      allowedOrigins: list(e.MCP_ALLOWED_ORIGINS)?.map((origin) => origin.replace(/\/+$/, '')) ?? null,
      sessionIdleSeconds: e.MCP_SESSION_IDLE_SECONDS,
      sessionUnusedSeconds: e.MCP_SESSION_UNUSED_SECONDS,
      initializePerMinute: e.MCP_INITIALIZE_PER_MINUTE,
      maxSessions: e.MCP_MAX_SESSIONS,
      grantTtlSeconds: e.MCP_GRANT_TTL_SECONDS,
      confirmationTtlSeconds: e.MCP_CONFIRMATION_TTL_SECONDS,
      jsonResponse: e.MCP_JSON_RESPONSE,
      secretInput: e.MCP_SECRET_INPUT,
      secretInputTtlSeconds: e.MCP_SECRET_INPUT_TTL_SECONDS,
    },
    chain: e.CHAIN_RPC_URL
      ? {
          rpcUrl: e.CHAIN_RPC_URL,
          signerKey: e.CHAIN_SIGNER_KEY,
          registryAddress: e.CHAIN_REGISTRY_ADDRESS,
          confirmations: e.CHAIN_CONFIRMATIONS,
          explorerTxUrl: e.CHAIN_EXPLORER_TX_URL,
          publicRpcUrl: e.CHAIN_PUBLIC_RPC_URL,
          networkName: e.CHAIN_NETWORK_NAME,
          batchMax: e.ANCHOR_BATCH_MAX,
          retryMaxSeconds: e.ANCHOR_RETRY_MAX_SECONDS,
        }
      : null,
    stuckWork: { sealArtifactsMinutes: e.STUCK_SEAL_ARTIFACTS_MINUTES, anchoringMinutes: e.STUCK_ANCHORING_MINUTES, mailMinutes: e.STUCK_MAIL_MINUTES },
  };
}

/**
 * Seconds to wait after each failed webhook attempt: 24 attempts over about three days (5 s, 15 s,
 * 1 min, 2 min, 5 min, 10 min, 20 min, 30 min, 1 h, 2 h, 3 h, 4 h, then every 5.5 h).
 */
const DEFAULT_WEBHOOK_RETRY_SCHEDULE = [5, 15, 60, 120, 300, 600, 1200, 1800, 3600, 7200, 10_800, 14_400, ...Array<number>(11).fill(19_800)];

/** `250ms`, `5s`, `1m` or `2h` in seconds. */
function durationSeconds(value: string): number {
  const [, amount, unit] = /^\s*(\d+)(ms|s|m|h)\s*$/.exec(value)!;
  return Number(amount) * { ms: 0.001, s: 1, m: 60, h: 3600 }[unit as 'ms' | 's' | 'm' | 'h'];
}

/** A PEM file's text (certificates); a missing or non-PEM file stops start-up naming the variable. */
function readPem(file: string, variable: string): string {
  let text: string;
  try {
    text = fs.readFileSync(path.resolve(file), 'utf8');
  } catch {
    throw new ConfigError(`Invalid configuration:\n  ${variable}: cannot read ${file}`);
  }
  if (!text.includes('-----BEGIN CERTIFICATE-----')) throw new ConfigError(`Invalid configuration:\n  ${variable}: ${file} holds no PEM certificate`);
  return text;
}

/** A comma- or space-separated list; null when unset. */
function list(value: string | undefined): string[] | null {
  const items = (value ?? '').split(/[\s,]+/).filter(Boolean);
  return items.length > 0 ? items : null;
}

/** Defaults follow PUBLIC_BASE_URL; the origin's host must be the RP id or one of its subdomains. */
function webauthnConfig(e: z.infer<typeof schema>, publicBaseUrl: string): Config['webauthn'] {
  const base = URL.parse(publicBaseUrl);
  if (!base) throw new ConfigError(`Invalid configuration:\n  PUBLIC_BASE_URL: ${publicBaseUrl} is not a URL (set it when HOST is an IPv6 address)`);
  const origin = new URL(e.WEBAUTHN_ORIGIN ?? base.origin).origin;
  const rpId = (e.WEBAUTHN_RP_ID ?? base.hostname).toLowerCase();
  const host = new URL(origin).hostname;
  if (host !== rpId && !host.endsWith(`.${rpId}`)) {
    throw new ConfigError(`Invalid configuration:\n  WEBAUTHN_RP_ID: ${rpId} must be the host of WEBAUTHN_ORIGIN (${origin}) or a parent domain of it`);
  }
  return { rpId, rpName: e.WEBAUTHN_RP_NAME, origin };
}

/** Plain http and loopback provider hosts exist for tests only; production never reaches them. */
function proofPostConfig(e: z.infer<typeof schema>): Config['proofPosts'] {
  if (e.PROOF_FETCH_ALLOW_LOOPBACK && e.NODE_ENV === 'production') {
    throw new ConfigError('Invalid configuration:\n  PROOF_FETCH_ALLOW_LOOPBACK: must not be true when NODE_ENV is production');
  }
  const bases = { CODEHOST_API_BASE: e.CODEHOST_API_BASE, MICROBLOG_API_BASE: e.MICROBLOG_API_BASE, FORUM_API_BASE: e.FORUM_API_BASE };
  for (const [name, base] of Object.entries(bases)) {
    if (new URL(base).protocol === 'http:' && !e.PROOF_FETCH_ALLOW_LOOPBACK) {
      throw new ConfigError(`Invalid configuration:\n  ${name}: must be an https:// URL (http only with PROOF_FETCH_ALLOW_LOOPBACK=true, for tests)`);
    }
  }
  return {
    codehostApiBase: e.CODEHOST_API_BASE,
    microblogApiBase: e.MICROBLOG_API_BASE,
    forumApiBase: e.FORUM_API_BASE,
    allowLoopback: e.PROOF_FETCH_ALLOW_LOOPBACK,
    fetchesPerWindow: e.PROOF_FETCHES_PER_WINDOW,
  };
}
