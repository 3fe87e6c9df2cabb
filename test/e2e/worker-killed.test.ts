import type { ChildProcess } from 'node:child_process';
import pg from 'pg';
import { startTestApp, type TestApp } from '../support/harness.js';
import { sealTwoPartyAgreement } from '../support/seal-agreement.js';
import { waitFor } from '../support/wait.js';
import { startInstanceProcess } from '../support/instance-process.js';

describe('A worker process killed mid-job', () => {
  let t: TestApp;
  let survivor: TestApp | null = null;
  let db: pg.Client;
  let worker: ChildProcess | null = null;

  beforeAll(async () => {
    // This instance runs no jobs: the sealed record's artifacts wait for a worker.
    t = await startTestApp({ JOBS_ENABLED: 'false' });
    db = new pg.Client({ connectionString: t.databaseUrl });
    await db.connect();
  }, 120_000);
  afterAll(async () => {
    if (worker && worker.exitCode === null) worker.kill('SIGKILL');
    await db.end();
    await survivor?.stop();
    await t.stop();
  });

  it('leaves its seal-artifacts job to another worker after the lock lifetime, which completes it exactly once', async () => {
    const sealed = await sealTwoPartyAgreement(t);
    // No instance ran jobs when it was sealed: past the sweep's grace, a worker's sealing sweep enqueues its job.
    await db.query(`update record_seals set sealed_at = sealed_at - interval '2 minutes' where record_id = $1`, [sealed.id]);
    // Storing an artifact waits on this lock: the worker will be stuck mid-job (rendered, not stored).
    const blocker = new pg.Client({ connectionString: t.databaseUrl });
    await blocker.connect();
    await blocker.query('begin');
    await blocker.query('lock table sealed_artifacts in exclusive mode');
    try {
      const started = await startInstanceProcess(t.databaseUrl, t.config.smtpUrl!);
      worker = started.child;
      // The worker's sealing sweep enqueues the record's job at start; its handler reaches the store and waits.
      await waitFor(async () => {
        const { rows } = await db.query<{ n: number }>(
          `select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock' and query ilike '%sealed_artifacts%' and pid <> $1`,
          [(blocker as unknown as { processID: number }).processID],
        );
        return rows[0]!.n > 0;
      }, 20_000).catch(async (error: unknown) => {
        const jobs = await db.query('select name, data, locked_at, last_run_at, next_run_at, last_finished_at, fail_reason from agenda_jobs');
        const activity = await db.query(`select state, wait_event_type, left(query, 120) as q from pg_stat_activity where datname = current_database()`);
        throw new Error(`${String(error)}\n${JSON.stringify(jobs.rows)}\n${JSON.stringify(activity.rows)}\n${started.output().slice(-3000)}`);
      });
      const locked = await db.query(`select last_run_at, locked_at, last_finished_at from agenda_jobs where name = 'sealing.make-artifacts' and data->>'recordId' = $1`, [sealed.id]);
      expect(locked.rows).toHaveLength(1);
      expect(locked.rows[0].locked_at).not.toBeNull();
      expect(locked.rows[0].last_finished_at).toBeNull();
      worker.kill('SIGKILL');
      await new Promise((resolve) => worker!.once('exit', resolve));
      expect(started.output()).not.toContain('sealed artifacts ready');
    } finally {
      await blocker.query('commit');
      await blocker.end();
    }
    // Its database session dies with it: nothing it began is stored.
    await waitFor(async () => {
      const { rows } = await db.query<{ n: number }>(`select count(*)::int as n from pg_stat_activity where datname = current_database() and query ilike '%sealed_artifacts%' and state <> 'idle' and pid <> pg_backend_pid()`);
      return rows[0]!.n === 0;
    });
    expect((await db.query('select count(*)::int as n from sealed_artifacts where record_id = $1', [sealed.id])).rows[0].n).toBe(0);

    // A surviving worker with the default lock lifetime (30 s, renewed by a running job's heartbeat)
    // takes the job over once the dead worker's last heartbeat has lapsed: within a minute of the kill.
    survivor = await startTestApp({ JOBS_ENABLED: 'true', JOB_LOCK_SECONDS: '30' }, { sameDatabaseAs: t });
    const done = await waitFor(async () => {
      const { rows } = await db.query(`select last_finished_at, fail_count, locked_at from agenda_jobs where name = 'sealing.make-artifacts' and data->>'recordId' = $1`, [sealed.id]);
      return rows.length === 1 && rows[0].last_finished_at ? rows[0] : null;
    }, 60_000);
    expect(done.locked_at).toBeNull();
    const artifacts = await db.query<{ kind: string; n: number }>('select kind, count(*)::int as n from sealed_artifacts where record_id = $1 group by kind order by kind', [sealed.id]);
    expect(artifacts.rows).toEqual([
      { kind: 'sealed_pdf', n: 1 },
      { kind: 'share_card', n: 1 },
    ]);
    // Made once: one artifact event per kind. (Agenda runs a job at least once: with the tests' 2 s lock
    // lifetime the survivor may run it again while rendering; the first-wins store keeps one artifact.)
    const events = await db.query<{ kind: string; n: number }>(
      `select payload->>'artifact' as kind, count(*)::int as n from outbox_events
        where type = 'record_artifact' and record_id = $1 and payload->>'artifact' in ('sealed_pdf', 'share_card') group by 1 order by 1`,
      [sealed.id],
    );
    expect(events.rows).toEqual([
      { kind: 'sealed_pdf', n: 1 },
      { kind: 'share_card', n: 1 },
    ]);
    expect(done.fail_count ?? 0).toBe(0);
    expect(survivor.logs()).toContain('sealed artifacts ready');
  }, 180_000);
});
