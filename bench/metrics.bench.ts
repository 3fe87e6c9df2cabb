/**
 * What Prometheus metrics cost a record read: two service processes on one database, one with
 * metrics off (no METRICS_TOKEN: no registry, the no-op instruments) and one with them on
 * (METRICS_TOKEN set: every request timed, every statement timed, every operation counted), tracing
 * off in both. Each read path is measured in alternating passes (off, on, on, off, off, on, on, off:
 * a 2-core machine's speed drifts more within a minute than the difference) and compared by its
 * averages. Prints req/s, p99 and the ratio; asserts nothing (goal: reads lose at most 5%).
 *
 *   npm run bench                          (BENCH_SECONDS per path and setting, 8 by default)
 *   BENCH_ONLY=metrics BENCH_SECONDS=6 npm run bench
 */
import autocannon from 'autocannon';
import { print } from 'graphql';
import { GetRecordDocument } from '../src/graph/catalog/generated.js';
import { Bench, selected, type Started } from './support.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const TOKEN = 'bench-metrics-token-0123456789abcdef';

if (!selected('metrics')) process.exit(0);
const bench = await Bench.open('rss_bench_metrics');

type Target = { label: string; path: string; method?: 'GET' | 'POST'; body?: string; headers?: Record<string, string> };
type Figure = { rps: number; p99: number; bad: number };

async function measure(service: Started, target: Target, seconds: number): Promise<Figure> {
  const options = { url: `${service.url}${target.path}`, method: target.method ?? 'GET', body: target.body, headers: target.headers, connections: CONNECTIONS };
  await autocannon({ ...options, duration: 1 });
  const result = await autocannon({ ...options, duration: seconds });
  return { rps: result.requests.average, p99: result.latency.p99, bad: result.non2xx + result.errors + result.timeouts };
}

try {
  const off = await bench.start('service.js');
  const on = await bench.start('service.js', { env: { METRICS_TOKEN: TOKEN } });
  const client = bench.client(off);
  const initiator = 'metrics-bench@example.com';
  const party = 'metrics-bob@example.com';
  const token = await client.signIn(initiator);
  const created = await client.call(
    'POST',
    '/api/v1/agreements',
    {
      title: 'Benchmark agreement',
      body: 'We agree to measure what metrics cost and to publish the figures we observe.',
      on_chain_full_text: false,
      on_chain_include_verified_parties: false,
      parties: [{ display_name: 'Bob', contact_point_value: party }],
    },
    token,
  );
  await client.sign(token, initiator, created.id);
  await client.call('POST', `/api/v1/agreements/${created.id}/submit`, undefined, token);
  const sealed = await client.sign(await client.signIn(party), party, created.id);
  if (sealed.status !== 'sealed') throw new Error(`the benchmark record is ${sealed.status}, not sealed`);

  const bearer = { authorization: `Bearer ${token}` };
  const targets: Record<string, Target> = {
    rest: { label: 'GET /api/v1/agreements/{id}', path: `/api/v1/agreements/${created.id}`, headers: bearer },
    graphql: {
      label: 'POST /graphql record(id)',
      path: '/graphql',
      method: 'POST',
      body: JSON.stringify({ query: print(GetRecordDocument), variables: { id: created.id } }),
      headers: { ...bearer, 'content-type': 'application/json' },
    },
  };

  const os = await import('node:os');
  console.log(`metrics overhead benchmark: autocannon ${CONNECTIONS} connections, ${SECONDS / 2} s a pass, four passes a setting, Node ${process.version}, ${os.cpus().length} cores, load average before ${os.loadavg().map((n) => n.toFixed(2)).join(' ')}`);
  const figures = new Map<string, Figure[]>();
  for (const [key, target] of Object.entries(targets)) {
    for (const setting of ['off', 'on', 'on', 'off', 'off', 'on', 'on', 'off'] as const) {
      const figure = await measure(setting === 'on' ? on : off, target, SECONDS / 2);
      figures.set(`${key} ${setting}`, [...(figures.get(`${key} ${setting}`) ?? []), figure]);
      console.log(`  ${target.label.padEnd(32)} metrics ${setting.padEnd(3)} ${figure.rps.toFixed(0).padStart(7)} req/s  p99 ${String(figure.p99).padStart(4)} ms${figure.bad ? `  (${figure.bad} non-2xx/errors!)` : ''}`);
    }
  }

  // The instance with metrics on did count what it served (a scrape, after the load).
  const scraped = await fetch(`${on.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
  const text = await scraped.text();
  const statements = /^rss_database_statement_duration_seconds_count (\d+)/m.exec(text)?.[1];
  const reads = [...text.matchAll(/^rss_graphql_operations_total\{operation="GetRecord",via="(\w+)",outcome="ok"\} (\d+)/gm)].map((m) => `${m[1]} ${m[2]}`);
  console.log(`  scrape after the load: ${scraped.status}, ${(text.length / 1024).toFixed(1)} KiB, ${statements ?? '?'} statements timed, GetRecord counted: ${reads.join(', ') || 'none'}`);

  const average = (key: string) => {
    const passes = figures.get(key) ?? [];
    return { rps: passes.reduce((sum, f) => sum + f.rps, 0) / passes.length, p99: passes.reduce((sum, f) => sum + f.p99, 0) / passes.length };
  };
  console.log(`\n| read | metrics off req/s (p99) | metrics on req/s (p99) | on / off | goal |\n|---|---|---|---|---|`);
  for (const [key, target] of Object.entries(targets)) {
    const a = average(`${key} off`);
    const b = average(`${key} on`);
    console.log(`| ${target.label} | ${a.rps.toFixed(0)} (${a.p99.toFixed(1)} ms) | ${b.rps.toFixed(0)} (${b.p99.toFixed(1)} ms) | ${(b.rps / a.rps).toFixed(3)} | >= 0.95 |`);
  }
  console.log(`load average after: ${os.loadavg().map((n) => n.toFixed(2)).join(' ')}`);
} finally {
  await bench.close();
}
