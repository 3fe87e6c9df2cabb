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

  it('replays the committed record on the retry, with exactly one record made', async () => {
    const token = await t.signIn('crash@example.com');
    const instance = await startInstanceProcess(t.databaseUrl, t.config.smtpUrl!, { LOG_LEVEL: 'warn' });
    doomed = instance.child;
    // Each new record's commit now takes 2 s: long enough to kill the process while it commits.
    await admin.query(`create function slow_commit() returns trigger language plpgsql as $$ begin perform pg_sleep(2); return null; end $$`);
    await admin.query(`create constraint trigger slow_commit after insert on records deferrable initially deferred for each row execute function slow_commit()`);
    const key = randomUUID();
    const body = JSON.stringify(agreementBody({ title: 'Exactly once' }));
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'idempotency-key': key };
    const first = fetch(`${instance.url}/api/v1/agreements`, { method: 'POST', headers, body }).then((r) => r.status, () => 'no answer');
    try {
      await waitFor(async () => Number((await admin.query(`select count(*) from pg_stat_activity where wait_event = 'PgSleep'`)).rows[0].count) > 0, 20_000);
      instance.child.kill('SIGKILL');
      await new Promise((resolve) => instance.child.once('exit', resolve));
      expect(await first).toBe('no answer');
      // The server finishes the commit it was sent: the record exists, its answer was never stored.
      await waitFor(async () => Number((await admin.query(`select count(*) from pg_stat_activity where wait_event = 'PgSleep'`)).rows[0].count) === 0, 20_000);
    } finally {
      await admin.query('drop trigger if exists slow_commit on records');
      await admin.query('drop function if exists slow_commit()');
    }
    const made = await admin.query<{ id: string }>(`select id from records where title = 'Exactly once'`);
    expect(made.rows).toHaveLength(1);
    const claim = await admin.query(`select status, committed_record_id, response from idempotency_keys`);
    expect(claim.rows).toEqual([{ status: 'committed', committed_record_id: made.rows[0]!.id, response: null }]);

    // The retry, on another instance, at once: the record as it is, as the route answers, marked replayed.
    const retry = await fetch(`${t.url}/api/v1/agreements`, { method: 'POST', headers, body });
    expect(retry.status).toBe(201);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    const replayed = (await retry.json()) as { id: string; title: string };
    expect(replayed).toMatchObject({ id: made.rows[0]!.id, title: 'Exactly once' });
    expect((await admin.query(`select id from records where title = 'Exactly once'`)).rows).toHaveLength(1);
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
