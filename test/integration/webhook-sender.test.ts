import 'reflect-metadata';
import { Writable } from 'node:stream';
import type { MikroORM } from '@mikro-orm/postgresql';
import { migrate, openDatabase } from '../../src/infrastructure/database.js';
import { Identity, ContactPoint } from '../../src/domain/identity/entities.js';
import type { MailMessage, Mailer } from '../../src/domain/mail/mailer.js';
import { systemClock } from '../../src/domain/shared/clock.js';
import { WebhookSender } from '../../src/domain/webhooks/sender.js';
import { WebhookSecrets } from '../../src/domain/webhooks/signature.js';
import { WebhookTargets } from '../../src/domain/webhooks/target.js';
import { WebhookService } from '../../src/domain/webhooks/webhook-service.js';
import { createLogger } from '../../src/logger.js';
import { createTestDatabase } from '../support/database.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';

const logger = createLogger('silent', new Writable({ write: (_c, _e, cb) => cb() }));

/** The sender against a real database and a receiver on 127.0.0.1: the endpoint that fails for too long. */
describe('Webhook sender', () => {
  const receiver = new WebhookReceiver();
  let db: { url: string; drop: () => Promise<void> };
  let orm: MikroORM;

  beforeAll(async () => {
    db = await createTestDatabase();
    orm = await openDatabase({ url: db.url, poolMax: 4 });
    await migrate(orm, db.url);
    await receiver.start();
  });
  afterAll(async () => {
    await receiver.stop();
    await orm.close();
    await db.drop();
  });

  /** A person with an email address, as a session principal. */
  const owner = async (email: string) => {
    const em = orm.em.fork();
    const identity = em.create(Identity, {});
    em.create(ContactPoint, { identity: identity.id, type: 'email', value: email, valueHash: email });
    await em.flush();
    return { kind: 'session' as const, identityId: identity.id, scopes: [], tokenId: 't', contactPointId: 'c' };
  };
  /** `count` pending deliveries to an endpoint, each of a record of its own (so none waits behind another). */
  const pending = (endpointId: string, count: number) =>
    orm.em.fork().execute(
      `insert into webhook_deliveries (id, endpoint_id, event_id, type, record_id, body, status, attempts, next_attempt_at, created_at)
       select gen_random_uuid(), ?, 'evt_' || gen_random_uuid(), 'record.created', gen_random_uuid(), '{}', 'pending', 0, now(), now() from generate_series(1, ?)`,
      [endpointId, count],
    );

  it("keeps its pipeline full, and bounds what one endpoint and one owner hold in flight on all instances together: a hung receiver slows only its owner", async () => {
    const mailer: Mailer = { send: async () => undefined };
    const targets = new WebhookTargets({ allowedHosts: ['127.0.0.1'], production: false });
    const secrets = new WebhookSecrets(Buffer.alloc(32, 9));
    const service = new WebhookService({ orm, clock: systemClock, webhookTargets: targets, webhookSecrets: secrets, wakeSender: () => undefined });
    const slow = await owner('slow@example.org');
    const other = await owner('other@example.org');
    receiver.answer('/hung', 'hang');
    receiver.answer('/hung-too', 'hang');
    const hung = (await service.create(slow, { url: `${receiver.url}/hung`, events: ['record.created'] })).webhook;
    const hungToo = (await service.create(slow, { url: `${receiver.url}/hung-too`, events: ['record.created'] })).webhook;
    const fast = (await service.create(other, { url: `${receiver.url}/fast`, events: ['record.created'] })).webhook;
    await pending(hung.id, 10);
    await pending(hungToo.id, 10);

    // Two instances; an attempt may take 30 s.
    const settings = { retrySchedule: [60], disableAfterSeconds: 3600, concurrency: 8, endpointConcurrency: 2, ownerConcurrency: 3, connectMs: 500, totalMs: 30_000, pollMs: 200 };
    const senders = [0, 1].map(() => new WebhookSender({ orm, webhookTargets: targets, webhookSecrets: secrets, mailer, clock: systemClock, logger, settings }));
    try {
      for (const sender of senders) sender.start();
      await receiver.waitFor('/hung', 2);
      await receiver.waitFor('/hung-too', 1);
      // Several polls later, still two at the endpoint and three at the owner's endpoints together.
      await new Promise((resolve) => setTimeout(resolve, 1000));
      expect(receiver.at('/hung')).toHaveLength(2);
      expect(receiver.at('/hung-too')).toHaveLength(1);

      // Another owner's delivery, written while those hang, goes out on a free slot at once (well before any hung attempt ends).
      await pending(fast.id, 3);
      for (const sender of senders) sender.wake();
      await receiver.waitFor('/fast', 3, 5000);
      expect(receiver.at('/hung')).toHaveLength(2);
    } finally {
      receiver.hangUp();
      await Promise.all(senders.map((sender) => sender.close()));
      // What they left pending is nobody else's to send.
      await orm.em.fork().execute('delete from webhook_endpoints where id in (?, ?, ?)', [hung.id, hungToo.id, fast.id]);
    }
  });

  it('disables an endpoint whose every delivery failed for the configured time, fails what was pending and mails its owner', async () => {
    const em = orm.em.fork();
    const identity = em.create(Identity, {});
    em.create(ContactPoint, { identity: identity.id, type: 'email', value: 'owner@example.org', valueHash: 'x' });
    await em.flush();
    const principal = { kind: 'session' as const, identityId: identity.id, scopes: [], tokenId: 't', contactPointId: 'c' };
    const mail: MailMessage[] = [];
    const mailer: Mailer = { send: async (message) => void mail.push(message) };
    const targets = new WebhookTargets({ allowedHosts: ['127.0.0.1'], production: false });
    const secrets = new WebhookSecrets(Buffer.alloc(32, 9));
    // Every attempt waits 200 ms; failing for a second disables.
    const settings = { retrySchedule: Array<number>(20).fill(0.2), disableAfterSeconds: 1, concurrency: 4, endpointConcurrency: 4, ownerConcurrency: 4, connectMs: 500, totalMs: 500, pollMs: 60_000 };
    const sender = new WebhookSender({ orm, webhookTargets: targets, webhookSecrets: secrets, mailer, clock: systemClock, logger, settings });
    const service = new WebhookService({ orm, clock: systemClock, webhookTargets: targets, webhookSecrets: secrets, wakeSender: () => undefined });
    receiver.answer('/down', 503);
    const { webhook } = await service.create(principal, { url: `${receiver.url}/down`, events: ['record.sealed'] });
    await service.sendTest(principal, webhook.id);
    await service.sendTest(principal, webhook.id);

    const deadline = Date.now() + 10_000;
    while ((await service.get(principal, webhook.id)).enabled && Date.now() < deadline) {
      await sender.sendDue();
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const disabled = await service.get(principal, webhook.id);
    expect(disabled).toMatchObject({ enabled: false, disabledReason: 'failing' });
    // The first delivery kept failing (in order: the second waited behind it); both end failed, none is retried.
    const { deliveries } = await service.deliveries(principal, webhook.id, {});
    expect(deliveries.map((d) => d.status)).toEqual(['failed', 'failed']);
    // Retried before it was disabled (how many times a second allows depends on the machine's load).
    expect(deliveries[1]!.attempts).toBeGreaterThanOrEqual(2);
    expect(deliveries[0]!.attempts).toBe(0);
    const sent = receiver.at('/down').length;
    expect(await sender.sendDue()).toBe(0);
    expect(receiver.at('/down')).toHaveLength(sent);
    expect(mail).toHaveLength(1);
    expect(mail[0]).toMatchObject({ to: 'owner@example.org', subject: 'A webhook endpoint was disabled' });
    expect(mail[0]!.text).toContain('every delivery to it failed for 1 second');
    expect(mail[0]!.text).not.toContain('/down');
  });
});
