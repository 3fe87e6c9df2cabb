/**
 * How fast a bulk send makes drafts: one 1,000-row CSV from a template with two fields and one party
 * role, on the service with its jobs on (its own process, its own database). Prints how long the
 * request took (every row checked and stored) and the rows per second the job made records at, from
 * the answer to the last row done; asserts nothing.
 *
 *   BENCH_ONLY=bulk npm run bench
 *   BENCH_BULK_ROWS=500 BENCH_ONLY=bulk npm run bench
 */
import { Bench, selected } from './support.js';

if (!selected('bulk')) process.exit(0);
const ROWS = Number(process.env.BENCH_BULK_ROWS ?? 1000);

const bench = await Bench.open('rss_bench_bulk');
try {
  const service = await bench.start('service.js', { env: { BENCH_JOBS: '1' } });
  const client = bench.client(service);
  const token = await client.signIn('bulk@bench.example');
  const template = await client.call(
    'POST',
    '/api/v1/templates',
    {
      name: 'Bench lease',
      title: 'Lease of {{plot}}',
      body: 'The tenant {{tenant_name}} leases the garden plot {{plot}} from the owner for a season, and keeps it tidy and watered throughout.',
      fields: [
        { name: 'tenant_name', label: 'Tenant name' },
        { name: 'plot', label: 'Plot' },
      ],
      parties: [{ label: 'Tenant' }],
    },
    token,
  );
  const csv = ['tenant_name,plot,party_1_name,party_1_contact', ...Array.from({ length: ROWS }, (_, i) => `Tenant ${i},P-${i},Tenant ${i},tenant${i}@bench.example`)].join('\n');
  const began = performance.now();
  const response = await fetch(`${service.url}/api/v1/templates/${template.id}/bulk`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'text/csv' }, body: csv });
  const accepted = performance.now();
  const started = (await response.json()) as { id: string };
  if (response.status !== 202) throw new Error(`bulk send refused: ${response.status} ${JSON.stringify(started)}`);
  let view: { status: string; created: number; failed: number } = { status: 'queued', created: 0, failed: 0 };
  while (view.status !== 'completed') {
    await new Promise((resolve) => setTimeout(resolve, 50));
    view = await client.call('GET', `/api/v1/bulk-sends/${started.id}`, undefined, token);
  }
  const done = performance.now();
  if (view.created !== ROWS) throw new Error(`bulk send made ${view.created} of ${ROWS} records (${view.failed} failed)`);
  console.log(`bulk send: ${ROWS} rows (CSV ${Math.round(csv.length / 1024)} KiB) accepted in ${Math.round(accepted - began)} ms (every row checked and stored)`);
  console.log(`bulk send: ${ROWS} drafts made in ${((done - accepted) / 1000).toFixed(1)} s: ${Math.round(ROWS / ((done - accepted) / 1000))} rows/s (one transaction per row, one job)`);
} finally {
  await bench.close();
}
