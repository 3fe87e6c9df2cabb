/**
 * Throughput and latency of the main REST paths against a real app on a real PostgreSQL, on
 * loopback only: sign-in, record creation, reads by id and by reference, listing. Prints figures;
 * asserts nothing (speed goals live here, never in tests). Bounded: N requests per phase.
 *
 *   npm run bench            (N=300 by default; BENCH_N=1000 npm run bench)
 */
import 'reflect-metadata';
import { Writable } from 'node:stream';
import pg from 'pg';
import { startApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { createLogger } from '../src/logger.js';
import type { MailMessage } from '../src/domain/mail/mailer.js';

const N = Number(process.env.BENCH_N ?? 300);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 8);

const adminUrl = process.env.DATABASE_URL;
if (!adminUrl) throw new Error('DATABASE_URL is required (npm run bench sets it)');
const name = `rss_bench_${process.pid}`;
const admin = new pg.Client({ connectionString: adminUrl });
await admin.connect();
await admin.query(`create database ${name}`);
const url = new URL(adminUrl);
url.pathname = `/${name}`;

const mail: MailMessage[] = [];
const app = await startApp(
  loadConfig({ DATABASE_URL: url.toString(), PORT: '0', HOST: '127.0.0.1', JOBS_ENABLED: 'false', LOG_LEVEL: 'warn', OTP_REQUESTS_PER_WINDOW: '100000' }),
  { logger: createLogger('warn', new Writable({ write: (_c, _e, cb) => cb() })), mailer: { send: async (m) => void mail.push(m) } },
);

async function call(method: string, path: string, body?: unknown, token?: string): Promise<any> {
  const response = await fetch(app.url + path, {
    method,
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = await response.json();
  if (response.status >= 400) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(json)}`);
  return json;
}

async function phase(label: string, work: (i: number) => Promise<unknown>): Promise<void> {
  const latencies: number[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < N) {
        const i = next++;
        const t0 = performance.now();
        await work(i);
        latencies.push(performance.now() - t0);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))]!.toFixed(1);
  console.log(`${label.padEnd(28)} ${String(N).padStart(6)} req  ${(N / seconds).toFixed(0).padStart(6)} req/s  p50 ${at(0.5)} ms  p95 ${at(0.95)} ms  p99 ${at(0.99)} ms`);
}

try {
  const requested = await call('POST', '/api/v1/verification/request-otp', { email: 'bench@example.com', purpose: 'authenticate' });
  const code = /code is (\d{6})/.exec(mail.at(-1)!.text)![1];
  const { access_token: token } = await call('POST', '/api/v1/verification/verify-otp', { verification_event_id: requested.verification_event_id, code });
  const body = {
    title: 'Benchmark agreement',
    body: 'We agree to measure this service honestly and to publish the figures we observe.',
    on_chain_full_text: false,
    on_chain_include_verified_parties: false,
    parties: [{ display_name: 'Bob', contact_point_value: 'bob@example.com' }],
  };
  console.log(`record signing service benchmark: N=${N}, concurrency=${CONCURRENCY}, Node ${process.version}`);
  const created: { id: string; agr_reference: string }[] = [];
  await phase('POST /agreements', async () => created.push(await call('POST', '/api/v1/agreements', body, token)));
  await phase('GET /agreements/{id}', (i) => call('GET', `/api/v1/agreements/${created[i % created.length]!.id}`, undefined, token));
  await phase('GET /agreements/{reference}', (i) => call('GET', `/api/v1/agreements/${created[i % created.length]!.agr_reference}`, undefined, token));
  await phase('GET /identity/agreements', () => call('GET', '/api/v1/identity/agreements?limit=20', undefined, token));
  await phase('POST /graphql record(id)', (i) =>
    call('POST', '/graphql', { query: 'query($id: String!) { record(id: $id) { id status parties { id } } }', variables: { id: created[i % created.length]!.id } }, token),
  );
  const memory = process.memoryUsage();
  console.log(`memory: rss ${(memory.rss / 2 ** 20).toFixed(0)} MiB, heap used ${(memory.heapUsed / 2 ** 20).toFixed(0)} MiB`);
} finally {
  await app.stop();
  await admin.query(`drop database if exists ${name} with (force)`);
  await admin.end();
}
