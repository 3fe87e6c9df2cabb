import { Entity, Index, PrimaryKey, Property } from '@mikro-orm/decorators/legacy';
import { OptionalProps } from '@mikro-orm/core';
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { Clock } from '../shared/clock.js';
import type { MailMessage, Mailer } from './mailer.js';

/** Messages claimed at a time. */
const CLAIM_BATCH = 10;

export type MailStatus = 'pending' | 'sending' | 'sent' | 'failed';

/**
 * A message waiting to go out. Written in the transaction of the change that sends it; the body
 * (which may hold a one-time code) is erased once the message is sent or has failed for good.
 */
@Entity({ tableName: 'mail_outbox' })
@Index({ properties: ['status', 'nextAttemptAt'] })
export class QueuedMessage {
  [OptionalProps]?: 'id' | 'status' | 'attempts' | 'nextAttemptAt' | 'lockedUntil' | 'lastError' | 'createdAt' | 'sentAt' | 'html';

  @PrimaryKey({ type: 'uuid' })
  id: string = randomUUID();

  @Property({ type: 'text' })
  recipient!: string;

  @Property({ type: 'text' })
  subject!: string;

  @Property({ type: 'text', nullable: true })
  text!: string | null;

  @Property({ type: 'text', nullable: true })
  html: string | null = null;

  @Property({ type: 'text' })
  status: MailStatus = 'pending';

  @Property({ type: 'integer' })
  attempts: number = 0;

  @Property({ type: 'datetime', columnType: 'timestamptz' })
  nextAttemptAt: Date = new Date();

  @Property({ type: 'datetime', columnType: 'timestamptz', nullable: true })
  lockedUntil: Date | null = null;

  /** Why the last attempt failed, in the transport's words (never the body). */
  @Property({ type: 'text', nullable: true })
  lastError: string | null = null;

  @Property({ type: 'datetime', columnType: 'timestamptz' })
  createdAt: Date = new Date();

  @Property({ type: 'datetime', columnType: 'timestamptz', nullable: true })
  sentAt: Date | null = null;
}

export type MailQueueSettings = { maxAttempts: number; pollMs: number };

/**
 * Mail through an outbox: `send` only writes the message (in the caller's transaction when given
 * one), so no request and no record lock ever waits for a mail server. A worker per instance sends
 * what is due with the transport's timeouts, retries with backoff, and marks a message `failed`
 * (visible in the table and the log) after the last attempt.
 */
export class MailQueue implements Mailer {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private again = false;
  private stopped = true;

  constructor(
    private readonly orm: MikroORM,
    private readonly transport: Mailer,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly settings: MailQueueSettings,
  ) {}

  async send(message: MailMessage, em?: EntityManager): Promise<void> {
    const target = em ?? this.orm.em.fork();
    target.create(QueuedMessage, { recipient: message.to, subject: message.subject, text: message.text, html: message.html ?? null, nextAttemptAt: this.clock.now(), createdAt: this.clock.now() });
    if (em) {
      // The caller's flush writes it and its commit makes it visible: look again shortly.
      this.wake(50);
      return;
    }
    await target.flush();
    this.wake(0);
  }

  start(): void {
    this.stopped = false;
    this.wake(0);
  }

  /** Stops sending; a pass under way gets a few seconds to finish (what it leaves is sent by the next start). */
  async close(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await Promise.race([this.running, new Promise((resolve) => setTimeout(resolve, 5000).unref())]);
    await this.transport.close?.();
  }

  private wake(delayMs: number): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => this.run(), delayMs);
    this.timer.unref();
  }

  private run(): void {
    this.timer = null;
    this.running = this.deliverDue()
      .then(() => undefined)
      .catch((error: unknown) => this.logger.error({ err: error }, 'mail outbox pass failed'))
      .finally(() => {
        this.running = null;
        const next = this.again ? 0 : this.settings.pollMs;
        this.again = false;
        this.wake(next);
      });
  }

  /**
   * Sends every due message once; returns how many went out. Safe on several instances at once. A
   * batch that was not full was all there was to claim: no empty claim follows it (messages queued
   * meanwhile wake the queue again).
   */
  async deliverDue(): Promise<number> {
    let sent = 0;
    for (;;) {
      const now = this.clock.now();
      const claimed = await this.orm.em.fork().execute<{ id: string; recipient: string; subject: string; text: string | null; html: string | null; attempts: number }[]>(
        `update mail_outbox set status = 'sending', locked_until = ? where id in (
           select id from mail_outbox
            where (status = 'pending' and next_attempt_at <= ?) or (status = 'sending' and locked_until < ?)
            order by created_at limit ${CLAIM_BATCH} for update skip locked)
         returning id, recipient, subject, text, html, attempts`,
        [new Date(now.getTime() + 120_000), now, now],
      );
      for (const row of claimed) {
        try {
          await this.transport.send({ to: row.recipient, subject: row.subject, text: row.text ?? '', ...(row.html ? { html: row.html } : {}) });
          await this.orm.em.fork().execute(`update mail_outbox set status = 'sent', sent_at = ?, text = null, html = null, locked_until = null, last_error = null where id = ?`, [this.clock.now(), row.id]);
          sent += 1;
        } catch (error) {
          const attempts = row.attempts + 1;
          const failed = attempts >= this.settings.maxAttempts;
          const reason = (error instanceof Error ? error.message : String(error)).slice(0, 300);
          const wait = Math.min(3600, 5 * 2 ** (attempts - 1));
          await this.orm.em.fork().execute(
            `update mail_outbox set status = ?, attempts = ?, next_attempt_at = ?, locked_until = null, last_error = ?${failed ? ', text = null, html = null' : ''} where id = ?`,
            [failed ? 'failed' : 'pending', attempts, new Date(this.clock.now().getTime() + wait * 1000), reason, row.id],
          );
          this.logger.warn({ mailId: row.id, attempts, failed, reason }, failed ? 'mail failed for good' : 'mail not sent; will retry');
        }
      }
      if (claimed.length < CLAIM_BATCH) return sent;
    }
  }
}
