import 'reflect-metadata';
import { Writable } from 'node:stream';
import { startApp, type App } from '../../src/app.js';
import { loadConfig, type Config } from '../../src/config.js';
import { createLogger } from '../../src/logger.js';
import type { Clock } from '../../src/domain/shared/clock.js';
import { createTestDatabase } from './database.js';
import { CaptureSmtp } from './smtp.js';
import { contractViolation } from './contract.js';

export type HttpResult<T = any> = { status: number; body: T; headers: Headers };

export type RequestOptions = { token?: string; apiKey?: string; body?: unknown; headers?: Record<string, string> };

/** Everything a test needs to drive the running service over real HTTP. */
export type TestApp = {
  app: App;
  url: string;
  config: Config;
  smtp: CaptureSmtp;
  /** Every log line the app wrote, as text. */
  logs: () => string;
  databaseUrl: string;
  request: <T = any>(method: string, path: string, options?: RequestOptions) => Promise<HttpResult<T>>;
  graphql: <T = any>(query: string, variables?: Record<string, unknown>, options?: RequestOptions) => Promise<HttpResult<{ data?: T; errors?: any[] }>>;
  /** Runs the OTP ceremony for `email` and returns the bearer token. */
  signIn: (email: string) => Promise<string>;
  stop: () => Promise<void>;
};

export async function startTestApp(
  overrides: Record<string, string> = {},
  options: {
    clock?: Clock;
    /** Share another instance's database (several instances on one database). */
    sameDatabaseAs?: TestApp;
    /** A database of the test's own (another server's), used as it is and not dropped. */
    databaseUrl?: string;
    /** A slow mail server: each message is accepted after this many milliseconds. */
    smtpDelayMs?: number;
  } = {},
): Promise<TestApp> {
  const given = options.sameDatabaseAs?.databaseUrl ?? options.databaseUrl;
  const database = given ? { url: given, drop: async () => undefined } : await createTestDatabase();
  // Instances of one deployment share its mail server (any instance's worker may send queued mail).
  const shared = options.sameDatabaseAs?.smtp;
  const smtp = shared ?? new CaptureSmtp({ delayMs: options.smtpDelayMs });
  const smtpUrl = shared ? options.sameDatabaseAs!.config.smtpUrl! : await smtp.start();
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      lines.push(chunk.toString());
      callback();
    },
  });
  const config = loadConfig({
    NODE_ENV: 'test',
    DATABASE_URL: database.url,
    PORT: '0',
    HOST: '127.0.0.1',
    SMTP_URL: smtpUrl,
    LOG_LEVEL: 'debug',
    JOBS_ENABLED: 'false',
    DATABASE_POOL_MAX: '5',
    // Every test client is 127.0.0.1: per-address limits are tested where they are the point.
    CLIENT_CODE_CALLS_PER_HOUR: '100000',
    CLIENT_VERIFICATIONS_PER_MINUTE: '100000',
    OTP_FAILURES_PER_DAY: '1000',
    MCP_INITIALIZE_PER_MINUTE: '100000',
    MAIL_BACKLOG_PER_RECIPIENT: '1000',
    GRAPHQL_OPERATIONS_PER_MINUTE: '1000000',
    MAIL_BACKLOG_PER_CLIENT: '100000',
    // Short job locks: stopping does not linger, and a killed worker's job is taken over quickly.
    JOB_LOCK_SECONDS: '2',
    // No drain delay: nothing balances between test apps (test/e2e/rolling-restart.test.ts tests the drain).
    SHUTDOWN_DRAIN_MS: '0',
    SHUTDOWN_TIMEOUT_MS: '3000',
    ...overrides,
  });
  const app = await startApp(config, {
    logger: createLogger('debug', sink),
    clock: options.clock,
    jobProcessEvery: 200,
    // The render threads run the TypeScript sources through the same hooks as the tests' child processes.
    workerExecArgv: ['--import', new URL('./child/register.mjs', import.meta.url).href],
  });

  // The test and its app share one event loop: after the loop was held for seconds (a seal, a loaded
  // machine), the test's next request can be written to a kept-alive socket just before the app's
  // 5 s keep-alive timer destroys it, unread, and the request is reset. Tests never leave a connection
  // idle for a minute; the production keep-alive timeout is tested against the built process.
  app.server.keepAliveTimeout = 60_000;

  const request = async <T = any>(method: string, path: string, opts: RequestOptions = {}): Promise<HttpResult<T>> => {
    const headers: Record<string, string> = { ...opts.headers };
    if (opts.token) headers.authorization = `Bearer ${opts.token}`;
    if (opts.apiKey) headers['x-api-key'] = opts.apiKey;
    if (opts.body !== undefined) headers['content-type'] ??= 'application/json';
    const send = () =>
      fetch(app.url + path, {
        method,
        headers,
        body: opts.body === undefined ? undefined : typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body),
      });
    // A read is sent again once when a kept-alive connection was closed by the server as the request went
    // out (its keep-alive timeout and the client's reuse can cross on a loaded machine), as HTTP clients
    // retry idempotent requests; a write is never sent twice.
    const response = await send().catch((error: Error) => {
      const code = (error.cause as { code?: string } | undefined)?.code;
      if ((method === 'GET' || method === 'HEAD') && (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET')) return send();
      throw error;
    });
    const text = await response.text();
    let body: unknown = text;
    if ((response.headers.get('content-type') ?? '').includes('json') && text) body = JSON.parse(text);
    const violation = await contractViolation(method, app.url + path, response.status, body);
    if (violation) throw new Error(`contract violation: ${violation}`);
    return { status: response.status, body: body as T, headers: response.headers };
  };

  const signIn = async (email: string): Promise<string> => {
    const before = smtp.messages.length;
    const requested = await request('POST', '/api/v1/verification/request-otp', { body: { email, purpose: 'authenticate' } });
    if (requested.status !== 200) throw new Error(`request-otp failed: ${requested.status} ${JSON.stringify(requested.body)}`);
    const code = await smtp.codeFor(email, before);
    const verified = await request('POST', '/api/v1/verification/verify-otp', {
      body: { verification_event_id: requested.body.verification_event_id, code },
    });
    if (verified.status !== 200) throw new Error(`verify-otp failed: ${verified.status} ${JSON.stringify(verified.body)}`);
    return verified.body.access_token as string;
  };

  return {
    app,
    url: app.url,
    config,
    smtp,
    logs: () => lines.join(''),
    databaseUrl: database.url,
    request,
    graphql: (query, variables, opts = {}) => request('POST', '/graphql', { ...opts, body: { query, variables } }),
    signIn,
    stop: async () => {
      await app.stop();
      if (!shared) await smtp.stop();
      await database.drop();
    },
  };
}

/** A minimal valid agreement body for the REST API. */
export function agreementBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    title: 'Garden sharing',
    body: 'We agree to share the garden equally and to take turns watering it every week.',
    on_chain_full_text: false,
    on_chain_include_verified_parties: false,
    parties: [{ display_name: 'Bob', contact_point_value: 'bob@example.com' }],
    ...overrides,
  };
}
