import type { EntityManager } from '@mikro-orm/postgresql';

/**
 * Outgoing mail, as the domain needs it. The domain sends through the mail outbox (mail-queue.ts),
 * which hands messages to a transport: SMTP (nodemailer) or a local folder.
 */
export type MailMessage = {
  to: string;
  subject: string;
  text: string;
  html?: string;
};

export interface Mailer {
  /**
   * `em`: the caller's unit of work, when the message belongs to a larger change: the message is
   * written with the caller's next flush, in its transaction (the caller flushes).
   */
  send(message: MailMessage, em?: EntityManager): Promise<void>;
  close?(): Promise<void>;
}
