import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { createTestDatabase } from '../support/database.js';
import { CaptureSmtp } from '../support/smtp.js';
import { freePort, startPrivateChain, type PrivateChain } from '../support/chain.js';
import { OtlpReceiver, type ReceivedSpan } from '../support/otlp-receiver.js';
import { sealTwoPartyAgreement } from '../support/seal-agreement.js';
import type { HttpResult, RequestOptions, TestApp } from '../support/harness.js';
import { waitFor } from '../support/wait.js';

/**
 * Traces of the real entry point (`src/main.ts` in a process of its own: instrumentation hooks module
 * loading, which jest's module registry bypasses) sent over OTLP/HTTP to a receiver on 127.0.0.1: one
 * trace per request from the HTTP span through the GraphQL operation to its SQL, a seal's trace going
 * on through the outbox to its artifacts job, the render and the anchoring, and nothing secret in it.
 */

const repo = path.resolve(import.meta.dirname, '../..');
const RECORD_TEXT = 'Traced terms: the orchard ladder stays in the shed between harvests.';
const TITLE = 'Orchard ladder';
const QUERY_TICKET = 'query-ticket-8c1f2e7d9a';
/** SPAN_KIND_SERVER in OTLP's encoding. */
const SERVER = 2;

describe('Traces over OTLP', () => {
  const receiver = new OtlpReceiver();
  const smtp = new CaptureSmtp();
  let chain: PrivateChain;
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let child: ChildProcess;
  let output = '';
  let url: string;
  const serverSecret = randomBytes(24).toString('hex');

  beforeAll(async () => {
    const endpoint = await receiver.start();
    const smtpUrl = await smtp.start();
    chain = await startPrivateChain();
    database = await createTestDatabase();
    const port = await freePort();
    url = `http://127.0.0.1:${port}`;
    child = spawn(process.execPath, ['--import', './test/support/child/register.mjs', 'src/main.ts'], {
      cwd: repo,
      env: {
        ...process.env,
        NODE_ENV: 'test',
        DATABASE_URL: database.url,
        SMTP_URL: smtpUrl,
        PORT: String(port),
        HOST: '127.0.0.1',
        CHAIN_RPC_URL: chain.url,
        LOCAL_STATE_DIR: chain.dir,
        SERVER_SECRET: serverSecret,
        MIGRATE_ON_START: 'true',
        LOG_LEVEL: 'warn',
        SHUTDOWN_DRAIN_MS: '0',
        JOB_LOCK_SECONDS: '2',
        CLIENT_CODE_CALLS_PER_HOUR: '100000',
        CLIENT_VERIFICATIONS_PER_MINUTE: '100000',
        GRAPHQL_OPERATIONS_PER_MINUTE: '1000000',
        OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
        OTEL_SERVICE_NAME: 'traced-signing',
        // Spans leave every 200 ms rather than every 5 s.
        OTEL_BSP_SCHEDULE_DELAY: '200',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    await waitFor(async () => {
      if (child.exitCode !== null) throw new Error(`main.ts exited: ${output.slice(-3000)}`);
      return (await fetch(`${url}/health/ready`).catch(() => null))?.status === 200;
    }, 120_000);
  }, 180_000);

  afterAll(async () => {
    if (child && child.exitCode === null) {
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
    }
    await smtp.stop();
    await receiver.stop();
    await database?.drop();
    await chain?.destroy();
  });

  const request = async <T = any>(method: string, route: string, options: RequestOptions = {}): Promise<HttpResult<T>> => {
    const headers: Record<string, string> = { ...options.headers };
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    if (options.body !== undefined) headers['content-type'] = 'application/json';
    const response = await fetch(url + route, { method, headers, body: options.body === undefined ? undefined : JSON.stringify(options.body) });
    const text = await response.text();
    const body = (response.headers.get('content-type') ?? '').includes('json') && text ? JSON.parse(text) : text;
    return { status: response.status, body: body as T, headers: response.headers };
  };
  const signIn = async (email: string): Promise<string> => {
    const before = smtp.messages.length;
    const requested = await request('POST', '/api/v1/verification/request-otp', { body: { email, purpose: 'authenticate' } });
    const code = await smtp.codeFor(email, before);
    const verified = await request('POST', '/api/v1/verification/verify-otp', { body: { verification_event_id: requested.body.verification_event_id, code } });
    if (verified.status !== 200) throw new Error(`sign-in: ${verified.status} ${JSON.stringify(verified.body)}`);
    return verified.body.access_token as string;
  };
  // The REST journey helpers drive any service with these three.
  const service = { request, smtp, signIn } as unknown as TestApp;

  const serverSpan = (route: string): ReceivedSpan | undefined =>
    receiver.spans.filter((span) => span.kind === SERVER && (span.attributes['url.path'] ?? span.attributes['http.target']) === route).at(-1);
  const descendantOf = (span: ReceivedSpan, ancestor: ReceivedSpan) => receiver.ancestors(span).some((a) => a.spanId === ancestor.spanId);

  /** The span tree under `root`, for reading a failure (TRACE_DUMP=1). */
  const tree = (root: ReceivedSpan, depth = 0): string =>
    [`${'  '.repeat(depth)}${root.name} ${JSON.stringify(root.attributes)}`, ...receiver.spans.filter((span) => span.parentSpanId === root.spanId && span.traceId === root.traceId).map((span) => tree(span, depth + 1))].join('\n');

  const tokens: string[] = [];
  let recordId: string;

  it('a REST record read is one trace: the HTTP server span, the GraphQL operation under it, its SQL under that', async () => {
    const token = await signIn('reader@example.com');
    tokens.push(token);
    const created = await request('POST', '/api/v1/agreements', {
      token,
      body: { title: TITLE, body: RECORD_TEXT, on_chain_full_text: false, on_chain_include_verified_parties: false, parties: [{ display_name: 'Dana', contact_point_value: 'dana@example.com' }] },
    });
    expect(created.status).toBe(201);
    recordId = created.body.id as string;
    const read = await request('GET', `/api/v1/agreements/${recordId}`, { token });
    expect(read.status).toBe(200);
    // A query string with a ticket in it (as card and OAuth URLs carry): never exported.
    await request('GET', `/api/v1/agreements?ticket=${QUERY_TICKET}`, { token });

    const route = `/api/v1/agreements/${recordId}`;
    await waitFor(async () => {
      const http = serverSpan(route);
      return !!http && receiver.trace(http.traceId).some((span) => span.scope.includes('pg'));
    }, 30_000);
    const http = serverSpan(route)!;
    expect(http.parentSpanId).toBeNull();
    expect(http.attributes['http.request.method'] ?? http.attributes['http.method']).toBe('GET');
    const spans = receiver.trace(http.traceId);
    const operation = spans.find((span) => span.attributes['graphql.operation.type'] === 'query' && descendantOf(span, http));
    expect(operation).toBeDefined();
    const sql = spans.filter((span) => span.scope.includes('pg'));
    expect(sql.length).toBeGreaterThan(0);
    // Every statement is in the request's one trace, under its HTTP span; the record's reads under the
    // operation (the bearer token is resolved before it, when no cached answer exists).
    for (const statement of sql) expect(descendantOf(statement, http)).toBe(true);
    const underOperation = sql.filter((statement) => descendantOf(statement, operation!));
    expect(underOperation.length).toBeGreaterThan(0);
    const statementText = underOperation.map((statement) => statement.attributes['db.query.text'] ?? statement.attributes['db.statement']).join('\n');
    expect(statementText).toMatch(/\bfrom "?records"?\b/);
    if (process.env.TRACE_DUMP) process.stdout.write(`${tree(http)}\n`);
  }, 120_000);

  it('a seal reads as one trace: the request that seals, the outbox delivery, the artifacts job, the render and the anchoring', async () => {
    const sealed = await sealTwoPartyAgreement(service, { title: TITLE, body: RECORD_TEXT }, { initiator: 'ines@example.com', party: 'paul@example.com' });
    tokens.push(sealed.initiator, sealed.party);
    await waitFor(async () => {
      const { body } = await request('GET', `/api/v1/agreements/${sealed.id}`, { token: sealed.initiator });
      return body.blockchain?.status === 'confirmed' && receiver.spans.some((span) => span.name === 'job sealing.make-artifacts' && span.parentSpanId);
    }, 60_000);
    // The party's finalize is the request that sealed.
    const route = `/api/v1/agreements/${sealed.id}/signature-execution/finalize`;
    await waitFor(async () => {
      const http = serverSpan(route);
      if (!http) return false;
      const names = receiver.trace(http.traceId).map((span) => span.name);
      return names.includes('job sealing.make-artifacts') && names.includes('anchoring settle') && names.some((name) => name.startsWith('sealing render'));
    }, 30_000);
    const http = serverSpan(route)!;
    const spans = receiver.trace(http.traceId);
    const named = (name: string) => spans.filter((span) => span.name === name);
    const delivery = named('outbox deliver').find((span) => descendantOf(span, http));
    expect(delivery).toBeDefined();
    expect(delivery!.attributes['outbox.event.type']).toBe('record_lifecycle');
    const job = named('job sealing.make-artifacts')[0]!;
    expect(descendantOf(job, delivery!)).toBe(true);
    const renders = spans.filter((span) => span.name.startsWith('sealing render'));
    expect(renders.map((span) => span.attributes['sealing.render.kind'])).toEqual(expect.arrayContaining(['card', 'signed-pdf']));
    for (const render of renders) expect(descendantOf(render, job)).toBe(true);
    const anchoring = named('anchoring settle')[0]!;
    expect(descendantOf(anchoring, delivery!)).toBe(true);
    // The anchoring's own work is in it: its SQL and its calls to the chain.
    expect(spans.some((span) => descendantOf(span, anchoring) && span.scope.includes('pg'))).toBe(true);
    expect(spans.some((span) => descendantOf(span, anchoring) && span.scope.includes('undici'))).toBe(true);
    expect(http.resource['service.name']).toBe('traced-signing');
    if (process.env.TRACE_DUMP) process.stdout.write(`${tree(http)}\n`);
  }, 180_000);

  it('no span carries a sign-in code, a bearer token, an email address, record text, a query string, a header or the server secret', async () => {
    expect(receiver.spans.length).toBeGreaterThan(50);
    const codes = smtp.messages.flatMap((mail) => [...mail.text.matchAll(/\b(\d{6})\b/g)].map((match) => match[1]!));
    expect(codes.length).toBeGreaterThan(3);
    const strings: string[] = [];
    const numbers: number[] = [];
    const collect = (value: unknown): void => {
      if (typeof value === 'string') strings.push(value);
      else if (typeof value === 'number') numbers.push(value);
      else if (Array.isArray(value)) value.forEach(collect);
    };
    for (const span of receiver.spans) {
      strings.push(span.name, span.status.message ?? '');
      Object.values(span.attributes).forEach(collect);
      for (const event of span.events) Object.values(event.attributes).forEach(collect);
      for (const key of [...Object.keys(span.attributes), ...span.events.flatMap((event) => Object.keys(event.attributes))]) {
        expect(key).not.toMatch(/^(enduser\.|http\.request\.header\.|http\.response\.header\.|user_agent|client\.address|db\.user|db\.connection_string|url\.query)/);
      }
    }
    const text = strings.join('\n');
    for (const token of tokens) expect(text).not.toContain(token);
    for (const code of codes) {
      expect(text).not.toMatch(new RegExp(`(?<!\\d)${code}(?!\\d)`));
      expect(numbers).not.toContain(Number(code));
    }
    expect(text).not.toMatch(/[^\s@]+@[^\s@]+\.[a-z]{2,}/i);
    expect(text).not.toContain(RECORD_TEXT.slice(0, 20));
    expect(text).not.toContain(TITLE);
    expect(text).not.toContain(QUERY_TICKET);
    expect(text).not.toContain('?ticket');
    expect(text).not.toContain(serverSecret);
    expect(text).not.toContain(database.url);
    // Not even in what went over the wire (resource attributes, link fields, anything).
    const wire = receiver.bodies.join('\n');
    for (const secret of [...tokens, serverSecret, RECORD_TEXT.slice(0, 20), QUERY_TICKET, 'reader@example.com', 'paul@example.com']) expect(wire).not.toContain(secret);
  });
});
