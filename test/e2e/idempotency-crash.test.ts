import type { ChildProcess } from 'node:child_process';
import { createDecipheriv, hkdfSync, randomUUID } from 'node:crypto';
import pg from 'pg';
import { agreementBody, startTestApp, type TestApp } from '../support/harness.js';
import { waitFor } from '../support/wait.js';
import { startInstanceProcess } from '../support/instance-process.js';

/**
 * An Idempotency-Key's claim commits with the change it ran: a process killed after the commit and
 * before it stored the answer leaves a claim that a retry on another instance replays from the
 * record, and never runs again (it used to wait out the 120 s lease and then create a second record).
 */
describe('Idempotency-Key across a crash between the commit and the stored answer', () => {
  let t: TestApp;
  let admin: pg.Client;
  let doomed: ChildProcess | null = null;

  beforeAll(async () => {
    t = await startTestApp();
    admin = new pg.Client({ connectionString: t.databaseUrl });
    await admin.connect();
  });
  afterAll(async () => {
    if (doomed && doomed.exitCode === null) doomed.kill('SIGKILL');
    await admin.end();
    await t.stop();
  });

  const sleeping = async () => Number((await admin.query(`select count(*) from pg_stat_activity where wait_event = 'PgSleep'`)).rows[0].count);

  /**
   * Sends `request` to another instance's process while every insert into `table` takes 2 s to
   * commit, and kills that process during the commit: the server finishes the commit it was sent,
   * the answer is never stored (nor received).
   */
  const killDuringCommit = async (table: string, request: (base: string) => Promise<Response>) => {
    const instance = await startInstanceProcess(t.databaseUrl, t.config.smtpUrl!, { LOG_LEVEL: 'warn' });
    doomed = instance.child;
    await admin.query(`create function slow_commit() returns trigger language plpgsql as $$ begin perform pg_sleep(2); return null; end $$`);
    await admin.query(`create constraint trigger slow_commit after insert on ${table} deferrable initially deferred for each row execute function slow_commit()`);
    const first = request(instance.url).then((r) => r.status, () => 'no answer');
    try {
      await waitFor(async () => (await sleeping()) > 0, 20_000);
      instance.child.kill('SIGKILL');
      await new Promise((resolve) => instance.child.once('exit', resolve));
      expect(await first).toBe('no answer');
      await waitFor(async () => (await sleeping()) === 0, 20_000);
    } finally {
      await admin.query(`drop trigger if exists slow_commit on ${table}`);
      await admin.query('drop function if exists slow_commit()');
    }
  };

  it('replays the committed record on the retry, with exactly one record made', async () => {
    const token = await t.signIn('crash@example.com');
    const key = randomUUID();
    const body = JSON.stringify(agreementBody({ title: 'Exactly once' }));
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'idempotency-key': key };
    // Each new record's commit takes 2 s: long enough to kill the process while it commits.
    await killDuringCommit('records', (base) => fetch(`${base}/api/v1/agreements`, { method: 'POST', headers, body }));
    const made = await admin.query<{ id: string }>(`select id from records where title = 'Exactly once'`);
    expect(made.rows).toHaveLength(1);
    const claim = await admin.query(`select status, committed_record_id, response from idempotency_keys where committed_record_id is not null`);
    expect(claim.rows).toEqual([{ status: 'committed', committed_record_id: made.rows[0]!.id, response: null }]);

    // The retry, on another instance, at once: the record as it is, as the route answers, marked replayed.
    const retry = await fetch(`${t.url}/api/v1/agreements`, { method: 'POST', headers, body });
    expect(retry.status).toBe(201);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    const replayed = (await retry.json()) as { id: string; title: string };
    expect(replayed).toMatchObject({ id: made.rows[0]!.id, title: 'Exactly once' });
    expect((await admin.query(`select id from records where title = 'Exactly once'`)).rows).toHaveLength(1);
  }, 120_000);

  it('replays a signature method start that committed before the crash: one mail, and its code still signs', async () => {
    const token = await t.signIn('method-crash@example.com');
    const created = await t.request('POST', '/api/v1/agreements', { token, body: agreementBody({ title: 'Signed once' }) });
    expect(created.status).toBe(201);
    const path = `/api/v1/agreements/${created.body.id}/signature-execution`;
    expect((await t.request('POST', path, { token })).status).toBe(200);
    const key = randomUUID();
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'idempotency-key': key };
    const start = (base: string) => fetch(`${base}${path}/methods/email_otp/start`, { method: 'POST', headers, body: '{}' });
    const before = t.smtp.messages.length;
    // The code's verification event commits with the method's start.
    await killDuringCommit('verification_events', start);
    const claim = await admin.query(`select status, response from idempotency_keys where committed_record_id = $1`, [created.body.id]);
    expect(claim.rows).toEqual([{ status: 'committed', response: null }]);

    // The retry on this instance: the execution as it is (the method pending), marked replayed; nothing sent again.
    const retry = await start(t.url);
    expect(retry.status).toBe(200);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    const replayed = (await retry.json()) as { methods: { method_type: string; status: string }[] };
    expect(replayed.methods.find((m) => m.method_type === 'email_otp')?.status).toBe('pending');
    const mail = await t.smtp.waitFor('method-crash@example.com', (m) => t.smtp.messages.indexOf(m) >= before && m.subject === 'Your signature code');
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(t.smtp.messages.slice(before).filter((m) => m.subject === 'Your signature code')).toHaveLength(1);
    // The one code mailed, before the crash, still satisfies the method.
    const code = /code is (\d{6})/.exec(mail.text)![1]!;
    const submitted = await t.request('POST', `${path}/methods/email_otp/submit`, { token, body: { code } });
    expect(submitted.status).toBe(200);
    expect((submitted.body.methods as { method_type: string; status: string }[]).find((m) => m.method_type === 'email_otp')?.status).toBe('satisfied');
  }, 120_000);

  it("marks a claim committed with its change, and the stored answer replaces the mark", async () => {
    const token = await t.signIn('claims@example.com');
    const key = randomUUID();
    const send = (title: string) =>
      t.request('POST', '/api/v1/agreements', { token, body: agreementBody({ title }), headers: { 'idempotency-key': key } });
    const created = await send('Marked once');
    expect(created.status).toBe(201);
    const row = await admin.query(`select status, committed_record_id from idempotency_keys where committed_record_id = $1`, [created.body.id]);
    // Answered: the stored answer replaces the mark.
    expect(row.rows).toEqual([{ status: 'completed', committed_record_id: created.body.id }]);
    const again = await send('Marked once');
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.id).toBe(created.body.id);
    // The stored answer does not open with the Idempotency-Key alone (the server secret keys it too).
    const [stored] = (await admin.query<{ response: string; scope: string }>(`select response, scope from idempotency_keys where committed_record_id = $1`, [created.body.id])).rows;
    const bytes = Buffer.from(stored!.response, 'base64');
    const keyOnly = Buffer.from(hkdfSync('sha256', key, stored!.scope, 'idempotency-key answer', 32));
    const decipher = createDecipheriv('aes-256-gcm', keyOnly, bytes.subarray(0, 12));
    decipher.setAuthTag(bytes.subarray(12, 28));
    expect(() => Buffer.concat([decipher.update(bytes.subarray(28)), decipher.final()])).toThrow();
  });

  it('answers a GraphQL retry whose change committed without a stored answer with 409 conflict, and runs nothing again', async () => {
    const token = await t.signIn('graph-crash@example.com');
    const key = randomUUID();
    const mutation = 'mutation Create($input: CreateAgreementInput!) { createAgreement(input: $input) { id title } }';
    const input = { title: 'Graph once', body: 'We agree to share the garden equally and to take turns watering it every week.', onChainFullText: false, onChainIncludeVerifiedParties: false, parties: [{ displayName: 'Bob', contactPointValue: 'bob@example.com' }] };
    const first = await t.graphql(mutation, { input }, { token, headers: { 'idempotency-key': key } });
    expect(first.body.data?.createAgreement.title).toBe('Graph once');
    // As a crash between the commit and the stored answer leaves it.
    await admin.query(`update idempotency_keys set status = 'committed', response = null where committed_record_id = $1`, [first.body.data!.createAgreement.id]);
    const retry = await t.graphql(mutation, { input }, { token, headers: { 'idempotency-key': key } });
    expect(retry.status).toBe(409);
    expect(retry.body.errors?.[0]?.extensions).toMatchObject({ code: 'conflict', recordId: first.body.data!.createAgreement.id });
    expect((await admin.query(`select id from records where title = 'Graph once'`)).rows).toHaveLength(1);
  });
});
