/**
 * What one ceremony step costs the service when nothing else runs: BENCH_STEP_CEREMONIES
 * ceremonies (default 100) signed one after another by one initiator (start or resume, method start,
 * code submit, finalize; nothing seals), after 10 to warm up. Prints each step's latency and the CPU
 * time the service's threads spent a step (from /proc: user + system, the code's mail included),
 * asserting nothing. The main thread's figure bounds how many steps it serves at once: with 50
 * ceremonies at once (the sealing bench), its queue is what a step's p99 waits in.
 *
 *   BENCH_ONLY=steps npm run bench
 */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { agreement, Bench, percentile, selected } from './support.js';

if (!selected('steps')) process.exit(0);
const CEREMONIES = Number(process.env.BENCH_STEP_CEREMONIES ?? 100);
const WARM_UP = 10;

/** CPU milliseconds so far (user + system) of each of the process's threads, summed by thread name. */
async function threadCpu(pid: number): Promise<Map<string, number>> {
  const byName = new Map<string, number>();
  for (const tid of await readdir(`/proc/${pid}/task`)) {
    const stat = await readFile(`/proc/${pid}/task/${tid}/stat`, 'utf8').catch(() => null);
    if (!stat) continue;
    const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    // After the name (which may hold spaces): utime and stime are the 12th and 13th fields, in ticks of 10 ms.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    byName.set(name, (byName.get(name) ?? 0) + (Number(fields[11]) + Number(fields[12])) * 10);
  }
  return byName;
}

const bench = await Bench.open('rss_bench_steps');
try {
  const profile = process.env.BENCH_PROFILE === '1' ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve('.local/profiles')}`] : [];
  const service = await bench.start('service.js', { execArgv: profile });
  const pid = service.child.pid!;
  const client = bench.client(service);
  const initiator = 'steps-initiator@bench.example';
  const token = await client.signIn(initiator);
  const ids: string[] = [];
  for (let i = 0; i < CEREMONIES + WARM_UP; i += 1) {
    ids.push((await client.call('POST', '/api/v1/agreements', agreement(`Steps benchmark agreement ${i}: we agree to measure.`, `steps-party${i}@bench.example`), token)).id);
  }
  const latency = new Map<string, number[]>();
  let before = new Map<string, number>();
  for (const [i, id] of ids.entries()) {
    if (i === WARM_UP) before = await threadCpu(pid);
    await client.sign(token, initiator, id, (ms, step) => i >= WARM_UP && (latency.get(step) ?? latency.set(step, []).get(step)!).push(ms));
  }
  const after = await threadCpu(pid);
  const steps = CEREMONIES * latency.size;
  const perStep = new Map([...after].map(([name, ms]) => [name, (ms - (before.get(name) ?? 0)) / steps]));
  const ms = (value: number) => `${value.toFixed(1)} ms`;
  console.log(`\nceremony steps alone: ${CEREMONIES} ceremonies one after another (after ${WARM_UP} to warm up), one email code each, nothing seals`);
  console.log('\n| step | p50 | p99 |\n|---|---|---|');
  for (const [step, values] of latency) console.log(`| ${step} | ${ms(percentile(values, 50))} | ${ms(percentile(values, 99))} |`);
  const total = [...perStep.values()].reduce((sum, value) => sum + value, 0);
  const threads = [...perStep].filter(([, value]) => value >= 0.05).map(([name, value]) => `${name} ${ms(value)}`);
  console.log(`\nservice CPU a step: ${ms(total)} (${threads.join(', ')})`);
} finally {
  await bench.close();
}
