import { Entity, Index, Property } from '@mikro-orm/decorators/legacy';
import { OptionalProps } from '@mikro-orm/core';
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import type { Clock } from '../shared/clock.js';
import { PollingLoop } from '../shared/polling-loop.js';
import { claimDue, OutboxRow, retryDelaySeconds, type OutboxRowDefaults } from '../shared/outbox-rows.js';
import { chatFor, MessengerSendError, type MessengerSender } from './messenger-sender.js';

export type MessengerMessageKind = 'invitation' | 'reminder';

/** A messenger message to send: to a participant's handle, for the record and participant the log may name. */
export type MessengerMessage = { handle: string; text: string; kind: MessengerMessageKind; recordId: string; participantId: string };

type ClaimedMessage = { id: string; handle: string; text: string | null; kind: MessengerMessageKind; record_id: string; participant_id: string; attempts: number };

/**
 * A messenger message waiting to go out, the mail outbox's counterpart (mail-queue.ts). It holds the
 * participant's handle, not a chat id: the chat is looked up at each attempt, so a participant who
 * writes to the bot while the message is still retried receives it. The text is erased once the
 * message is sent or has failed for good. Its `last_error` is in our words only: never the platform's
 * answer, the URL (it holds the bot token), the chat id or the text.
 */
@Entity({ tableName: 'messenger_outbox' })
@Index({ properties: ['status', 'nextAttemptAt'] })
export class QueuedMessengerMessage extends OutboxRow<'pending' | 'sending' | 'sent' | 'failed'> {
  [OptionalProps]?: OutboxRowDefaults;

  @Property({ type: 'text' })
  handle!: string;

  @Property({ type: 'text', nullable: true })
  text!: string | null;

  @Property({ type: 'text' })
  kind!: MessengerMessageKind;

  @Property({ type: 'uuid' })
  recordId!: string;

  @Property({ type: 'uuid' })
  participantId!: string;
}

export type MessengerQueueSettings = { maxAttempts: number; pollMs: number };

/**
 * Messenger messages through an outbox, as mail goes (MailQueue): `send` writes the row in the
 * caller's transaction, so a change that rolls back sends nothing and a committed change's message
 * survives a crash or a platform outage. A worker per instance sends what is due, one at a time (the
 * platform rate-limits per bot), retries with backoff (or after the platform's `retry_after`), and
 * marks a message `failed` after the last attempt, or at once when the platform refuses it for good.
 */
export class MessengerQueue {
  private readonly loop: PollingLoop;

  constructor(
    private readonly deps: { orm: MikroORM; sender: MessengerSender; clock: Clock; logger: Logger; settings: MessengerQueueSettings },
  ) {
    this.loop = new PollingLoop(() => this.deliverDue(), deps.settings.pollMs, (error) => this.deps.logger.error({ err: error }, 'messenger outbox pass failed'));
  }

  async send(message: MessengerMessage, em?: EntityManager): Promise<void> {
    const target = em ?? this.deps.orm.em.fork();
    const now = this.deps.clock.now();
    target.create(QueuedMessengerMessage, { ...message, nextAttemptAt: now, createdAt: now });
    if (em) {
      // The caller's flush writes it and its commit makes it visible: look again shortly.
      this.loop.wake(50);
      return;
    }
    await target.flush();
    this.loop.wake(0);
  }

  start(): void {
    this.loop.start();
  }

  /** Stops sending; a pass under way gets a few seconds to finish (what it leaves is sent by the next start). */
  async close(): Promise<void> {
    await this.loop.stop();
  }

  /** Sends every due message once; returns how many went out. Safe on several instances at once. */
  async deliverDue(): Promise<number> {
    let sent = 0;
    for (;;) {
      const { rows, full } = await claimDue<ClaimedMessage>(this.deps.orm.em.fork(), {
        table: 'messenger_outbox',
        order: 'created_at',
        returning: 'id, handle, text, kind, record_id, participant_id, attempts',
        now: this.deps.clock.now(),
      });
      for (const row of rows) if (await this.deliver(row)) sent += 1;
      if (!full) return sent;
    }
  }

  private async deliver(row: ClaimedMessage): Promise<boolean> {
    const em = this.deps.orm.em.fork();
    const about = { messengerMessageId: row.id, recordId: row.record_id, participantId: row.participant_id };
    try {
      const chatId = await chatFor(em, row.handle);
      // Retried like a platform outage: the participant may write to the bot before the last attempt.
      if (!chatId) throw new MessengerSendError('the participant has not written to the bot yet');
      await this.deps.sender.send(chatId, row.text ?? '');
      await em.execute(`update messenger_outbox set status = 'sent', sent_at = ?, text = null, locked_until = null, last_error = null where id = ?`, [this.deps.clock.now(), row.id]);
      return true;
    } catch (error) {
      const known = error instanceof MessengerSendError ? error : null;
      const attempts = row.attempts + 1;
      const failed = known?.permanent === true || attempts >= this.deps.settings.maxAttempts;
      // Only our own errors' words: anything else might quote the URL, which holds the bot token.
      const reason = known?.message ?? 'messenger delivery failed';
      const now = this.deps.clock.now();
      const wait = Math.max(retryDelaySeconds(attempts), known?.retryAfterSeconds ?? 0);
      await em.execute(
        `update messenger_outbox set status = ?, attempts = ?, next_attempt_at = ?, failed_at = ?, locked_until = null, last_error = ?${failed ? ', text = null' : ''} where id = ?`,
        [failed ? 'failed' : 'pending', attempts, new Date(now.getTime() + wait * 1000), failed ? now : null, reason, row.id],
      );
      this.deps.logger.warn({ ...about, attempts, failed, reason }, failed ? `messenger ${row.kind} failed for good` : `messenger ${row.kind} not sent; will retry`);
      return false;
    }
  }
}
