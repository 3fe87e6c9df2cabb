import 'reflect-metadata';
import { Writable } from 'node:stream';
import type { MikroORM } from '@mikro-orm/postgresql';
import { migrate, openDatabase } from '../../src/domain/database.js';
import { MailQueue } from '../../src/domain/mail/mail-queue.js';
import { SmtpMailer } from '../../src/domain/mail/nodemailer-mailer.js';
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
    const queue = new MailQueue(orm, mailer, systemClock, logger, { maxAttempts: 3, pollMs: 60_000 });
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
});
