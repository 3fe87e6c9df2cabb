import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import type { MikroORM } from '@mikro-orm/postgresql';
import { migrate, openDatabase } from '../../src/infrastructure/database.js';
import { StuckWork } from '../../src/domain/maintenance/stuck-work.js';
import { StuckWorkWarnings, WARNINGS_PER_KIND } from '../../src/domain/maintenance/stuck-work-warnings.js';
import { WorkRetry } from '../../src/domain/maintenance/work-retry.js';
import { createLogger } from '../../src/logger.js';
import { ManualClock } from '../support/clock.js';
import { createTestDatabase } from '../support/database.js';

const HOUR = 3_600_000;
const ADDRESS = 'someone.private@example.org';
const HOOK_TOKEN = 'hook-secret-token-5f2a9c';
const RECORD_TEXT = 'The orchard ladder belongs to both households.';

/**
 * Every kind of stuck work on the real database: a seal without artifacts whose anchoring keeps
 * retrying, mail queued too long, mail and a webhook delivery failed for good. What is logged names
 * ids, references, times and attempts, never an address, an endpoint URL or record text; one check
 * warns about at most WARNINGS_PER_KIND items of a kind, and the next check takes the rest.
 */
describe('StuckWork', () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let orm: MikroORM;
  const clock = new ManualClock();
  const lines: string[] = [];
  const logger = createLogger(
    'info',
    new Writable({
      write(chunk: Buffer, _encoding, callback) {
        lines.push(...chunk.toString().split('\n').filter(Boolean));
        callback();
      },
    }),
  );
  const logged = (event: string) => lines.map((line) => JSON.parse(line) as Record<string, unknown>).filter((line) => line.event === event);
  const recordId = randomUUID();
  const reference = 'AGR-7K3M-9QXD';
  let stuckWork: StuckWork;
  let warnings: StuckWorkWarnings;

  beforeAll(async () => {
    database = await createTestDatabase();
    orm = await openDatabase({ url: database.url, poolMax: 2 });
    await migrate(orm, database.url);
    const em = orm.em.fork();
    const now = clock.now();
    const ago = (ms: number) => new Date(now.getTime() - ms);
    const identity = randomUUID();
    await em.execute('insert into identities (id, created_at) values (?, ?)', [identity, now]);
    await em.execute(
      `insert into records (id, reference, type, status, body, body_hash, initiated_via, on_chain_full_text, on_chain_include_verified_parties, metadata, initiator_identity_id, created_at, updated_at, sealed_at)
       values (?, ?, 'agreement', 'sealed', ?, 'sha256:00', 'rest', false, false, '{}', ?, ?, ?, ?)`,
      [recordId, reference, RECORD_TEXT, identity, ago(3 * HOUR), ago(2 * HOUR), ago(2 * HOUR)],
    );
    await em.execute(
      `insert into record_seals (record_id, metadata, metadata_hash, sealed_at, anchor_status, anchor_retry_count, anchor_next_retry_at)
       values (?, '{}', 'sha256:01', ?, 'retrying', 5, ?)`,
      [recordId, ago(2 * HOUR), new Date(now.getTime() + 600_000)],
    );
    // Mail failed for good (its error names the address, as SMTP errors do), and one queued for 31 minutes.
    for (let i = 0; i < WARNINGS_PER_KIND + 5; i += 1) {
      await em.execute(
        `insert into mail_outbox (id, recipient, subject, status, attempts, next_attempt_at, last_error, created_at, failed_at) values (?, ?, 'Your code', 'failed', 8, ?, ?, ?, ?)`,
        [randomUUID(), ADDRESS, now, `550 <${ADDRESS}>: no such user`, ago(HOUR), ago(HOUR - i * 1000)],
      );
    }
    await em.execute(`insert into mail_outbox (id, recipient, subject, status, attempts, next_attempt_at, created_at) values (?, ?, 'Invitation', 'pending', 2, ?, ?)`, [
      randomUUID(),
      ADDRESS,
      now,
      ago(31 * 60_000),
    ]);
    const endpoint = randomUUID();
    await em.execute(
      `insert into webhook_endpoints (id, identity_id, url, events, secret, enabled, created_at, updated_at) values (?, ?, ?, '{record.sealed}', 'sealed-secret', false, ?, ?)`,
      [endpoint, identity, `https://hooks.example/in?token=${HOOK_TOKEN}`, now, now],
    );
    await em.execute(
      `insert into webhook_deliveries (id, endpoint_id, event_id, type, record_id, body, status, attempts, last_error, failed_at, created_at) values (?, ?, 'evt_1', 'record.sealed', ?, ?, 'failed', 24, 'answered 500', ?, ?)`,
      [randomUUID(), endpoint, recordId, JSON.stringify({ text: RECORD_TEXT }), ago(HOUR), ago(3 * HOUR)],
    );
    stuckWork = new StuckWork({ orm, clock, settings: { sealArtifactsMinutes: 10, anchoringMinutes: 60, mailMinutes: 30, anchoring: true } });
    warnings = new StuckWorkWarnings({ orm, stuckWork, logger });
  });
  afterAll(async () => {
    await orm?.close();
    await database?.drop();
  });

  it('counts every kind from one query; anchors only where anchoring runs', async () => {
    expect(await stuckWork.counts()).toEqual({ seal_artifacts: 1, anchoring: 1, mail_queued: 1, mail_failed: WARNINGS_PER_KIND + 5, messenger_queued: 0, messenger_failed: 0, webhook_failed: 1 });
    const withoutChain = new StuckWork({ orm, clock, settings: { ...stuckWork.settings, anchoring: false } });
    expect((await withoutChain.counts()).anchoring).toBe(0);
  });

  it('warns about each item with ids, reference, times and attempts, never an address, a URL or record text', async () => {
    const first = await warnings.check();
    expect(first).toMatchObject({ warned: 4 + WARNINGS_PER_KIND, deferred: 5 });
    const items = logged('stuck_work');
    // Two hours ago when the row was written; the check itself runs a moment later.
    const anchoring = items.find((line) => line.kind === 'anchoring');
    expect(anchoring).toMatchObject({ agr_reference: reference, attempts: 5, next_attempt_at: expect.any(String), waiting_seconds: expect.any(Number) });
    expect(anchoring!.waiting_seconds).toBeGreaterThanOrEqual(7200);
    expect(anchoring!.waiting_seconds).toBeLessThan(7260);
    expect(items.find((line) => line.kind === 'webhook_failed')).toMatchObject({ agr_reference: reference, attempts: 24, delivery_id: expect.any(String), webhook_id: expect.any(String) });
    expect(items.find((line) => line.kind === 'mail_queued')).toMatchObject({ agr_reference: null, mail_id: expect.any(String), attempts: 2 });
    expect(items.filter((line) => line.kind === 'mail_failed')).toHaveLength(WARNINGS_PER_KIND);
    expect(logged('stuck_work_deferred')).toEqual([expect.objectContaining({ items: 5 })]);
    const text = lines.join('\n');
    for (const secret of [ADDRESS, HOOK_TOKEN, 'hooks.example', 'orchard', 'sealed-secret', 'no such user']) expect(text).not.toContain(secret);

    // The next check takes the rest, and nothing it has warned about already.
    const second = await warnings.check();
    expect(second).toMatchObject({ warned: 5, deferred: 0 });
    expect(logged('stuck_work')).toHaveLength(4 + WARNINGS_PER_KIND + 5);
    expect(await warnings.check()).toMatchObject({ warned: 0 });
  });

  it('makes a retrying anchor due now for `ops retry`', async () => {
    const retry = new WorkRetry(orm, clock);
    expect(await retry.plan(reference.toLowerCase())).toMatchObject({
      found: true,
      sealed: true,
      reference,
      artifactsMissing: true,
      anchor: { status: 'retrying', attempts: 5, inFlight: false },
    });
    expect(await retry.anchorNow(recordId)).toBe(true);
    const [row] = await orm.em.fork().execute<{ due: boolean }[]>('select anchor_next_retry_at <= ? as due from record_seals where record_id = ?', [clock.now(), recordId]);
    expect(row?.due).toBe(true);
    expect(await retry.plan('AGR-0000-0000')).toEqual({ found: false });
    expect(await retry.plan('not a reference')).toEqual({ found: false });
  });
});
