import fs from 'node:fs';
import pg from 'pg';
import { startTestApp, type TestApp } from '../support/harness.js';
import { productionSettings, startProductionProcess, type ProductionProcess } from '../support/production-process.js';
import { waitFor } from '../support/wait.js';

const TEMPLATE = {
  name: 'Plot lease',
  title: 'Lease of {{plot}}',
  body: 'The tenant {{tenant_name}} leases the garden plot {{plot}} from the owner for a season, and keeps it tidy and watered throughout.',
  fields: [
    { name: 'tenant_name', label: 'Tenant name' },
    { name: 'plot', label: 'Plot number' },
  ],
  parties: [{ label: 'Tenant' }],
};

/** The advisory lock that holds the first instance's inserts while it is killed. */
const GATE = 4_242_001;

/** Rows 17, 100 and 150 are bad: a missing value, an address that is none, a contact type that does not exist. */
const BAD = new Map([
  [17, { line: ',P-17,Tenant 17,t17@plots.example,', path: ['body', 'values', 'tenant_name'], type: 'missing' }],
  [100, { line: 'Tenant 100,P-100,Tenant 100,not-an-address,', path: ['body', 'parties', 0, 'contact_point_value'], type: 'invalid_email' }],
  [150, { line: 'Tenant 150,P-150,Tenant 150,t150@plots.example,fax', path: ['body', 'parties', 0, 'contact_point_type'], type: 'invalid_enum' }],
]);
const CSV = [
  'tenant_name,plot,party_1_name,party_1_contact,party_1_contact_type',
  ...Array.from({ length: 200 }, (_, i) => BAD.get(i + 1)?.line ?? `Tenant ${i + 1},P-${i + 1},Tenant ${i + 1},t${i + 1}@plots.example,email`),
].join('\n');

/**
 * The done-means journey of bulk send: a 200-row CSV with 3 bad rows, run by two built production
 * instances on one database; the one running the job is killed (SIGKILL) midway, the other takes the
 * job over once its lock lapses (JOB_LOCK_SECONDS=2) and finishes. Exactly 197 records exist, one per
 * good row, and the report names the 3 bad rows with their reasons.
 */
describe('Bulk send across two instances, one killed midway', () => {
  let seed: TestApp;
  let production: Awaited<ReturnType<typeof productionSettings>>;
  const instances: ProductionProcess[] = [];
  let db: pg.Client;

  beforeAll(async () => {
    [seed, production] = await Promise.all([startTestApp(), productionSettings()]);
    db = new pg.Client({ connectionString: seed.databaseUrl });
    await db.connect();
  });
  afterAll(async () => {
    for (const instance of instances) instance.kill();
    await db?.end();
    await seed?.stop();
    if (production) fs.rmSync(production.dir, { recursive: true, force: true });
  });

  const start = async () => {
    const instance = await startProductionProcess({
      ...production.env,
      DATABASE_URL: seed.databaseUrl,
      SMTP_URL: seed.config.smtpUrl!,
      MIGRATE_ON_START: 'false',
      JOBS_ENABLED: 'true',
      JOB_LOCK_SECONDS: '2',
      CHAIN_RPC_URL: '',
    });
    instances.push(instance);
    return instance;
  };

  it('creates 197 records exactly once and reports the 3 bad rows', async () => {
    const owner = await seed.signIn('landlord@plots.example');
    const templateId = (await seed.request('POST', '/api/v1/templates', { token: owner, body: TEMPLATE })).body.id as string;
    // Both instances run jobs; the one that takes the bulk send's job dies (SIGKILL) mid-run.
    const both = [await start(), await start()];
    // A gate in this test's own database: once 20 records of the template exist, each further insert
    // waits for an advisory lock the test holds, so the kill lands midway however fast the machine is.
    await db.query(`create function hold_bulk_inserts() returns trigger language plpgsql as $$
      begin
        if (select count(*) from records where template_id = new.template_id) >= 20 then perform pg_advisory_xact_lock_shared(${GATE}); end if;
        return new;
      end $$`);
    await db.query(`create trigger hold_bulk_inserts before insert on records for each row execute function hold_bulk_inserts()`);
    await db.query(`select pg_advisory_lock(${GATE})`);

    const started = await fetch(`${both[0]!.url}/api/v1/templates/${templateId}/bulk`, { method: 'POST', headers: { authorization: `Bearer ${owner}`, 'content-type': 'text/csv' }, body: CSV });
    expect(started.status).toBe(202);
    const { id, failed } = (await started.json()) as { id: string; failed: number };
    expect(failed).toBe(3);
    const created = async () => Number((await db.query(`select count(*) as n from bulk_send_rows where bulk_send_id = $1 and record_id is not null`, [id])).rows[0].n);

    for (const deadline = Date.now() + 30_000; (await created()) < 20; await new Promise((resolve) => setTimeout(resolve, 10))) {
      if (Date.now() > deadline) throw new Error('the bulk send did not start');
    }
    const runs = (instance: ProductionProcess) => instance.logLines().some((line) => line.msg === 'bulk send job started' && line.bulkSendId === id);
    const running = both.find(runs)!;
    const other = both.find((instance) => instance !== running)!;
    running.child.kill('SIGKILL');
    await running.exited;
    const atKill = await created();
    expect(atKill).toBeGreaterThanOrEqual(20);
    expect(atKill).toBeLessThan(197);
    expect(runs(other)).toBe(false);
    // The gate opens: the killed instance's waiting inserts find their client gone and roll back.
    await db.query(`select pg_advisory_unlock(${GATE})`);

    await waitFor(async () => (await db.query(`select status from bulk_sends where id = $1`, [id])).rows[0].status === 'completed', 60_000);
    // The second instance made the rest: its job run logged what it made.
    expect(other.logLines().some((line) => line.msg === 'bulk send rows processed' && line.bulkSendId === id && Number(line.created) > 0)).toBe(true);

    const report = await seed.request('GET', `/api/v1/bulk-sends/${id}`, { token: owner });
    expect(report.body).toMatchObject({ status: 'completed', total: 200, processed: 200, created: 197, submitted: 0, failed: 3 });
    expect(report.body.failures.map((f: { row: number; record_id: string | null; issues: { loc: unknown[]; type: string }[] }) => [f.row, f.record_id, f.issues.map((i) => [i.loc, i.type])])).toEqual(
      [...BAD].map(([row, bad]) => [row, null, [[bad.path, bad.type]]]),
    );

    // Exactly one record per good row: 197 records from the template, 197 distinct links, no title twice.
    const records = await db.query<{ count: string }>('select count(*) from records where template_id = $1', [templateId]);
    expect(Number(records.rows[0]!.count)).toBe(197);
    const links = await db.query<{ rows: string; records: string }>('select count(*) as rows, count(distinct record_id) as records from bulk_send_rows where bulk_send_id = $1 and record_id is not null', [id]);
    expect(links.rows[0]).toEqual({ rows: '197', records: '197' });
    const twice = await db.query('select title from records where template_id = $1 group by title having count(*) > 1', [templateId]);
    expect(twice.rows).toEqual([]);
    const matched = await db.query<{ count: string }>(
      `select count(*) from bulk_send_rows r join records rec on rec.id = r.record_id where r.bulk_send_id = $1 and rec.title = 'Lease of P-' || r.row_number`,
      [id],
    );
    expect(Number(matched.rows[0]!.count)).toBe(197);
  }, 180_000);
});
