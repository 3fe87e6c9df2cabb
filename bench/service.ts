/**
 * The service as the benchmark runs it, in its own process: jobs off (BENCH_JOBS=1: on, with the
 * chain), logs at warn (to stdout, as in production), outgoing mail handed to the parent over IPC
 * (it needs the one-time codes).
 * Answers the parent `{ ready: url }`, then its memory (now, at its peak, after a full collection) on `{ memory: true }`,
 * the CPU time it has used (process.cpuUsage(), µs) on `{ cpu: true }`; stops on `{ stop: true }`.
 */
import 'reflect-metadata';
import { startApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { createLogger } from '../src/logger.js';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import path from 'node:path';

/** Where the resident memory is (Linux): MiB by mapping name, anonymous mappings by size class. */
function residentByMapping(): Record<string, number> {
  let text: string;
  try {
    text = readFileSync('/proc/self/smaps', 'utf8');
  } catch {
    return {};
  }
  const totals = new Map<string, number>();
  let name = '';
  for (const line of text.split('\n')) {
    const header = /^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (header) {
      const [start, end] = line.split(' ')[0]!.split('-').map((hex) => parseInt(hex, 16));
      const size = (end! - start!) / 2 ** 20;
      name = header[1] || `[anon ${size >= 60 ? '>=60' : size >= 8 ? '8-60' : size >= 1 ? '1-8' : '<1'} MiB]`;
      if (name.includes('node_modules')) name = name.replace(/^.*node_modules\//, 'node_modules/');
      continue;
    }
    const rss = /^Rss:\s+(\d+) kB/.exec(line);
    if (rss) totals.set(name, (totals.get(name) ?? 0) + Number(rss[1]) / 1024);
  }
  return Object.fromEntries([...totals].filter(([, mib]) => mib >= 2).sort((a, b) => b[1] - a[1]).slice(0, 12).map(([k, v]) => [k, Math.round(v)]));
}

/** The highest resident memory the process has had (Linux VmHWM), in bytes. */
function peakResident(): number {
  try {
    const kib = /^VmHWM:\s+(\d+) kB/m.exec(readFileSync('/proc/self/status', 'utf8'));
    return kib ? Number(kib[1]) * 1024 : Number.NaN;
  } catch {
    return Number.NaN;
  }
}

/**
 * BENCH_HEAP_PROFILE=1: V8's sampling heap profiler from start to stop, counting what the garbage
 * collector has already freed too (where the allocations come from, not only what stays), written to
 * .local/profiles as a .heapprofile (Chrome DevTools opens it).
 */
async function startHeapSampling(): Promise<(() => Promise<void>) | null> {
  if (process.env.BENCH_HEAP_PROFILE !== '1') return null;
  const session = new Session();
  session.connect();
  await session.post('HeapProfiler.startSampling', { samplingInterval: 16_384, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
  return async () => {
    const { profile } = await session.post('HeapProfiler.stopSampling');
    const folder = path.resolve('.local/profiles');
    mkdirSync(folder, { recursive: true });
    writeFileSync(path.join(folder, `service-${process.pid}.heapprofile`), JSON.stringify(profile));
  };
}

const stopHeapSampling = await startHeapSampling();
const send = (message: unknown) => process.send!(message);
const app = await startApp(
  loadConfig({
    DATABASE_URL: process.env.DATABASE_URL,
    PORT: '0',
    HOST: '127.0.0.1',
    // BENCH_JOBS=1: the service as `npm start` runs it (jobs, sealing workers, the embedded chain).
    JOBS_ENABLED: process.env.BENCH_JOBS === '1' ? 'true' : 'false',
    ...(process.env.BENCH_JOBS === '1' && process.env.CHAIN_RPC_URL ? { CHAIN_RPC_URL: process.env.CHAIN_RPC_URL } : {}),
    ...(process.env.SEAL_WORKERS ? { SEAL_WORKERS: process.env.SEAL_WORKERS } : {}),
    LOG_LEVEL: 'warn',
    OTP_REQUESTS_PER_WINDOW: '100000',
    METHOD_STARTS_PER_WINDOW: '100000',
    CLIENT_CODE_CALLS_PER_HOUR: '1000000',
    CLIENT_VERIFICATIONS_PER_MINUTE: '1000000',
    // The benches' clients all call from 127.0.0.1: per-address budgets would measure the limits, not the service.
    GRAPHQL_OPERATIONS_PER_MINUTE: '1000000',
    MAIL_BACKLOG_PER_CLIENT: '1000000',
    MCP_INITIALIZE_PER_MINUTE: '100000',
    // Metrics, when given (metrics.bench.ts measures a service with METRICS_TOKEN against one without).
    ...(process.env.METRICS_TOKEN ? { METRICS_TOKEN: process.env.METRICS_TOKEN } : {}),
    // Cache lifetimes, when given: set one to 0 to measure what that cache earns.
    ...Object.fromEntries(
      ['RECORD_CACHE_SECONDS', 'LISTING_CACHE_SECONDS', 'PUBLIC_ANSWER_CACHE_SECONDS', 'PRINCIPAL_CACHE_SECONDS'].flatMap((name) =>
        process.env[name] === undefined ? [] : [[name, process.env[name]]],
      ),
    ),
  }),
  { logger: createLogger('warn'), mailer: { send: async (mail) => void send({ mail: { to: mail.to, subject: mail.subject, text: mail.text } }) } },
);
send({ ready: app.url });
process.on('message', (message: { memory?: boolean; cpu?: boolean; stop?: boolean }) => {
  if (message.cpu) send({ cpu: process.cpuUsage() });
  if (message.memory) {
    const before = process.memoryUsage();
    // With --expose-gc (the benchmark passes it): what stays after a full collection too.
    globalThis.gc?.();
    send({ rss: before.rss, memory: before, peak: peakResident(), collected: process.memoryUsage(), mappings: residentByMapping() });
  }
  if (message.stop) void app.stop().then(async () => {
    await stopHeapSampling?.();
    process.exit(0);
  });
});
