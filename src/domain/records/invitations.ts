import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import type { MailMessage, Mailer } from '../mail/mailer.js';
import { chatFor, type MessengerSender } from '../messaging/messenger-sender.js';
import type { Participant, SignedRecord } from './entities.js';
import { signersDue } from './signing-turn.js';

/** The invitation a participant receives when a record is submitted (or an invitation is resent). */
export function invitationMail(record: SignedRecord, participant: Participant, publicBaseUrl: string): MailMessage {
  const link = `${publicBaseUrl}/records/${record.reference}`;
  const what = record.type.replace('_', ' ');
  const role = participant.role === 'witness' ? 'witness' : 'sign';
  const title = record.title ? `“${record.title}”` : record.reference;
  return {
    to: participant.contactPointValue ?? '',
    subject: `You are invited to ${role} ${title}`,
    text:
      `Hello ${participant.displayName ?? ''},\n\n` +
      `You are invited to ${role} the ${what} ${title} (${record.reference}, version ${record.currentVersion}).\n` +
      `Read it and sign it here: ${link}\n\n` +
      `Sign in with this email address, read the full text, then complete the signature ceremony for this version.\n` +
      `You can also decline. ` +
      (record.expiresAt ? `The invitation lapses on ${record.expiresAt.toISOString().slice(0, 10)}.\n` : '\n') +
      `\nAPI: POST /api/v1/agreements/${record.reference}/signature-execution\n`,
  };
}

export type DeliveryLog = { warn(details: object, message: string): void };

/** What waits for the change's commit: messenger messages (the platform has no outbox to write them to). */
export type AfterCommit = () => Promise<void>;

const PENDING: readonly SignedRecord['status'][] = ['pending_confirmation', 'counter_under_review'];

/**
 * Sends invitations: by email through the mail outbox, in the transaction of the change that causes
 * them (so an invitation exists exactly when its change committed, on whichever instance), or
 * through the messenger bot after the commit. A failed messenger delivery never undoes the change:
 * it is logged (without addresses) and the initiator can resend.
 */
export class Invitations {
  constructor(
    private readonly deps: {
      orm: MikroORM;
      mailer: Mailer;
      /** Null when no bot is configured (email invitations still go out). */
      messenger: MessengerSender | null;
      log: DeliveryLog;
      publicBaseUrl: string;
    },
  ) {}

  /**
   * Invites everyone whose turn to sign has come (signing-turn.ts) and who has no invitation yet, on
   * the locked record: a signature or a waiver that moves a sequential record's turn on invites the
   * next signer once, and running it again invites nobody.
   */
  async inviteDue(em: EntityManager, record: SignedRecord, now: Date): Promise<AfterCommit> {
    if (!PENDING.includes(record.status)) return async () => {};
    const due = signersDue(record.signingOrder, record.participants.getItems(), record.currentVersion).filter((p) => p.invitationSentAt === null);
    return this.invite(em, record, due, now);
  }

  /** Writes `participants`' invitations in `em`'s transaction (mail); returns the messenger deliveries. */
  async invite(em: EntityManager, record: SignedRecord, participants: readonly Participant[], now: Date): Promise<AfterCommit> {
    const messages: Participant[] = [];
    for (const participant of participants) {
      participant.invitationSentAt = now;
      participant.invitedAt = now;
      if (participant.contactPointType === 'messenger') messages.push(participant);
      else await this.mail(record, participant, em);
    }
    return async () => {
      for (const participant of messages) await this.message(record, participant);
    };
  }

  /** Sends an invitation again, now (a resend changes nothing on the record, so it has no transaction to join). */
  async resend(record: SignedRecord, participant: Participant): Promise<void> {
    if (participant.contactPointType === 'messenger') await this.message(record, participant);
    else await this.mail(record, participant);
  }

  private async mail(record: SignedRecord, participant: Participant, em?: EntityManager): Promise<void> {
    if (participant.contactPointType !== 'email' || !participant.contactPointValue) return;
    await this.deps.mailer.send(invitationMail(record, participant, this.deps.publicBaseUrl), em);
  }

  /** Whether messenger participants can be messaged at all (a bot is configured). */
  get messengerConfigured(): boolean {
    return this.deps.messenger !== null;
  }

  /**
   * Sends `text` (by default the invitation) to a messenger participant's chat, after the change that
   * caused it committed: a participant who never wrote to the bot, or a failed delivery, is logged
   * (without addresses) and changes nothing.
   */
  async message(record: SignedRecord, participant: Participant, what: 'invitation' | 'reminder' = 'invitation', text = invitationMail(record, participant, this.deps.publicBaseUrl).text): Promise<void> {
    if (participant.contactPointType !== 'messenger' || !participant.contactPointValue) return;
    try {
      const chatId = this.deps.messenger ? await chatFor(this.deps.orm.em.fork(), participant.contactPointValue) : null;
      if (!this.deps.messenger || !chatId) {
        this.deps.log.warn({ recordId: record.id, participantId: participant.id }, `messenger ${what} not sent: no bot configured or the participant has not written to the bot yet`);
        return;
      }
      await this.deps.messenger.send(chatId, text);
    } catch (error) {
      this.deps.log.warn({ recordId: record.id, participantId: participant.id, reason: (error as Error).message }, `${what} delivery failed`);
    }
  }
}
