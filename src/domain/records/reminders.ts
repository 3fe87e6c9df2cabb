import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import type { Mailer, MailMessage } from '../mail/mailer.js';
import type { Clock } from '../shared/clock.js';
import { PollingLoop } from '../shared/polling-loop.js';
import { Participant } from './entities.js';
import { invitationMail, type Invitations } from './invitations.js';

/** The service defaults (`REMINDER_*`); `everyDays` 0 turns reminders off for the whole service. */
export type ReminderSettings = { everyDays: number; beforeExpiryDays: number; maxPerParty: number };

/** A reminder: the invitation's text again, under a subject that says it is one. */
function reminderMail(record: Participant['record'], participant: Participant, publicBaseUrl: string, beforeExpiry: boolean): MailMessage {
  const invitation = invitationMail(record, participant, publicBaseUrl);
  const when = beforeExpiry && record.expiresAt ? ` (it lapses on ${record.expiresAt.toISOString().slice(0, 10)})` : '';
  return { ...invitation, subject: `Reminder: ${invitation.subject.replace(/^You are/, 'you are')}${when}` };
}

/** The same reminder as a messenger message: its subject, then the invitation's text. */
function reminderText(record: Participant['record'], participant: Participant, publicBaseUrl: string, beforeExpiry: boolean): string {
  const mail = reminderMail(record, participant, publicBaseUrl, beforeExpiry);
  return `${mail.subject}\n\n${mail.text}`;
}

/**
 * Who is due a reminder now (`p`, of `participants`, its record `r`): the record is pending
 * confirmation with reminders on; the participant is an active party or witness who has been invited
 * (`invitation_sent_at`: in sequential order only whose turn it is), has not signed the current version,
 * is reached by mail (or by messenger when a bot is configured: `messenger` 1), and has had fewer than the cap; and either `every_days` passed since the last
 * reminder (or the invitation), or the record expires within `before_expiry_days` and the "before
 * expiry" reminder has not gone out. Parameters: now, every_days default, before_expiry_days default, cap.
 */
const DUE_SQL = `
  r.status = 'pending_confirmation' and r.reminders_enabled
  and p.role in ('party', 'witness') and p.declined_at is null and p.waived_at is null and p.removed_at is null
  and (p.confirmed_version is null or p.confirmed_version <> r.current_version)
  and p.invitation_sent_at is not null
  and (p.contact_point_type = 'email' or (p.contact_point_type = 'messenger' and :messenger = 1)) and p.contact_point_value is not null
  and p.reminder_count < :cap
  and (r.expires_at is null or r.expires_at > :now)
  and (
    (coalesce(r.reminder_every_days, :every) > 0
      and coalesce(p.last_reminded_at, p.invitation_sent_at) <= :now - make_interval(days => coalesce(r.reminder_every_days, :every)))
    or (coalesce(r.reminder_before_expiry_days, :before) > 0 and p.expiry_reminded_at is null
      and r.expires_at <= :now + make_interval(days => coalesce(r.reminder_before_expiry_days, :before)))
  )`;

/**
 * Sends reminders to participants who have not signed. Every instance sweeps; each pass claims the
 * due participants with `for update skip locked`, writes their reminder mails to the mail outbox and
 * counts them on the participants in one transaction, so a reminder goes out once whichever
 * instances sweep at the same time (a claimed participant is skipped by the others, and is no longer
 * due once the claim commits). A messenger participant's reminder goes to the messenger outbox in the
 * same transaction, as a messenger invitation does.
 */
export class Reminders {
  private readonly loop: PollingLoop;

  constructor(
    private readonly deps: {
      orm: MikroORM;
      mailer: Mailer;
      /** Queues messenger participants' reminders (in the sweep's transaction). */
      invitations: Pick<Invitations, 'message' | 'messengerConfigured'>;
      clock: Clock;
      logger: Logger;
      publicBaseUrl: string;
      settings: ReminderSettings;
      pollMs?: number;
    },
  ) {
    this.loop = new PollingLoop(() => this.sweep(), deps.pollMs ?? 60_000, (error) => deps.logger.error({ err: error }, 'reminder pass failed; retrying at the next poll'));
  }

  /** Whether the service sends reminders at all (`REMINDER_EVERY_DAYS` > 0). */
  get enabled(): boolean {
    return this.deps.settings.everyDays > 0 && this.deps.settings.maxPerParty > 0;
  }

  start(): void {
    if (this.enabled) this.loop.start();
  }

  stop(): Promise<void> {
    return this.loop.stop();
  }

  /** One pass: sends every reminder due now (up to `limit`); answers how many went out. */
  async sweep(limit = 200): Promise<number> {
    if (!this.enabled) return 0;
    const { settings } = this.deps;
    const now = this.deps.clock.now();
    return this.deps.orm.em.fork().transactional(async (em) => {
      const params = { now, every: settings.everyDays, before: settings.beforeExpiryDays, cap: settings.maxPerParty, messenger: this.deps.invitations.messengerConfigured ? 1 : 0, limit };
      const sql = `select p.id, (coalesce(r.reminder_before_expiry_days, :before) > 0 and p.expiry_reminded_at is null
                      and r.expires_at <= :now + make_interval(days => coalesce(r.reminder_before_expiry_days, :before))) as "beforeExpiry"
                    from participants p join records r on r.id = p.record_id
                   where ${DUE_SQL}
                   order by coalesce(p.last_reminded_at, p.invitation_sent_at) limit :limit
                   for update of p skip locked`;
      // On the transaction's own connection (em.execute), so that the row locks last until the commit.
      const rows = await em.execute<{ id: string; beforeExpiry: boolean }[]>(...named(sql, params));
      if (rows.length === 0) return 0;
      const participants = await em.find(Participant, { id: { $in: rows.map((r) => r.id) } }, { populate: ['record'] });
      const beforeExpiry = new Map(rows.map((r) => [r.id, r.beforeExpiry]));
      for (const participant of participants) {
        const expiring = beforeExpiry.get(participant.id) === true;
        if (participant.contactPointType === 'messenger')
          await this.deps.invitations.message(participant.record, participant, em, 'reminder', reminderText(participant.record, participant, this.deps.publicBaseUrl, expiring));
        else await this.deps.mailer.send(reminderMail(participant.record, participant, this.deps.publicBaseUrl, expiring), em);
        participant.reminderCount += 1;
        participant.lastRemindedAt = now;
        if (expiring) participant.expiryRemindedAt = now;
      }
      return participants.length;
    });
  }
}

/** `:name` placeholders to positional `?` ones (a name may repeat). */
function named(sql: string, params: Record<string, unknown>): [string, unknown[]] {
  const values: unknown[] = [];
  const text = sql.replace(/(?<!:):([a-z]+)\b/g, (_match, name: string) => {
    if (!(name in params)) throw new Error(`no parameter ${name}`);
    values.push(params[name]);
    return `cast(? as ${name === 'now' ? 'timestamptz' : 'int'})`;
  });
  return [text, values];
}
