/**
 * Ceremonies and sealing, as `npm start` runs them: the service in its own process with its jobs,
 * the default sealing workers (SEAL_WORKERS) and the embedded chain (CHAIN_RPC_URL, which
 * `npm run bench` starts). After one unmeasured round of ceremonies (each initiator signs a record of
 * their own at a person's pace; nothing seals), prints, asserting nothing:
 *
 * - the latency of each ceremony step (start or resume, method start, code submit, finalize) with
 *   BENCH_CEREMONIES ceremonies at once (p50, p99, max): the initiators' at a person's pace (each
 *   initiator on their own signs and then submits their records one after another, with a random
 *   pause of up to 2 x BENCH_THINK_MS before each step and each submit; their finalize seals
 *   nothing, and they all finish before any record seals), the parties' all sending the same step at
 *   the same instant (each finalize seals, and earlier bursts' artifacts are still in the making:
 *   the heaviest load this bench makes);
 * - sealing throughput: BENCH_SEALS records sealed in back-to-back bursts of BENCH_CEREMONIES, each
 *   done when its signed PDF and share card exist and its anchor is confirmed on the chain;
 *   records/s from the first seal to the last record done.
 *
 *   BENCH_ONLY=sealing BENCH_SEALS=200 BENCH_CEREMONIES=50 SEAL_WORKERS=4 npm run bench
 */
import path from 'node:path';
import pg from 'pg';
import { defaultSealWorkers } from '../src/config.js';
import { agreement, Bench, percentile, selected } from './support.js';

if (!selected('sealing')) process.exit(0);
const SEALS = Number(process.env.BENCH_SEALS ?? 300);
const AT_ONCE = Number(process.env.BENCH_CEREMONIES ?? 50);
/** The initiators sign at a person's pace: a random pause of 0 to 2 x BENCH_THINK_MS before each step. */
const THINK_MS = Number(process.env.BENCH_THINK_MS ?? 1000);
if (!process.env.CHAIN_RPC_URL) throw new Error('CHAIN_RPC_URL is required (npm run bench starts the embedded chain)');

const bench = await Bench.open('rss_bench_sealing');
const db = new pg.Client({ connectionString: bench.databaseUrl });
try {
  const profile = process.env.BENCH_PROFILE === '1' ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve('.local/profiles')}`] : [];
  const service = await bench.start('service.js', { env: { BENCH_JOBS: '1' }, execArgv: profile });
  const client = bench.client(service);
  const resident = bench.residentSampler(service);
  await db.connect();

  // One initiator and one party per ceremony slot, each with their own mailbox (codes cannot mix).
  const slots = Array.from({ length: AT_ONCE }, (_, i) => ({ initiator: `initiator${i}@bench.example`, party: `party${i}@bench.example` }));
  const tokens = new Map<string, string>();
  for (const { initiator, party } of slots) {
    tokens.set(initiator, await client.signIn(initiator));
    tokens.set(party, await client.signIn(party));
  }
  const rounds = Math.ceil(SEALS / AT_ONCE);
  resident.phase('warm-up');
  // One unmeasured round first: every initiator signs one record of their own (nothing seals), so
  // the figures are the service's steady state, not its first compilations and connections.
  const warmUp = await Promise.all(
    slots.map(({ initiator }, i) => client.call('POST', '/api/v1/agreements', agreement(`Warm-up agreement ${i}: we agree to warm up.`, `warm-up${i}@bench.example`), tokens.get(initiator))),
  );
  await Promise.all(slots.map(({ initiator }, i) => client.sign(tokens.get(initiator)!, initiator, warmUp[i].id, undefined, THINK_MS)));
  const records: string[][] = [];
  for (let round = 0; round < rounds; round += 1) {
    records.push(
      await Promise.all(
        slots.map(async ({ initiator, party }, i) => {
          const created = await client.call('POST', '/api/v1/agreements', agreement(`Sealing benchmark agreement ${round}-${i}: we agree to measure.`, party), tokens.get(initiator));
          return created.id as string;
        }),
      ),
    );
  }
  const total = rounds * AT_ONCE;

  const quiet: number[] = [];
  const steps = new Map<string, number[]>();
  const bySteps = (step: string) => steps.get(step) ?? steps.set(step, []).get(step)!;
  const sealing: number[] = [];
  let firstSeal = 0;
  // First the initiators, each on their own, sign their records one after another at a person's pace
  // (nothing seals), submitting each after a pause of the same kind (not measured: not a ceremony
  // step); then the parties sign in bursts (each finalize seals), so the sealing figure measures
  // sealing, not the initiators' pauses.
  resident.phase('initiators at a person\'s pace');
  const pause = () => new Promise((resolve) => setTimeout(resolve, Math.random() * 2 * THINK_MS));
  await Promise.all(
    slots.map(async ({ initiator }, i) => {
      for (let round = 0; round < rounds; round += 1) {
        const record = records[round]![i]!;
        await client.sign(tokens.get(initiator)!, initiator, record, (ms, step) => quiet.push(ms) && bySteps(step).push(ms), THINK_MS);
        await pause();
        await client.call('POST', `/api/v1/agreements/${record}/submit`, undefined, tokens.get(initiator));
      }
    }),
  );
  resident.phase('parties in bursts, sealing');
  for (let round = 0; round < rounds; round += 1) {
    firstSeal ||= performance.now();
    const sealed = await Promise.all(slots.map(({ party }, i) => client.sign(tokens.get(party)!, party, records[round]![i]!, (ms) => sealing.push(ms))));
    const notSealed = sealed.filter((record: { status: string }) => record.status !== 'sealed');
    if (notSealed.length > 0) throw new Error(`${notSealed.length} records did not seal`);
  }

  const burstsEnded = (performance.now() - firstSeal) / 1000;
  // Done: both artifacts made and the anchor confirmed.
  resident.phase('sealing after the last signature');
  const ids = records.flat();
  let done = 0;
  // When the last artifact and the last anchor were done (seconds after the first seal).
  let artifactsAt = 0;
  let anchorsAt = 0;
  const deadline = performance.now() + 600_000;
  while (done < total && performance.now() < deadline) {
    const { rows } = await db.query<{ done: string; drawn: string; anchored: string }>(
      `select count(*) filter (where anchored and drawn) as done, count(*) filter (where drawn) as drawn, count(*) filter (where anchored) as anchored
         from (select s.anchor_status = 'confirmed' as anchored,
                      (select count(distinct a.kind) from sealed_artifacts a where a.record_id = s.record_id) = 2 as drawn
                 from record_seals s where s.record_id = any($1::uuid[])) t`,
      [ids],
    );
    done = Number(rows[0]!.done);
    const now = (performance.now() - firstSeal) / 1000;
    if (!artifactsAt && Number(rows[0]!.drawn) === total) artifactsAt = now;
    if (!anchorsAt && Number(rows[0]!.anchored) === total) anchorsAt = now;
    if (done < total) await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const seconds = (performance.now() - firstSeal) / 1000;
  const peaks = resident.peaks();
  resident.stop();
  const memory = await bench.memory(service);
  const { rows: batches } = await db.query<{ n: string }>('select count(*) as n from anchor_batches');

  const ms = (value: number) => `${value.toFixed(1)} ms`;
  const line = (label: string, steps: number[]) =>
    console.log(`| ${label} | ${steps.length} | ${ms(percentile(steps, 50))} | ${ms(percentile(steps, 99))} | ${ms(Math.max(...steps))} | < 50 ms |`);
  console.log(`\nceremonies and sealing: ${AT_ONCE} ceremonies at once, ${total} records (after a warm-up round of ${AT_ONCE} unmeasured ceremonies), SEAL_WORKERS=${process.env.SEAL_WORKERS ?? `default (${defaultSealWorkers})`}`);
  console.log('\n| ceremony steps | steps | p50 | p99 | max | goal (p99) |\n|---|---|---|---|---|---|');
  line(`${AT_ONCE} at once at a person's pace (0-${(2 * THINK_MS) / 1000} s pauses), initiators`, quiet);
  line(`${AT_ONCE} at once, each step sent by all at the same instant, parties (each finalize seals)`, sealing);
  for (const [step, values] of steps) line(`initiators: ${step}`, values);
  console.log('\n| sealing | records | seconds | records/s | goal |\n|---|---|---|---|---|');
  console.log(
    `| PDF + card + anchor confirmed (${batches[0]!.n} anchor transactions) | ${done} of ${total} | ${seconds.toFixed(1)} | ${(done / seconds).toFixed(1)} | >= 40 (${done / seconds >= 40 ? 'met' : 'NOT met'}) |`,
  );
  console.log(
    `(the parties' last finalize ${burstsEnded.toFixed(1)} s after the first seal, all cards and PDFs drawn ${artifactsAt.toFixed(1)} s after it, all anchors confirmed ${anchorsAt.toFixed(1)} s after it)`,
  );
  const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(0)} MiB`;
  console.log(
    `\nservice RSS at its peak: ${mib(memory.peak)}, after sealing: ${mib(memory.rss)} (goal < 300 MB); main thread's V8 heap ${mib(memory.heapUsed)} used of ${mib(memory.heapTotal)}, external ${mib(memory.external)}; after a full collection: RSS ${mib(memory.collected.rss)}, heap ${mib(memory.collected.heapUsed)}`,
  );
  console.log(`  peak RSS by phase: ${[...peaks].map(([phase, bytes]) => `${phase} ${mib(bytes)}`).join(', ')}`);
  console.log(`  resident MiB by mapping: ${Object.entries(memory.mappings).map(([name, size]) => `${name} ${size}`).join(', ')}`);
} finally {
  await db.end().catch(() => undefined);
  await bench.close();
}
