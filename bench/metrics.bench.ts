/**
 * What Prometheus metrics cost a record read: service processes on one database, with metrics off
 * (no METRICS_TOKEN: no registry, the no-op instruments) and on (METRICS_TOKEN set: every request
 * timed, every statement timed, every operation counted), tracing off in both.
 *
 * Two figures a pass: the requests a second the load generator got (it shares the machine's cores
 * with the service, so scheduling moves it by a few percent from pass to pass), and the service
 * process's own CPU time per request (process.cpuUsage() over IPC, divided by the requests
 * answered): what metrics add to each read, and what a service bound by its CPU loses in
 * throughput (`off / on` of it is the throughput kept).
 *
 * Two processes of one build and setting can differ by up to 10% for their whole life (what the
 * compiler made of them), more than the difference measured. So the setting is compared over
 * BENCH_METRICS_PAIRS pairs of fresh processes (one off, one on, started together, 6 by default),
 * neither of which made the record they read (a third process did); each read is warmed up on both,
 * then measured in alternating passes (off, on, on, off). The figures are the means over the pairs,
 * with the range of the processes' own means beside them, and the median of the pairs' own ratios
 * (one process the compiler served badly moves the means, not the median). Asserts nothing (goal:
 * reads lose at most 5%).
 *
 *   npm run bench                          (BENCH_SECONDS per read, process and setting, 6 by default)
 *   BENCH_ONLY=metrics BENCH_METRICS_PAIRS=8 npm run bench
 */
import autocannon from 'autocannon';
import { print } from 'graphql';
import os from 'node:os';
import { GetRecordDocument } from '../src/graph/catalog/generated.js';
import { Bench, selected, type Started } from './support.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 6);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const PAIRS = Number(process.env.BENCH_METRICS_PAIRS ?? 6);
const TOKEN = 'bench-metrics-token-0123456789abcdef';

if (!selected('metrics')) process.exit(0);
const bench = await Bench.open('rss_bench_metrics');

type Target = { label: string; path: string; method?: 'GET' | 'POST'; body?: string; headers?: Record<string, string> };
type Figure = { rps: number; p99: number; bad: number; cpu: number };
type Setting = 'off' | 'on';

async function measure(service: Started, target: Target, seconds: number): Promise<Figure> {
  const options = { url: `${service.url}${target.path}`, method: target.method ?? 'GET', body: target.body, headers: target.headers, connections: CONNECTIONS };
  await autocannon({ ...options, duration: 1 });
  const before = await bench.cpu(service);
  const result = await autocannon({ ...options, duration: seconds });
  const used = (await bench.cpu(service)) - before;
  return { rps: result.requests.average, p99: result.latency.p99, bad: result.non2xx + result.errors + result.timeouts, cpu: used / result.requests.total };
}

const mean = (figures: Figure[], of: (figure: Figure) => number) => figures.reduce((sum, figure) => sum + of(figure), 0) / figures.length;

try {
  const setup = await bench.start('service.js');
  const client = bench.client(setup);
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
  await bench.stop(setup);

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

  console.log(
    `metrics overhead benchmark: ${PAIRS} pairs of processes, autocannon ${CONNECTIONS} connections, two passes of ${SECONDS / 2} s a read and process, Node ${process.version}, ${os.cpus().length} cores, load average before ${os.loadavg().map((n) => n.toFixed(2)).join(' ')}`,
  );
  // Per read and setting: each process's own mean figure.
  const byProcess = new Map<string, Figure[]>();
  let scraped = '';
  for (let pair = 1; pair <= PAIRS; pair++) {
    const services: Record<Setting, Started> = { off: await bench.start('service.js'), on: await bench.start('service.js', { env: { METRICS_TOKEN: TOKEN } }) };
    for (const [key, target] of Object.entries(targets)) {
      // A warm-up of each process on this read (the compiler's work is not what is measured).
      for (const service of Object.values(services)) await measure(service, target, 3);
      const passes: Record<Setting, Figure[]> = { off: [], on: [] };
      for (const setting of ['off', 'on', 'on', 'off'] as const) passes[setting].push(await measure(services[setting], target, SECONDS / 2));
      const line: string[] = [];
      for (const setting of ['off', 'on'] as const) {
        const figure = { rps: mean(passes[setting], (f) => f.rps), p99: mean(passes[setting], (f) => f.p99), cpu: mean(passes[setting], (f) => f.cpu), bad: passes[setting].reduce((sum, f) => sum + f.bad, 0) };
        byProcess.set(`${key} ${setting}`, [...(byProcess.get(`${key} ${setting}`) ?? []), figure]);
        line.push(`${setting} ${figure.rps.toFixed(0).padStart(5)} req/s ${figure.cpu.toFixed(1).padStart(6)} µs CPU${figure.bad ? ` (${figure.bad} non-2xx/errors!)` : ''}`);
      }
      console.log(`  pair ${pair}  ${target.label.padEnd(28)} ${line.join('   ')}`);
    }
    // The process with metrics on did count what it served (a scrape, after the load).
    if (pair === 1) scraped = await (await fetch(`${services.on.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } })).text();
    for (const service of Object.values(services)) await bench.stop(service);
  }

  const statements = /^rss_database_statement_duration_seconds_count (\d+)/m.exec(scraped)?.[1];
  const reads = [...scraped.matchAll(/^rss_graphql_operations_total\{operation="GetRecord",via="(\w+)",outcome="ok"\} (\d+)/gm)].map((m) => `${m[1]} ${m[2]}`);
  console.log(`  the first pair's process with metrics on, scraped after its load: ${(scraped.length / 1024).toFixed(1)} KiB, ${statements ?? '?'} statements timed, GetRecord counted: ${reads.join(', ') || 'none'}`);

  const range = (figures: Figure[], of: (figure: Figure) => number, digits: number) => `${Math.min(...figures.map(of)).toFixed(digits)}-${Math.max(...figures.map(of)).toFixed(digits)}`;
  console.log(
    `\n| read | metrics off: req/s, CPU a request (processes' range) | metrics on: req/s, CPU a request (processes' range) | req/s on / off: means (pairs' median) | CPU off / on, the throughput kept: means (pairs' median) | goal |\n|---|---|---|---|---|---|`,
  );
  const median = (values: number[]) => {
    const sorted = [...values].sort((x, y) => x - y);
    const middle = Math.floor(sorted.length / 2);
    return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
  };
  for (const [key, target] of Object.entries(targets)) {
    const [a, b] = [byProcess.get(`${key} off`)!, byProcess.get(`${key} on`)!];
    const cell = (figures: Figure[]) => `${mean(figures, (f) => f.rps).toFixed(0)}, ${mean(figures, (f) => f.cpu).toFixed(1)} µs (${range(figures, (f) => f.cpu, 0)} µs)`;
    const rps = `${(mean(b, (f) => f.rps) / mean(a, (f) => f.rps)).toFixed(3)} (${median(a.map((off, i) => b[i]!.rps / off.rps)).toFixed(3)})`;
    const cpu = `${(mean(a, (f) => f.cpu) / mean(b, (f) => f.cpu)).toFixed(3)} (${median(a.map((off, i) => off.cpu / b[i]!.cpu)).toFixed(3)})`;
    console.log(`| ${target.label} | ${cell(a)} | ${cell(b)} | ${rps} | ${cpu} | >= 0.95 |`);
  }
  console.log(`load average after: ${os.loadavg().map((n) => n.toFixed(2)).join(' ')}`);
} finally {
  await bench.close();
}
