import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import type { MailMessage, Mailer } from '../mail/mailer.js';
import type { MessengerMessageKind, MessengerQueue } from '../messaging/messenger-queue.js';
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

const PENDING: readonly SignedRecord['status'][] = ['pending_confirmation', 'counter_under_review'];

/**
 * Sends invitations, by email through the mail outbox or by messenger through the messenger outbox,
 * in the transaction of the change that causes them: an invitation exists exactly when its change
 * committed, on whichever instance, and survives a crash or a platform outage after the commit.
 */
export class Invitations {
  constructor(
    private readonly deps: {
      orm: MikroORM;
      mailer: Mailer;
      /** Null when no bot is configured (email invitations still go out). */
      messenger: MessengerQueue | null;
      log: DeliveryLog;
      publicBaseUrl: string;
    },
  ) {}

  /**
   * Invites everyone whose turn to sign has come (signing-turn.ts) and who has no invitation yet, on
   * the locked record: a signature or a waiver that moves a sequential record's turn on invites the
   * next signer once, and running it again invites nobody.
   */
  async inviteDue(em: EntityManager, record: SignedRecord, now: Date): Promise<void> {
    if (!PENDING.includes(record.status)) return;
    const due = signersDue(record.signingOrder, record.participants.getItems(), record.currentVersion).filter((p) => p.invitationSentAt === null);
    await this.invite(em, record, due, now);
  }

  /** Writes `participants`' invitations in `em`'s transaction. */
  async invite(em: EntityManager, record: SignedRecord, participants: readonly Participant[], now: Date): Promise<void> {
    for (const participant of participants) {
      participant.invitationSentAt = now;
      participant.invitedAt = now;
      if (participant.contactPointType === 'messenger') await this.message(record, participant, em);
      else await this.mail(record, participant, em);
    }
  }

  /** Writes `participant`'s invitation again in `em`'s transaction (a resend: the participant row is not changed). */
  async resend(em: EntityManager, record: SignedRecord, participant: Participant): Promise<void> {
    if (participant.contactPointType === 'messenger') await this.message(record, participant, em);
    else await this.mail(record, participant, em);
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
   * Queues `text` (by default the invitation) for a messenger participant, in `em`'s transaction when
   * given. Without a bot nothing is queued: that is logged (without addresses) and changes nothing.
   */
  async message(
    record: SignedRecord,
    participant: Participant,
    em?: EntityManager,
    kind: MessengerMessageKind = 'invitation',
    text = invitationMail(record, participant, this.deps.publicBaseUrl).text,
  ): Promise<void> {
    if (participant.contactPointType !== 'messenger' || !participant.contactPointValue) return;
    if (!this.deps.messenger) {
      this.deps.log.warn({ recordId: record.id, participantId: participant.id }, `messenger ${kind} not sent: no bot configured`);
      return;
    }
    await this.deps.messenger.send({ handle: participant.contactPointValue, text, kind, recordId: record.id, participantId: participant.id }, em);
  }
}
