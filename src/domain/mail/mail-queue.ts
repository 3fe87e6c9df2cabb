import { Entity, Index, Property } from '@mikro-orm/decorators/legacy';
import { OptionalProps } from '@mikro-orm/core';
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import type { Clock } from '../shared/clock.js';
import type { Instruments } from '../shared/instruments.js';
import { DomainError } from '../shared/errors.js';
import { PollingLoop } from '../shared/polling-loop.js';
import { claimDue, OutboxRow, retryDelaySeconds, type OutboxRowDefaults } from '../shared/outbox-rows.js';
import type { MailMessage, Mailer } from './mailer.js';

/** `dropped`: never sent, and never will be: past its `notAfter`, or replaced by a newer message. */
export type MailStatus = 'pending' | 'sending' | 'sent' | 'failed' | 'dropped';

const URGENCY = { waiting: 0, bulk: 1 } as const;

type ClaimedMessage = { id: string; recipient: string; subject: string; text: string | null; html: string | null; attempts: number; not_after: Date | string | null };

/**
 * A message waiting to go out. Written in the transaction of the change that sends it; the body
 * (which may hold a one-time code) is erased once the message is sent or has failed for good.
 */
@Entity({ tableName: 'mail_outbox' })
@Index({ properties: ['status', 'nextAttemptAt'] })
@Index({ name: 'mail_outbox_due_index', expression: `create index "mail_outbox_due_index" on "mail_outbox" ("urgency", "created_at") where "status" = 'pending'` })
@Index({
  name: 'mail_outbox_unsent_recipient_index',
  expression: `create index "mail_outbox_unsent_recipient_index" on "mail_outbox" ("recipient") where "status" in ('pending', 'sending')`,
})
@Index({
  name: 'mail_outbox_unsent_client_index',
  expression: `create index "mail_outbox_unsent_client_index" on "mail_outbox" ("client_address") where "status" in ('pending', 'sending') and "client_address" is not null`,
})
@Index({
  name: 'mail_outbox_replaces_index',
  expression: `create index "mail_outbox_replaces_index" on "mail_outbox" ("replaces_key", "created_at") where "replaces_key" is not null`,
})
export class QueuedMessage extends OutboxRow<MailStatus> {
  [OptionalProps]?: OutboxRowDefaults | 'html' | 'urgency' | 'notAfter' | 'replacesKey' | 'clientAddress';

  @Property({ type: 'text' })
  recipient!: string;

  @Property({ type: 'text' })
  subject!: string;

  @Property({ type: 'text', nullable: true })
  text!: string | null;

  @Property({ type: 'text', nullable: true })
  html: string | null = null;

  /** 0: someone waits for it (a code); 1: bulk. Lower goes first. */
  @Property({ type: 'smallint' })
  urgency: number = URGENCY.bulk;

  @Property({ type: 'datetime', columnType: 'timestamptz', nullable: true })
  notAfter: Date | null = null;

  @Property({ type: 'text', nullable: true })
  replacesKey: string | null = null;

  @Property({ type: 'text', nullable: true })
  clientAddress: string | null = null;
}

export type MailQueueSettings = {
  maxAttempts: number;
  pollMs: number;
  /** Messages handed to the transport at once per instance. */
  concurrency: number;
  /** Unsent messages one recipient may have waiting; past it a new code's message is refused (429). */
  backlogPerRecipient: number;
  /** Unsent messages one client address may have caused; past it a new code's message is refused (429). */
  backlogPerClient: number;
};

/**
 * Mail through an outbox: `send` only writes the message (in the caller's transaction when given
 * one), so no request and no record lock ever waits for a mail server. A worker per instance sends
 * what is due, a few at a time, mail someone waits for (codes) before bulk mail, with the transport's
 * timeouts; it retries with backoff and marks a message `failed` (visible in the table and the log)
 * after the last attempt. A message past its `notAfter` or replaced by a newer one is `dropped`, never
 * sent late; unsent mail is capped per recipient and per client address, so a flood of code requests
 * from many addresses cannot delay a sign-in code past its lifetime (it once waited 17 minutes).
 */
export class MailQueue implements Mailer {
  private readonly loop: PollingLoop;

  constructor(
    private readonly deps: {
      orm: MikroORM;
      transport: Mailer;
      clock: Clock;
      logger: Logger;
      settings: MailQueueSettings;
      instruments?: Instruments;
    },
  ) {
    this.loop = new PollingLoop(() => this.deliverDue(), deps.settings.pollMs, (error) => this.deps.logger.error({ err: error }, 'mail outbox pass failed'));
  }

  async send(message: MailMessage, em?: EntityManager): Promise<void> {
    const target = em ?? this.deps.orm.em.fork();
    // Only mail a request for a code causes is capped: bulk mail belongs to a change that other limits
    // bound, and a backlog (a mail server down) must never fail that change.
    if (message.urgency === 'waiting') await this.checkBacklog(target, message.to, message.client ?? null);
    target.create(QueuedMessage, {
      recipient: message.to,
      subject: message.subject,
      text: message.text,
      html: message.html ?? null,
      nextAttemptAt: this.deps.clock.now(),
      createdAt: this.deps.clock.now(),
      urgency: URGENCY[message.urgency ?? 'bulk'],
      notAfter: message.notAfter ?? null,
      replacesKey: message.replacesKey ?? null,
      clientAddress: message.client ?? null,
    });
    if (em) {
      // The caller's flush writes it and its commit makes it visible: look again shortly.
      this.loop.wake(50);
      return;
    }
    await target.flush();
    this.loop.wake(0);
  }

  /** Refuses a code's message past the unsent-mail caps of its recipient or its client address. */
  private async checkBacklog(em: EntityManager, recipient: string, client: string | null): Promise<void> {
    const [row] = await em.execute<{ recipient: number; client: number }[]>(
      `select (select count(*)::int from mail_outbox where recipient = ? and status in ('pending', 'sending')) as recipient,
              (select count(*)::int from mail_outbox where client_address = ? and status in ('pending', 'sending')) as client`,
      [recipient, client],
    );
    if ((row?.recipient ?? 0) >= this.deps.settings.backlogPerRecipient || (client !== null && (row?.client ?? 0) >= this.deps.settings.backlogPerClient)) {
      this.deps.instruments?.rateLimited('mail_backlog');
      throw new DomainError('rate_limited', 'Too much mail is waiting to go out; try again in a minute', { retryAfterSeconds: 60 });
    }
  }

  start(): void {
    this.loop.start();
  }

  /** Stops sending; a pass under way gets a few seconds to finish (what it leaves is sent by the next start). */
  async close(): Promise<void> {
    await this.loop.stop();
    await this.deps.transport.close?.();
  }

  /**
   * Sends every due message once; returns how many went out. Safe on several instances at once. A
   * batch that was not full was all there was to claim: no empty claim follows it (messages queued
   * meanwhile wake the queue again).
   */
  async deliverDue(): Promise<number> {
    let sent = 0;
    for (;;) {
      const now = this.deps.clock.now();
      // Never late: what is past its deadline, or has a newer replacement queued, is dropped unsent.
      await this.deps.orm.em.fork().execute(
        `update mail_outbox m set status = 'dropped', text = null, html = null, locked_until = null
          where m.status = 'pending' and (m.not_after <= ? or (m.replaces_key is not null and exists (
            select 1 from mail_outbox n where n.replaces_key = m.replaces_key and n.created_at > m.created_at)))`,
        [now],
      );
      const { rows: claimed, full } = await claimDue<ClaimedMessage & { urgency: number; created_at: Date | string }>(this.deps.orm.em.fork(), {
        table: 'mail_outbox',
        order: 'urgency, case when urgency = 0 then created_at end desc, created_at',
        returning: 'id, recipient, subject, text, html, attempts, not_after, urgency, created_at',
        now,
      });
      // In claim order (codes first, the newest code first: the person who just asked is at the
      // screen, and a code that waited its lifetime out is dropped anyway), a few at a time.
      const queue = [...claimed].sort((a, b) =>
        a.urgency !== b.urgency ? a.urgency - b.urgency : (a.urgency === URGENCY.waiting ? -1 : 1) * (new Date(a.created_at).getTime() - new Date(b.created_at).getTime()),
      );
      const worker = async () => {
        for (let row = queue.shift(); row; row = queue.shift()) if (await this.deliver(row)) sent += 1;
      };
      await Promise.all(Array.from({ length: Math.min(this.deps.settings.concurrency, queue.length) }, worker));
      if (!full) return sent;
    }
  }

  /** Hands one claimed message to the transport; true when it went out. */
  private async deliver(row: ClaimedMessage): Promise<boolean> {
    if (row.not_after && new Date(row.not_after).getTime() <= this.deps.clock.now().getTime()) {
      await this.deps.orm.em.fork().execute(`update mail_outbox set status = 'dropped', text = null, html = null, locked_until = null where id = ?`, [row.id]);
      return false;
    }
    try {
      await this.deps.transport.send({ to: row.recipient, subject: row.subject, text: row.text ?? '', ...(row.html ? { html: row.html } : {}) });
      await this.deps.orm.em.fork().execute(`update mail_outbox set status = 'sent', sent_at = ?, text = null, html = null, locked_until = null, last_error = null where id = ?`, [this.deps.clock.now(), row.id]);
      this.deps.instruments?.mail('sent');
      return true;
    } catch (error) {
      const attempts = row.attempts + 1;
      const failed = attempts >= this.deps.settings.maxAttempts;
      const reason = (error instanceof Error ? error.message : String(error)).slice(0, 300);
      const wait = retryDelaySeconds(attempts);
      const now = this.deps.clock.now();
      await this.deps.orm.em.fork().execute(
        `update mail_outbox set status = ?, attempts = ?, next_attempt_at = ?, failed_at = ?, locked_until = null, last_error = ?${failed ? ', text = null, html = null' : ''} where id = ?`,
        [failed ? 'failed' : 'pending', attempts, new Date(now.getTime() + wait * 1000), failed ? now : null, reason, row.id],
      );
      this.deps.instruments?.mail(failed ? 'failed' : 'retry');
      this.deps.logger.warn({ mailId: row.id, attempts, failed, reason }, failed ? 'mail failed for good' : 'mail not sent; will retry');
      return false;
    }
  }
}
