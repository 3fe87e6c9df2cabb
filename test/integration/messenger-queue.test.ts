import 'reflect-metadata';
import { Writable } from 'node:stream';
import { randomUUID } from 'node:crypto';
import type { MikroORM } from '@mikro-orm/postgresql';
import { migrate, openDatabase } from '../../src/infrastructure/database.js';
import { MessengerQueue, type MessengerMessage } from '../../src/domain/messaging/messenger-queue.js';
import { BotApiMessengerSender, rememberChat } from '../../src/domain/messaging/messenger-sender.js';
import { systemClock } from '../../src/domain/shared/clock.js';
import { createLogger } from '../../src/logger.js';
import { ManualClock } from '../support/clock.js';
import { createTestDatabase } from '../support/database.js';
import { startMessengerPlatform } from '../support/provider-servers.js';
import { waitFor } from '../support/wait.js';

const BOT_TOKEN = '777000:queue-bot-token-never-logged';
const CHAT_ID = '90817263';

/** The messenger outbox: written with the change, sent by a worker with retries, against the platform's bot API on 127.0.0.1. */
describe('Messenger queue', () => {
  let db: { url: string; drop: () => Promise<void> };
  let orm: MikroORM;
  const lines: string[] = [];
  const logger = createLogger('info', new Writable({ write: (chunk: Buffer, _e, cb) => (lines.push(chunk.toString()), cb()) }));

  beforeAll(async () => {
    db = await createTestDatabase();
    orm = await openDatabase({ url: db.url, poolMax: 4 });
    await migrate(orm, db.url);
    await rememberChat(orm.em.fork(), 'Dana_Q', '5550001', CHAT_ID, new Date());
  });
  afterAll(async () => {
    await orm.close();
    await db.drop();
  });
  beforeEach(async () => {
    await orm.em.fork().execute('delete from messenger_outbox');
    lines.length = 0;
  });

  const message = (text: string, handle = '@dana_q'): MessengerMessage => ({ handle, text, kind: 'invitation', recordId: randomUUID(), participantId: randomUUID() });
  const queueOn = (platformUrl: string, options: { orm?: MikroORM; clock?: ManualClock; maxAttempts?: number; pollMs?: number } = {}) =>
    new MessengerQueue({
      orm: options.orm ?? orm,
      sender: new BotApiMessengerSender(platformUrl, BOT_TOKEN, 2000),
      clock: options.clock ?? systemClock,
      logger,
      settings: { maxAttempts: options.maxAttempts ?? 5, pollMs: options.pollMs ?? 60_000 },
    });
  const rows = () => orm.em.fork().execute<{ status: string; attempts: number; text: string | null; last_error: string | null; next_attempt_at: Date }[]>('select * from messenger_outbox');
  /** Nothing secret or personal in the log or the stored error: no token, no chat id, no handle. */
  const expectNothingLeaked = async () => {
    const stored = JSON.stringify(await rows());
    for (const secret of [BOT_TOKEN, CHAT_ID, 'dana_q']) {
      expect(lines.join('\n').toLowerCase()).not.toContain(secret.toLowerCase());
      expect(stored.replace(/"handle":"[^"]*"/g, '').toLowerCase()).not.toContain(secret.toLowerCase());
    }
  };

  it('sends nothing for a change that rolled back, even with its worker running', async () => {
    const platform = await startMessengerPlatform();
    const queue = queueOn(platform.url, { pollMs: 20 });
    queue.start();
    await expect(
      orm.em.fork().transactional(async (em) => {
        await queue.send(message('Rolled back'), em);
        await em.flush();
        throw new Error('the change failed');
      }),
    ).rejects.toThrow('the change failed');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await queue.deliverDue()).toBe(0);
    expect(await rows()).toHaveLength(0);
    expect(platform.sent).toHaveLength(0);
    await queue.close();
    await platform.close();
  });

  it('retries through two 503 answers with backoff and sends the message once, then erases its text', async () => {
    const platform = await startMessengerPlatform([
      { status: 503, body: `{"ok":false,"description":"down, token ${BOT_TOKEN}"}` },
      { status: 503, body: '{"ok":false}' },
    ]);
    const clock = new ManualClock();
    const queue = queueOn(platform.url, { clock });
    await orm.em.fork().transactional(async (em) => queue.send(message('Please sign'), em));

    expect(await queue.deliverDue()).toBe(0);
    expect(await queue.deliverDue()).toBe(0); // not due again before its backoff
    expect(platform.refused).toHaveLength(1);
    clock.advance(5_000);
    expect(await queue.deliverDue()).toBe(0);
    expect(platform.refused).toHaveLength(2);
    clock.advance(5_000);
    expect(await queue.deliverDue()).toBe(0); // the second wait is 10 s
    clock.advance(5_000);
    expect(await queue.deliverDue()).toBe(1);

    expect(platform.sent).toEqual([{ path: `/bot${BOT_TOKEN}/sendMessage`, body: expect.objectContaining({ chat_id: CHAT_ID, text: 'Please sign' }) }]);
    expect(await rows()).toEqual([expect.objectContaining({ status: 'sent', attempts: 2, text: null, last_error: null })]);
    expect(lines.filter((line) => line.includes('messenger invitation not sent; will retry'))).toHaveLength(2);
    expect(lines.join('\n')).toContain('messenger platform answered 503');
    await expectNothingLeaked();
    await queue.close();
    await platform.close();
  });

  it("waits out a 429's retry_after, and fails at once what the platform refuses for good", async () => {
    const platform = await startMessengerPlatform([
      { status: 429, body: '{"ok":false,"error_code":429,"parameters":{"retry_after":120}}' },
      { status: 403, body: '{"ok":false,"description":"bot was blocked by the user"}' },
    ]);
    const clock = new ManualClock();
    const queue = queueOn(platform.url, { clock });
    await queue.send(message('Rate limited'));
    expect(await queue.deliverDue()).toBe(0);
    clock.advance(60_000);
    expect(await queue.deliverDue()).toBe(0);
    expect(platform.refused).toHaveLength(1);
    clock.advance(61_000);
    expect(await queue.deliverDue()).toBe(0);
    expect(platform.refused).toHaveLength(2);
    expect(await rows()).toEqual([expect.objectContaining({ status: 'failed', attempts: 2, text: null, last_error: 'messenger platform answered 403' })]);
    expect(lines.join('\n')).toContain('messenger invitation failed for good');
    await expectNothingLeaked();
    await queue.close();
    await platform.close();
  });

  it('retries a message to someone who has not written to the bot, and fails it after the last attempt', async () => {
    const platform = await startMessengerPlatform();
    const clock = new ManualClock();
    const queue = queueOn(platform.url, { clock, maxAttempts: 2 });
    await queue.send(message('Nobody there', 'never_wrote'));
    expect(await queue.deliverDue()).toBe(0);
    clock.advance(5_000);
    expect(await queue.deliverDue()).toBe(0);
    expect(await rows()).toEqual([expect.objectContaining({ status: 'failed', attempts: 2, text: null, last_error: 'the participant has not written to the bot yet' })]);
    expect(platform.sent).toHaveLength(0);
    expect(lines.join('\n')).not.toContain('never_wrote');
    await queue.close();
    await platform.close();
  });

  it('sends a message committed while no worker ran once another instance starts on the same database', async () => {
    const platform = await startMessengerPlatform();
    // The first instance commits the message and stops before its worker ever ran (a crash after the commit).
    const first = await openDatabase({ url: db.url, poolMax: 2 });
    const stopped = queueOn(platform.url, { orm: first });
    await first.em.fork().transactional(async (em) => stopped.send(message('Survives a restart'), em));
    await stopped.close();
    await first.close();
    expect(platform.sent).toHaveLength(0);

    const second = await openDatabase({ url: db.url, poolMax: 2 });
    const restarted = queueOn(platform.url, { orm: second, pollMs: 50 });
    restarted.start();
    await waitFor(async () => platform.sent.length > 0, 10_000);
    await restarted.close();
    await second.close();
    expect(platform.sent.map((call) => call.body.text)).toEqual(['Survives a restart']);
    expect(await rows()).toEqual([expect.objectContaining({ status: 'sent', attempts: 0 })]);
    await platform.close();
  });
});
