/**
 * Bulk export (issue 48), as `npm start` runs the service (its own process, jobs on): one record is
 * sealed for real (a declaration signed with an email code; its PDF made by the seal job), then
 * copied in SQL to BENCH_EXPORT_RECORDS records in all (default 1,000): the same PDF bytes, seal
 * metadata, audit trail and participants under new ids and references (each copy's metadata hash
 * made distinct, as the schema wants). The export's memory does not depend on what the bytes say,
 * only on their size and number, so copies measure it as well as 1,000 ceremonies would, in seconds.
 * Prints, asserting nothing:
 *
 * - the export job: from the request to `ready` (it checks each PDF exists), records/s;
 * - the ZIP download streamed through a counting sink: bytes, seconds, records/s;
 * - the service's resident memory: before, and its peak while the job ran and while the ZIP streamed.
 *
 *   BENCH_ONLY=export BENCH_EXPORT_RECORDS=10000 npm run bench
 */
import path from 'node:path';
import pg from 'pg';
import { Bench, selected } from './support.js';

if (!selected('export')) process.exit(0);
const RECORDS = Number(process.env.BENCH_EXPORT_RECORDS ?? 1000);
/** What of each record the ZIP holds (comma-separated; default all: pdf, audit_trail, sealed_metadata). */
const INCLUDE = process.env.BENCH_EXPORT_INCLUDE?.split(',').map((part) => part.trim());
const MiB = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MiB`;

const bench = await Bench.open('rss_bench_export');
const db = new pg.Client({ connectionString: bench.databaseUrl });
try {
  const profile = process.env.BENCH_PROFILE === '1' ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve('.local/profiles')}`] : [];
  const service = await bench.start('service.js', { env: { BENCH_JOBS: '1' }, execArgv: profile });
  const client = bench.client(service);
  const resident = bench.residentSampler(service);
  await db.connect();

  const email = 'exporter@bench.example';
  const token = await client.signIn(email);
  const created = await client.call('POST', '/api/v1/declarations', { title: 'Exported declaration', body: 'We declare this record sealed for the export benchmark.', on_chain_full_text: false, on_chain_include_verified_parties: false }, token);
  await client.sign(token, email, created.id);
  await client.call('POST', `/api/v1/agreements/${created.id}/submit`, {}, token);
  // Its PDF, made by the seal job.
  for (let tries = 0; ; tries += 1) {
    const { rows } = await db.query(`select 1 from sealed_artifacts where record_id = $1 and kind = 'sealed_pdf'`, [created.id]);
    if (rows.length > 0) break;
    if (tries > 600) throw new Error('the sealed PDF was never made');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }

  // The copies: every column as the original's, but ids, references, and each seal's metadata hash.
  const copies = RECORDS - 1;
  await db.query('create temporary table copies as select gen_random_uuid() as id, g from generate_series(1, $1::int) g', [copies]);
  const columns = async (table: string) =>
    (await db.query<{ column_name: string }>('select column_name from information_schema.columns where table_name = $1 order by ordinal_position', [table])).rows.map((row) => row.column_name);
  const copy = async (table: string, replaced: Record<string, string>) => {
    const names = await columns(table);
    const values = names.map((name) => replaced[name] ?? `t.${name}`);
    await db.query(`insert into ${table} (${names.map((name) => `"${name}"`).join(', ')}) select ${values.join(', ')} from ${table} t cross join copies c where t.record_id = $1`, [created.id]);
  };
  const started = performance.now();
  const names = await columns('records');
  await db.query(
    `insert into records (${names.map((name) => `"${name}"`).join(', ')})
     select ${names.map((name) => (name === 'id' ? 'c.id' : name === 'reference' ? `'AGR-' || upper(substr(md5(c.g::text), 1, 4)) || '-' || lpad(c.g::text, 5, '0')` : `t.${name}`)).join(', ')}
       from records t cross join copies c where t.id = $1`,
    [created.id],
  );
  await copy('record_seals', { record_id: 'c.id', metadata_hash: `'sha256:' || encode(sha256(c.id::text::bytea), 'hex')` });
  await copy('sealed_artifacts', { id: 'gen_random_uuid()', record_id: 'c.id' });
  await copy('sealed_document_versions', { record_id: 'c.id' });
  await copy('record_audit_entries', { id: 'gen_random_uuid()', record_id: 'c.id' });
  await copy('participants', { id: 'gen_random_uuid()', record_id: 'c.id' });
  const [{ bytes }] = (await db.query<{ bytes: string }>(`select sum(byte_size) as bytes from sealed_artifacts where kind = 'sealed_pdf'`)).rows as [{ bytes: string }];
  console.log(`export bench: ${RECORDS} sealed records (${MiB(Number(bytes))} of sealed PDFs) in ${((performance.now() - started) / 1000).toFixed(1)} s`);

  const before = (await bench.memory(service)).rss;
  resident.phase('job');
  const asked = performance.now();
  const exported = await client.call('POST', '/api/v1/exports', INCLUDE ? { include: INCLUDE } : {}, token);
  let view = exported;
  while (view.status !== 'ready') {
    if (view.status === 'failed') throw new Error('the export failed');
    await new Promise((resolve) => setTimeout(resolve, 100));
    view = await client.call('GET', `/api/v1/exports/${exported.id}`, undefined, token);
  }
  const prepared = (performance.now() - asked) / 1000;

  resident.phase('download');
  const streamed = performance.now();
  const response = await fetch(view.download.url.replace(/^https?:\/\/[^/]+/, client.url));
  let zipBytes = 0;
  for await (const chunk of response.body!) zipBytes += (chunk as Uint8Array).byteLength;
  const seconds = (performance.now() - streamed) / 1000;
  resident.phase('after');
  const peaks = resident.peaks();
  resident.stop();
  console.log(`| export of ${view.total} records | figure |`);
  console.log('|---|---|');
  console.log(`| export job (request to ready) | ${prepared.toFixed(2)} s (${(view.total / prepared).toFixed(0)} records/s) |`);
  console.log(`| ZIP download (${response.status}, ${MiB(zipBytes)}) | ${seconds.toFixed(2)} s (${(view.total / seconds).toFixed(0)} records/s, ${MiB(zipBytes / seconds)}/s) |`);
  console.log(`| service resident memory before / peak during the job / peak during the download | ${MiB(before)} / ${MiB(peaks.get('job') ?? Number.NaN)} / ${MiB(peaks.get('download') ?? Number.NaN)} |`);
  const after = await bench.memory(service);
  console.log(`| service heap after the download (used / after a full collection) | ${MiB(after.heapUsed)} / ${MiB(after.collected.heapUsed)} |`);
} finally {
  await db.end().catch(() => undefined);
  await bench.close();
}
