import pg from 'pg';
import { startTestApp, type TestApp } from '../support/harness.js';
import { until, watchSubscription } from '../support/subscriptions.js';

const LEASE = {
  name: 'Garden lease',
  title: 'Lease of {{plot}}',
  body: 'The tenant {{tenant_name}} leases the garden plot {{plot}} from the owner for {{months}} months, and keeps it tidy and watered throughout.',
  fields: [
    { name: 'tenant_name', label: 'Tenant name', max_length: 50 },
    { name: 'plot', label: 'Plot number', max_length: 10 },
    { name: 'months', label: 'Months', required: false },
  ],
  parties: [{ label: 'Tenant' }, { label: 'Guarantor' }],
};

const party = (name: string, email: string) => ({ display_name: name, contact_point_value: email });
const row = (n: number) => ({ values: { tenant_name: `Tenant ${n}`, plot: `P-${n}`, months: '6' }, parties: [party(`Tenant ${n}`, `tenant${n}@garden.example`), party(`Guarantor ${n}`, `guarantor${n}@garden.example`)] });
const CSV_HEADER = 'tenant_name,plot,months,party_1_name,party_1_contact,party_2_name,party_2_contact,party_2_contact_type';
const csvRow = (n: number) => `Tenant ${n},P-${n},6,Tenant ${n},tenant${n}@garden.example,Guarantor ${n},guarantor${n}@garden.example,email`;

const BULK_SEND = `query ($id: ID!) { bulkSend(id: $id) { id status total processed created submitted failed failures { row recordId issues { path message code } } } }`;

describe('Bulk send from a template', () => {
  let t: TestApp;
  let db: pg.Client;
  let owner: string;
  let templateId: string;

  beforeAll(async () => {
    t = await startTestApp({ JOBS_ENABLED: 'true' });
    db = new pg.Client({ connectionString: t.databaseUrl });
    await db.connect();
    owner = await t.signIn('landlord@bulk.example');
    templateId = (await t.request('POST', '/api/v1/templates', { token: owner, body: LEASE })).body.id;
  }, 60_000);
  afterAll(async () => {
    await db?.end();
    await t?.stop();
  });

  const finished = async (id: string, credentials: { token?: string; apiKey?: string } = { token: owner }) => {
    let last: any;
    for (const deadline = Date.now() + 30_000; Date.now() < deadline; await new Promise((resolve) => setTimeout(resolve, 100))) {
      last = (await t.request('GET', `/api/v1/bulk-sends/${id}`, credentials)).body;
      if (last.status === 'completed') return last;
    }
    throw new Error(`bulk send ${id} not completed: ${JSON.stringify(last)}`);
  };
  const recordsOf = async (bulkSendId: string) =>
    (await db.query<{ row_number: number; record_id: string }>(`select row_number, record_id from bulk_send_rows where bulk_send_id = $1 and record_id is not null order by row_number`, [bulkSendId])).rows;

  it('makes a draft per good JSON row, and reports each bad row with the issues a single create gives', async () => {
    const bad = { values: { tenant_name: 'Tess', colour: 'green' }, parties: [party('Tess', 'tess@garden.example'), party('Gus', 'not-an-address')] };
    const started = await t.request('POST', `/api/v1/templates/${templateId}/bulk`, { token: owner, body: { rows: [row(1), bad, row(3)] } });
    expect(started.status).toBe(202);
    expect(started.body).toMatchObject({ template_id: templateId, template_version: 1, total: 3, failed: 1, submit: false, failures: [{ row: 2, record_id: null }] });

    const single = await t.request('POST', `/api/v1/templates/${templateId}/records`, { token: owner, body: bad });
    expect(single.status).toBe(422);
    expect(started.body.failures[0].issues).toEqual(single.body.detail);
    // A filled text the record rules refuse, after the template's own checks pass.
    const badContact = { ...row(4), parties: [party('Tess', 'tess@garden.example'), party('Gus', 'not-an-address')] };
    const second = await t.request('POST', `/api/v1/templates/${templateId}/bulk`, { token: owner, body: { rows: [badContact] } });
    expect(second.body.failures[0].issues).toEqual((await t.request('POST', `/api/v1/templates/${templateId}/records`, { token: owner, body: badContact })).body.detail);
    expect(second.body.status).toBe('completed');

    const done = await finished(started.body.id);
    expect(done).toMatchObject({ status: 'completed', total: 3, processed: 3, created: 2, submitted: 0, failed: 1 });
    expect(done.finished_at).not.toBeNull();
    const made = await recordsOf(started.body.id);
    expect(made.map((r) => r.row_number)).toEqual([1, 3]);
    const record = await t.request('GET', `/api/v1/agreements/${made[0]!.record_id}`, { token: owner });
    expect(record.body).toMatchObject({ status: 'draft', title: 'Lease of P-1', template: { id: templateId, version: 1 } });
  });

  it('reads a CSV file, row numbers as in the file, and lists the bulk sends', async () => {
    const csv = [CSV_HEADER, csvRow(1), 'Tenant 2,P-2,,Tenant 2,tenant2@garden.example,Guarantor 2,guarantor2@garden.example,fax', csvRow(3), '"Tenant, four",P-4,,T4,t4@garden.example,G4,g4@garden.example,'].join('\n');
    const started = await t.request('POST', `/api/v1/templates/${templateId}/bulk`, { token: owner, body: csv, headers: { 'content-type': 'text/csv' } });
    expect(started.status).toBe(202);
    expect(started.body.failures).toEqual([{ row: 2, record_id: null, issues: [{ loc: ['body', 'parties', 1, 'contact_point_type'], msg: "Must be 'email' or 'messenger'", type: 'invalid_enum' }] }]);
    const done = await finished(started.body.id);
    expect(done).toMatchObject({ created: 3, failed: 1 });
    const fourth = (await recordsOf(started.body.id)).find((r) => r.row_number === 4)!;
    expect((await t.request('GET', `/api/v1/agreements/${fourth.record_id}`, { token: owner })).body.body).toContain('The tenant Tenant, four leases the garden plot P-4 from the owner for  months');

    const listed = await t.request('GET', '/api/v1/bulk-sends', { token: owner });
    expect(listed.status).toBe(200);
    expect(listed.body.bulk_sends.map((b: { id: string }) => b.id)).toContain(started.body.id);
  });

  it('refuses a malformed file as a whole and stores nothing', async () => {
    const count = async () => Number((await db.query('select count(*) from bulk_sends')).rows[0].count);
    const before = await count();
    const send = (csv: string) => t.request('POST', `/api/v1/templates/${templateId}/bulk`, { token: owner, body: csv, headers: { 'content-type': 'text/csv' } });
    const cases: [string, RegExp][] = [
      [`${CSV_HEADER},colour\n${csvRow(1)},green`, /no column 'colour'/],
      ['tenant_name,plot,party_1_name,party_1_contact\nT,P,T,t@garden.example', /'party_2_name' is missing/],
      [`${CSV_HEADER}\n${csvRow(1)}\n"Tenant 2,P-2`, /line 3/],
      [`${CSV_HEADER}\n${csvRow(1)},extra`, /Not a CSV file/],
      [CSV_HEADER, /at least one row/],
      [[CSV_HEADER, ...Array.from({ length: 1001 }, (_, i) => `T${i},P,,T,t${i}@g.example,G,g${i}@g.example,`)].join('\n'), /At most 1000 rows/],
    ];
    for (const [csv, message] of cases) {
      const refused = await send(csv);
      expect(refused.status).toBe(422);
      expect(refused.body.detail[0].loc[1]).toBe('csv');
      expect(refused.body.detail.map((d: { msg: string }) => d.msg).join(' ')).toMatch(message);
    }
    const neither = await t.request('POST', `/api/v1/templates/${templateId}/bulk`, { token: owner, body: {} });
    expect(neither.status).toBe(422);
    const notCsv = await t.request('POST', `/api/v1/templates/${templateId}/bulk`, { token: owner, body: 'a,b', headers: { 'content-type': 'text/plain' } });
    expect(notCsv.status).toBe(415);
    expect(await count()).toBe(before);
  });

  it("answers 404 for another person's template and another person's bulk send", async () => {
    const other = await t.signIn('neighbour@bulk.example');
    expect((await t.request('POST', `/api/v1/templates/${templateId}/bulk`, { token: other, body: { rows: [row(1)] } })).status).toBe(404);
    const mine = (await t.request('POST', `/api/v1/templates/${templateId}/bulk`, { token: owner, body: { rows: [row(1)] } })).body.id;
    const theirs = await t.request('GET', `/api/v1/bulk-sends/${mine}`, { token: other });
    expect(theirs.status).toBe(404);
    expect((await t.graphql(BULK_SEND, { id: mine }, { token: other })).body.errors?.[0]?.extensions?.code).toBe('not_found');
    expect((await t.request('GET', '/api/v1/bulk-sends', { token: other })).body.bulk_sends).toEqual([]);
    await finished(mine);
  });

  it('tells a subscriber its progress until it is completed (GraphQL, CSV in the mutation)', async () => {
    const csv = [CSV_HEADER, ...Array.from({ length: 40 }, (_, i) => csvRow(i + 1))].join('\n');
    const started = await t.graphql<{ startBulkSend: { id: string; total: number } }>(
      `mutation ($templateId: ID!, $input: BulkSendInput!) { startBulkSend(templateId: $templateId, input: $input) { id total status } }`,
      { templateId, input: { csv } },
      { token: owner },
    );
    expect(started.body.errors).toBeUndefined();
    const id = started.body.data!.startBulkSend.id;
    const watch = watchSubscription<{ status: string; processed: number; total: number }>(
      t,
      owner,
      'subscription ($id: ID!) { bulkSendProgress(id: $id) { id status processed total created failed } }',
      'bulkSendProgress',
      { id },
    );
    try {
      await until(() => watch.events.at(-1)?.status === 'completed', 'the completed bulk send', 30_000);
      expect(watch.errors).toEqual([]);
      expect(watch.events.at(-1)).toMatchObject({ processed: 40, total: 40, created: 40, failed: 0 });
      const processed = watch.events.map((event) => event.processed);
      expect(processed).toEqual([...processed].sort((a, b) => a - b));
    } finally {
      await watch.dispose();
    }
  });

  it("submits each draft with a person's API key (its signature, then the invitations), and refuses submit to a session", async () => {
    const oneSigner = (await t.request('POST', '/api/v1/templates', { token: owner, body: { ...LEASE, name: 'One party', parties: [{ label: 'Tenant' }] } })).body.id;
    const rows = [1, 2].map((n) => ({ values: row(n).values, parties: [party(`Tenant ${n}`, `signer${n}@garden.example`)] }));
    const refused = await t.request('POST', `/api/v1/templates/${oneSigner}/bulk`, { token: owner, body: { rows, submit: true } });
    expect(refused.status).toBe(422);
    expect(refused.body.detail[0]).toMatchObject({ loc: ['body', 'submit'] });
    expect(refused.body.detail[0].msg).toMatch(/cannot create signature evidence/);

    const key = (await t.request('POST', '/api/v1/api-keys', { token: owner, body: { scopes: ['create', 'retrieve', 'verify'] } })).body.key as string;
    const before = t.smtp.messages.length;
    const started = await t.request('POST', `/api/v1/templates/${oneSigner}/bulk`, { apiKey: key, body: { rows, submit: true } });
    expect(started.status).toBe(202);
    const done = await finished(started.body.id, { apiKey: key });
    expect(done).toMatchObject({ created: 2, submitted: 2, failed: 0, submit: true });
    for (const n of [1, 2]) await t.smtp.waitFor(`signer${n}@garden.example`, (mail) => t.smtp.messages.indexOf(mail) >= before);
    const made = await recordsOf(started.body.id);
    const record = (await t.request('GET', `/api/v1/agreements/${made[0]!.record_id}`, { apiKey: key })).body;
    expect(record.status).toBe('pending_confirmation');
    const evidence = await db.query(`select m.method_type from signature_methods m join signature_executions e on e.id = m.execution_id where e.record_id = $1 and m.status = 'satisfied'`, [made[0]!.record_id]);
    expect(evidence.rows).toEqual([{ method_type: 'api_key' }]);

    // A template that asks for two methods cannot be signed by the key alone.
    const twoMethods = (await t.request('POST', '/api/v1/templates', { token: owner, body: { ...LEASE, name: 'Two methods', parties: [{ label: 'Tenant' }], defaults: { required_signature_method_count: 2 } } })).body.id;
    const strict = await t.request('POST', `/api/v1/templates/${twoMethods}/bulk`, { apiKey: key, body: { rows, submit: true } });
    expect(strict.status).toBe(422);
    expect(strict.body.detail[0].loc).toEqual(['body', 'submit']);
  });

  it('makes nothing more once the API key that started it is revoked: its rows fail, unauthenticated', async () => {
    // An instance without jobs takes the bulk send; the key is revoked before any instance runs it.
    const quiet = await startTestApp({ JOBS_ENABLED: 'false' });
    let worker: TestApp | undefined;
    try {
      const person = await quiet.signIn('landlord@revoked.example');
      const template = (await quiet.request('POST', '/api/v1/templates', { token: person, body: LEASE })).body.id;
      const key = (await quiet.request('POST', '/api/v1/api-keys', { token: person, body: { scopes: ['create', 'retrieve'] } })).body;
      const started = await quiet.request('POST', `/api/v1/templates/${template}/bulk`, { apiKey: key.key, body: { rows: [row(1), row(2)] } });
      expect(started.status).toBe(202);
      expect((await quiet.request('DELETE', `/api/v1/api-keys/${key.id}`, { token: person })).status).toBe(204);
      // An instance with jobs on the same database finds the unfinished bulk send and runs it as the revoked key.
      worker = await startTestApp({ JOBS_ENABLED: 'true' }, { sameDatabaseAs: quiet });
      let done: any;
      for (const deadline = Date.now() + 90_000; Date.now() < deadline && done?.status !== 'completed'; await new Promise((resolve) => setTimeout(resolve, 200))) {
        done = (await quiet.request('GET', `/api/v1/bulk-sends/${started.body.id}`, { token: person })).body;
      }
      expect(done).toMatchObject({ status: 'completed', created: 0, failed: 2 });
      expect(done.failures.map((f: { issues: { type: string }[] }) => f.issues[0]!.type)).toEqual(['unauthenticated', 'unauthenticated']);
      const made = await quiet.request('GET', '/api/v1/identity/agreements', { token: person });
      expect(made.body.total ?? made.body.agreements?.length ?? 0).toBe(0);
    } finally {
      await worker?.stop();
      await quiet.stop();
    }
  }, 150_000);
});
