/**
 * Two service processes on one database, told apart by their environment, measured by turns on the
 * same reads: each round runs every path on A then B (B then A in the next round), so a shared
 * machine's drift weighs on both alike. Prints each turn's CPU a request (the serving process's, over
 * IPC) and, per path, the medians and B's median over A's. For changes measured before they are kept.
 *
 *   BENCH_AB_A='GRAPHQL_JIT_OFF=1' BENCH_AB_B='' node scripts/with-db.mjs node dist/bench/ab.bench.js
 *   BENCH_AB_ROUNDS=6 BENCH_SECONDS=3 BENCH_AB_PATHS=graphql,rest,public ...
 *   BENCH_AB_A_DIR=/tmp/old-checkout ...   (A is the service built there, migrated by B's code: reads only)
 */
import path from 'node:path';
import autocannon from 'autocannon';
import { print } from 'graphql';
import { GetRecordDocument } from '../src/graph/catalog/generated.js';
import { Bench, type Started } from './support.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
const ROUNDS = Number(process.env.BENCH_AB_ROUNDS ?? 6);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const PATHS = (process.env.BENCH_AB_PATHS ?? 'graphql,rest').split(',');
const envOf = (text: string | undefined): Record<string, string> =>
  Object.fromEntries((text ?? '').split(' ').filter(Boolean).map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]));

const bench = await Bench.open('rss_ab');
try {
  // BENCH_AB_A_DIR / BENCH_AB_B_DIR: the service built in another checkout (an older commit's `dist/`), on the same database.
  const script = (dir: string | undefined) => (dir ? path.relative(import.meta.dirname, path.join(dir, 'dist/bench/service.js')) : 'service.js');
  const a = await bench.start(script(process.env.BENCH_AB_A_DIR), { env: envOf(process.env.BENCH_AB_A) });
  const b = await bench.start(script(process.env.BENCH_AB_B_DIR), { env: envOf(process.env.BENCH_AB_B) });
  // Seeded through B (with A_DIR set, B runs the newer code, whose schema the database has).
  const client = bench.client(b);
  const initiator = 'bench@example.com';
  const party = 'bob@example.com';
  const token = await client.signIn(initiator);
  const created = await client.call(
    'POST',
    '/api/v1/agreements',
    { title: 'Benchmark agreement', body: 'We agree to measure this service honestly.', on_chain_full_text: false, on_chain_include_verified_parties: false, parties: [{ display_name: 'Bob', contact_point_value: party }] },
    token,
  );
  await client.sign(token, initiator, created.id);
  await client.call('POST', `/api/v1/agreements/${created.id}/submit`, undefined, token);
  await client.sign(await client.signIn(party), party, created.id);
  const bearer = { authorization: `Bearer ${token}` };
  // Each side's own record document: a service built from another checkout knows that checkout's schema.
  const graphqlBody = async (dir: string | undefined) => {
    const document = dir ? ((await import(path.join(dir, 'dist/src/graph/catalog/generated.js'))) as { GetRecordDocument: typeof GetRecordDocument }).GetRecordDocument : GetRecordDocument;
    return JSON.stringify({ query: print(document), variables: { id: created.id } });
  };
  const bodies = new Map([[a, await graphqlBody(process.env.BENCH_AB_A_DIR)], [b, await graphqlBody(process.env.BENCH_AB_B_DIR)]]);
  const targets: Record<string, (server: Started) => autocannon.Options> = {
    graphql: (server) => ({ url: `${server.url}/graphql`, method: 'POST', body: bodies.get(server), headers: { ...bearer, 'content-type': 'application/json' } }),
    rest: (server) => ({ url: `${server.url}/api/v1/agreements/${created.id}`, headers: bearer }),
    public: (server) => ({ url: `${server.url}/api/v1/public/agreements/${created.agr_reference}` }),
  };
  const cpu: Record<string, { a: number[]; b: number[] }> = Object.fromEntries(PATHS.map((key) => [key, { a: [], b: [] }]));
  const measure = async (server: Started, key: string) => {
    const options = { ...targets[key]!(server), connections: CONNECTIONS };
    await autocannon({ ...options, duration: 1 });
    const before = await bench.cpu(server);
    const result = await autocannon({ ...options, duration: SECONDS });
    if (result.non2xx + result.errors > 0) throw new Error(`${key}: ${result.non2xx} non-2xx, ${result.errors} errors`);
    return ((await bench.cpu(server)) - before) / Math.max(1, result.requests.total);
  };
  console.log(`A: ${process.env.BENCH_AB_A_DIR ?? ''} ${process.env.BENCH_AB_A ?? ''} | B: ${process.env.BENCH_AB_B_DIR ?? ''} ${process.env.BENCH_AB_B ?? ''} | ${ROUNDS} rounds of ${SECONDS} s a path`);
  for (let round = 0; round < ROUNDS; round += 1) {
    const order = round % 2 === 0 ? (['a', 'b'] as const) : (['b', 'a'] as const);
    for (const key of PATHS) {
      for (const side of order) cpu[key]![side].push(await measure(side === 'a' ? a : b, key));
      console.log(`  round ${round + 1} ${key.padEnd(8)} A ${cpu[key]!.a.at(-1)!.toFixed(0).padStart(5)} µs  B ${cpu[key]!.b.at(-1)!.toFixed(0).padStart(5)} µs`);
    }
  }
  const median = (values: number[]) => [...values].sort((x, y) => x - y)[Math.floor(values.length / 2)]!;
  console.log('\n| path | A: CPU a request (median) | B | B / A |\n|---|---|---|---|');
  for (const key of PATHS) {
    const { a: ax, b: bx } = cpu[key]!;
    const ratios = ax.map((value, i) => bx[i]! / value);
    console.log(`| ${key} | ${median(ax).toFixed(0)} µs | ${median(bx).toFixed(0)} µs | ${median(ratios).toFixed(3)} (turns ${ratios.map((r) => r.toFixed(2)).join(' ')}) |`);
  }
} finally {
  await bench.close();
}
