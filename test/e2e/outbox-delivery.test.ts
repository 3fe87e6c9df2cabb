import pg from 'pg';
import { startTestApp, type TestApp } from '../support/harness.js';
import { sealTwoPartyAgreement } from '../support/seal-agreement.js';
import { waitFor } from '../support/wait.js';

/**
 * The service as it runs (jobs on): a ceremony's events go out with their change's commit, and the
 * seal, which its jobs need, is delivered by the dispatcher, woken by the seal's commit. The
 * dispatcher's poll is at its longest (60 s), so only that wake-up delivers the seal in time here.
 */
describe('Outbox delivery in the running service', () => {
  let t: TestApp;
  let db: pg.Client;

  beforeAll(async () => {
    t = await startTestApp({ JOBS_ENABLED: 'true', OUTBOX_POLL_MS: '60000' });
    db = new pg.Client({ connectionString: t.databaseUrl });
    await db.connect();
  });
  afterAll(async () => {
    await db.end();
    await t.stop();
  });

  it('writes the ceremony events delivered at their commit and has the dispatcher deliver the seal at once', async () => {
    const sealed = await sealTwoPartyAgreement(t);
    const rows = await waitFor(async () => {
      const { rows } = await db.query<{ type: string; to_status: string | null; inline: boolean; delivered: boolean }>(
        `select type, payload->>'toStatus' as to_status, delivered_at = created_at as inline, delivered_at is not null as delivered
           from outbox_events where record_id = $1 order by id`,
        [sealed.id],
      );
      return rows.every((row) => row.delivered) && rows;
    }, 15_000);
    const seal = rows.findIndex((row) => row.type === 'record_lifecycle' && row.to_status === 'sealed');
    expect(seal).toBeGreaterThan(0);
    // The creation is written with the record and delivered by the dispatcher (woken by that commit,
    // not its 60 s poll); every step after it before the seal went out with its own change; the seal
    // waited for the dispatcher.
    expect(rows[0]).toMatchObject({ type: 'record_lifecycle', inline: false, delivered: true });
    expect(rows.slice(1, seal).every((row) => row.inline)).toBe(true);
    expect(rows[seal]!.inline).toBe(false);
    // And the seal's job ran: its artifacts exist.
    await waitFor(async () => (await db.query(`select count(*)::int as n from sealed_artifacts where record_id = $1`, [sealed.id])).rows[0].n >= 2, 30_000);
  }, 60_000);
});
