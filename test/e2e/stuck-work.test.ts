import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import pg from 'pg';
import { startTestApp, type TestApp } from '../support/harness.js';
import { ManualClock } from '../support/clock.js';
import { sealTwoPartyAgreement, type SealedAgreement } from '../support/seal-agreement.js';
import { runOps } from '../support/ops.js';
import { waitFor } from '../support/wait.js';

type Family = { name: string; metrics: { value?: string; labels?: Record<string, string> }[] };
type LogLine = Record<string, unknown> & { msg?: string; event?: string };

const TOKEN = 'metrics-token-for-stuck-work-0123456789';
const BODY = 'Marguerite lends her blue canoe to Bob Example for the summer, to be returned waxed by the first of September.';
const MINUTE = 60_000;

/**
 * Stuck work shows itself: a seal whose artifacts are never made (jobs are off in the first instance) is
 * warned about once when it crosses STUCK_SEAL_ARTIFACTS_MINUTES (the instance's clock is moved), then
 * again only after an hour; `rss_stuck_work` counts it; `ops status`, run as a user runs it (a child
 * process on the same database), lists it; `ops retry` enqueues its artifacts job, which an instance with
 * jobs on runs, and everything is clear again.
 */
describe('Stuck work', () => {
  const clock = new ManualClock();
  let t: TestApp;
  let worker: TestApp | null = null;
  let sealed: SealedAgreement;
  let db: pg.Client;

  const ops = (...args: string[]) => runOps(t.databaseUrl, ...args);
  const warnings = (): LogLine[] =>
    t
      .logs()
      .split('\n')
      .filter((line) => line.includes('"event":"stuck_work"'))
      .map((line) => JSON.parse(line) as LogLine)
      .filter((line) => line.event === 'stuck_work');
  const scrape = async (): Promise<Family[]> => {
    const response = await fetch(`${t.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
    return parsePrometheusTextFormat(await response.text());
  };
  const stuckGauge = (families: Family[], kind: string) => Number(families.find((f) => f.name === 'rss_stuck_work')?.metrics.find((m) => m.labels?.kind === kind)?.value ?? 'NaN');

  beforeAll(async () => {
    t = await startTestApp({ METRICS_TOKEN: TOKEN }, { clock });
    db = new pg.Client({ connectionString: t.databaseUrl });
    await db.connect();
    sealed = await sealTwoPartyAgreement(t, { title: 'Canoe loan', body: BODY }, { initiator: 'stuck-a@example.com', party: 'stuck-b@example.com' });
    // The ceremony's mail is sent before the clock moves: only the seal is left waiting.
    await waitFor(async () => (await db.query(`select 1 from mail_outbox where status in ('pending', 'sending')`)).rowCount === 0);
  }, 120_000);
  afterAll(async () => {
    await db?.end();
    await worker?.stop();
    await t?.stop();
  });

  it('warns once when a seal waits for its artifacts past its threshold, with its reference and no secret, then only after an hour', async () => {
    await t.app.services.stuckWork.check();
    expect(warnings()).toEqual([]); // not yet 10 minutes

    clock.advance(11 * MINUTE);
    const first = await t.app.services.stuckWork.check();
    expect(first.stuck).toMatchObject({ seal_artifacts: 1, anchoring: 0, mail_queued: 0, mail_failed: 0, messenger_queued: 0, messenger_failed: 0, webhook_failed: 0 });
    await t.app.services.stuckWork.check();
    clock.advance(5 * MINUTE);
    await t.app.services.stuckWork.check();
    expect(warnings()).toHaveLength(1);
    const [warning] = warnings();
    expect(warning).toMatchObject({ level: 40, msg: 'stuck work', event: 'stuck_work', kind: 'seal_artifacts', agr_reference: sealed.reference, warned_before: 0 });
    expect(warning!.waiting_seconds).toBeGreaterThanOrEqual(11 * 60);
    const text = JSON.stringify(warning);
    for (const secret of ['@example.com', 'Marguerite', 'canoe', sealed.initiator, sealed.party, 'rss_']) expect(text).not.toContain(secret);

    clock.advance(60 * MINUTE);
    await t.app.services.stuckWork.check();
    expect(warnings()).toHaveLength(2);
    expect(warnings()[1]).toMatchObject({ kind: 'seal_artifacts', agr_reference: sealed.reference, warned_before: 1 });
    clock.advance(90 * MINUTE); // the next repeat waits two hours
    await t.app.services.stuckWork.check();
    expect(warnings()).toHaveLength(2);
  });

  it('counts it in rss_stuck_work{kind}', async () => {
    const families = await scrape();
    expect(stuckGauge(families, 'seal_artifacts')).toBe(1);
    for (const kind of ['anchoring', 'mail_queued', 'mail_failed', 'messenger_queued', 'messenger_failed', 'webhook_failed']) expect(stuckGauge(families, kind)).toBe(0);
  });

  it('is listed by `ops status`, in text and in JSON, without any address', async () => {
    const text = await ops('status');
    expect(text.stderr).toBe('');
    expect(text.code).toBe(0);
    expect(text.stdout).toContain('Seals waiting for artifacts: 1');
    expect(text.stdout).toMatch(new RegExp(`${sealed.reference}\\s+sealed .* missing sealed_pdf, share_card`));
    expect(text.stdout).not.toContain('@example.com');

    const json = await ops('status', '--json');
    expect(json.code).toBe(0);
    const backlog = JSON.parse(json.stdout);
    expect(backlog.seals_waiting_artifacts).toMatchObject({ total: 1, items: [{ agr_reference: sealed.reference, missing: ['sealed_pdf', 'share_card'] }] });
    expect(backlog.anchoring).toMatchObject({ pending: 1, retrying: 0, items: [{ agr_reference: sealed.reference, status: 'pending', attempts: 0 }] });
    expect(backlog.mail.by_status.sent).toBeGreaterThan(0);
    expect(backlog.outbox).toMatchObject({ pending: 0 });
    expect(json.stdout).not.toContain('@example.com');
  }, 120_000);

  it('`ops retry` enqueues the artifacts job, an instance with jobs on makes them, and the backlog is clear', async () => {
    const retried = await ops('retry', sealed.reference);
    expect(retried.stderr).toBe('');
    expect(retried.code).toBe(0);
    expect(retried.stdout).toContain(`${sealed.reference}: artifacts job enqueued`);
    const job = await db.query(`select 1 from agenda_jobs where name = 'sealing.make-artifacts' and data->>'recordId' = $1`, [sealed.id]);
    expect(job.rowCount).toBe(1);

    worker = await startTestApp({ JOBS_ENABLED: 'true' }, { sameDatabaseAs: t });
    await waitFor(async () => (await db.query(`select kind from sealed_artifacts where record_id = $1`, [sealed.id])).rowCount === 2, 120_000);
    // The check is one of the jobs an instance runs (every minute, on one instance at a time).
    await waitFor(async () => (await db.query(`select 1 from agenda_jobs where name = 'maintenance.stuck-work' and last_finished_at is not null`)).rowCount === 1);

    const status = JSON.parse((await ops('status', '--json')).stdout);
    expect(status.seals_waiting_artifacts).toEqual({ total: 0, items: [] });
    expect(status.stuck.seal_artifacts).toBe(0);
    const after = await t.app.services.stuckWork.check();
    expect(after.stuck.seal_artifacts).toBe(0);
    expect((await db.query('select 1 from stuck_work_warnings')).rowCount).toBe(0);
    expect(stuckGauge(await scrape(), 'seal_artifacts')).toBe(0);

    const again = await ops('retry', sealed.reference);
    expect(again.code).toBe(4);
    expect(again.stderr).toContain(`${sealed.reference}: nothing to retry`);
  }, 180_000);

  it('`ops retry` of an unknown reference, or of a record not sealed, fails with a clear message', async () => {
    const unknown = await ops('retry', 'AGR-0000-0000');
    expect(unknown.code).toBe(3);
    expect(unknown.stderr).toContain('no record has the reference AGR-0000-0000');

    const token = await t.signIn('stuck-a@example.com');
    const draft = await t.request('POST', '/api/v1/agreements', { token, body: { title: 'Draft', body: BODY, on_chain_full_text: false, on_chain_include_verified_parties: false, parties: [{ display_name: 'Bob', contact_point_value: 'stuck-b@example.com' }] } });
    expect(draft.status).toBe(201);
    const notSealed = await ops('retry', draft.body.agr_reference);
    expect(notSealed.code).toBe(4);
    expect(notSealed.stderr).toContain(`${draft.body.agr_reference} is draft, not sealed: nothing to retry`);

    const usage = await ops('retry');
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain('usage:');
  }, 120_000);

  it('counts messenger messages by status in rss_messenger_messages and `ops status`, a failed one as stuck, without the handle', async () => {
    const handle = '@stuck_work_handle';
    const insert = (status: string, createdAt: Date) =>
      db.query(
        `insert into messenger_outbox (id, handle, text, kind, record_id, participant_id, status, attempts, next_attempt_at, created_at, failed_at)
         values (gen_random_uuid(), $1, null, 'reminder', $2, gen_random_uuid(), $3, 8, $4, $4, $5)`,
        [handle, sealed.id, status, createdAt, status === 'failed' ? createdAt : null],
      );
    const now = new Date(clock.now());
    await insert('failed', now);
    await insert('pending', now);
    await insert('pending', now);

    const gauge = (await scrape()).find((f) => f.name === 'rss_messenger_messages');
    expect(Object.fromEntries(gauge!.metrics.map((m) => [m.labels!.status, Number(m.value)]))).toEqual({ failed: 1, pending: 2 });
    expect(stuckGauge(await scrape(), 'messenger_failed')).toBe(1);

    const json = JSON.parse((await ops('status', '--json')).stdout);
    expect(json.messenger).toEqual({ by_status: { failed: 1, pending: 2 }, newest_failure_at: now.toISOString(), oldest_queued_at: now.toISOString() });
    expect(json.stuck).toMatchObject({ messenger_failed: 1, messenger_queued: 0 });
    const text = await ops('status');
    expect(text.stdout).toContain('Messenger messages: pending 2, sending 0, sent 0, failed 1;');
    expect(`${text.stdout}${JSON.stringify(json)}`).not.toContain(handle);
  }, 120_000);
});
