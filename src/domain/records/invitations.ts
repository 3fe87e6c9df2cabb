import type { MailMessage } from '../mail/mailer.js';
import type { Participant, SignedRecord } from './entities.js';

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
