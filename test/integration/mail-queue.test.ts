import 'reflect-metadata';
import { Writable } from 'node:stream';
import type { MikroORM } from '@mikro-orm/postgresql';
import { migrate, openDatabase } from '../../src/infrastructure/database.js';
import { MailQueue } from '../../src/domain/mail/mail-queue.js';
import { SmtpMailer } from '../../src/infrastructure/mail/nodemailer-mailer.js';
import { systemClock } from '../../src/domain/shared/clock.js';
import { createLogger } from '../../src/logger.js';
import { createTestDatabase } from '../support/database.js';
import { CaptureSmtp } from '../support/smtp.js';

const logger = createLogger('silent', new Writable({ write: (_c, _e, cb) => cb() }));

/** The mail outbox's worker, over real SMTP (a capture server on 127.0.0.1). */
describe('Mail queue', () => {
  const smtp = new CaptureSmtp();
  let db: { url: string; drop: () => Promise<void> };
  let orm: MikroORM;
  let mailer: SmtpMailer;

  beforeAll(async () => {
    db = await createTestDatabase();
    orm = await openDatabase({ url: db.url, poolMax: 4 });
    await migrate(orm, db.url);
    mailer = new SmtpMailer(await smtp.start(), 'Record signing <no-reply@sign.example.org>');
  });
  afterAll(async () => {
    await mailer.close();
    await smtp.stop();
    await orm.close();
    await db.drop();
  });

  it('sends every due message in one pass, batch after full batch, and erases each body once sent', async () => {
    // Not started: the pass below is the only one.
    const queue = new MailQueue({ orm, transport: mailer, clock: systemClock, logger, settings: { maxAttempts: 3, pollMs: 60_000, concurrency: 4, backlogPerRecipient: 100, backlogPerClient: 100 } });
    const to = Array.from({ length: 23 }, (_, i) => `queued${i}@example.org`);
    for (const [i, address] of to.entries()) await queue.send({ to: address, subject: `Queued ${i}`, text: `Body ${i}` });

    expect(await queue.deliverDue()).toBe(23);
    for (const [i, address] of to.entries()) expect((await smtp.waitFor(address)).subject).toBe(`Queued ${i}`);
    const rows = await orm.em.fork().execute<{ status: string; text: string | null }[]>('select status, text from mail_outbox');
    expect(rows).toHaveLength(23);
    expect(rows.every((row) => row.status === 'sent' && row.text === null)).toBe(true);
    expect(await queue.deliverDue()).toBe(0);
    await queue.close();
  });

  const settings = { maxAttempts: 3, pollMs: 60_000, concurrency: 4, backlogPerRecipient: 3, backlogPerClient: 5 };
  const clear = () => orm.em.fork().execute('delete from mail_outbox');
  const statuses = async () =>
    Object.fromEntries((await orm.em.fork().execute<{ subject: string; status: string }[]>('select subject, status from mail_outbox')).map((r) => [r.subject, r.status]));

  it('never sends a message past its deadline, nor one a newer message replaced, and erases both', async () => {
    await clear();
    const queue = new MailQueue({ orm, transport: mailer, clock: systemClock, logger, settings });
    const past = new Date(Date.now() - 1000);
    const later = new Date(Date.now() + 600_000);
    await queue.send({ to: 'late@example.org', subject: 'Expired code', text: 'Your code is 111111', urgency: 'waiting', notAfter: past });
    await queue.send({ to: 'twice@example.org', subject: 'Older code', text: 'Your code is 222222', urgency: 'waiting', notAfter: later, replacesKey: 'otp:x:twice' });
    await new Promise((resolve) => setTimeout(resolve, 5));
    await queue.send({ to: 'twice@example.org', subject: 'Newer code', text: 'Your code is 333333', urgency: 'waiting', notAfter: later, replacesKey: 'otp:x:twice' });
    const before = smtp.messages.length;
    expect(await queue.deliverDue()).toBe(1);
    expect(smtp.messages.slice(before).map((m) => m.subject)).toEqual(['Newer code']);
    expect(await statuses()).toEqual({ 'Expired code': 'dropped', 'Older code': 'dropped', 'Newer code': 'sent' });
    const bodies = await orm.em.fork().execute<{ n: number }[]>(`select count(*)::int as n from mail_outbox where text is not null`);
    expect(bodies[0]!.n).toBe(0);
    await queue.close();
  });

  it('sends mail someone waits for before bulk mail, the newest code first, several at a time', async () => {
    await clear();
    let inFlight = 0;
    let most = 0;
    const order: string[] = [];
    const slow = {
      // The order the queue hands messages over (their sends overlap, so they may finish in another).
      send: async (message: { subject: string }) => {
        order.push(message.subject);
        inFlight += 1;
        most = Math.max(most, inFlight);
        await new Promise((resolve) => setTimeout(resolve, 30));
        inFlight -= 1;
      },
    };
    const queue = new MailQueue({ orm, transport: slow, clock: systemClock, logger, settings: { ...settings, backlogPerRecipient: 100, backlogPerClient: 100 } });
    // Each a millisecond apart: messages queued within one millisecond have no order between them.
    for (let i = 0; i < 25; i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 2));
      await queue.send({ to: `bulk${i}@example.org`, subject: `Invitation ${i}`, text: 'You are invited' });
    }
    for (let i = 0; i < 3; i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 5));
      await queue.send({ to: `code${i}@example.org`, subject: `Code ${i}`, text: 'Your code is 123456', urgency: 'waiting', notAfter: new Date(Date.now() + 600_000) });
    }
    expect(await queue.deliverDue()).toBe(28);
    expect(order.slice(0, 3)).toEqual(['Code 2', 'Code 1', 'Code 0']);
    expect(order.slice(3)).toEqual(Array.from({ length: 25 }, (_, i) => `Invitation ${i}`));
    expect(most).toBe(4);
    await queue.close();
  });

  it('refuses a message past the unsent-mail caps of its recipient or its client address (429), and accepts it once mail has gone out', async () => {
    await clear();
    const queue = new MailQueue({ orm, transport: mailer, clock: systemClock, logger, settings });
    const code = (to: string, client: string) => queue.send({ to, subject: 'Code', text: 'Your code is 123456', urgency: 'waiting', client });
    for (let i = 0; i < 3; i += 1) await code('flooded@example.org', `198.51.100.${i}`);
    await expect(code('flooded@example.org', '198.51.100.9')).rejects.toMatchObject({ code: 'rate_limited', details: { retryAfterSeconds: 60 } });
    for (let i = 0; i < 5; i += 1) await code(`victim${i}@example.org`, '203.0.113.7');
    await expect(code('victim9@example.org', '203.0.113.7')).rejects.toMatchObject({ code: 'rate_limited' });
    // Another client is not affected, and bulk mail (an invitation a change sends) is never refused by a backlog.
    await code('someone@example.org', '203.0.113.8');
    for (let i = 0; i < 5; i += 1) await queue.send({ to: 'flooded@example.org', subject: 'Invitation', text: 'You are invited', client: '198.51.100.9' });
    await queue.deliverDue();
    await code('flooded@example.org', '198.51.100.9');
    await code('victim9@example.org', '203.0.113.7');
    await queue.close();
  });
});
