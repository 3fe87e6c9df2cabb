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
  /** `waiting`: someone waits for it (a one-time code), sent before any `bulk` mail (invitations, notices). Default `bulk`. */
  urgency?: 'waiting' | 'bulk';
  /** Never sent after this instant (a code's expiry). */
  notAfter?: Date;
  /** A newer message with the same key, queued before this one went out, replaces it (a newer code for the same address and purpose). */
  replacesKey?: string;
  /** The client network address that caused it: how much unsent mail one client may queue is capped. */
  client?: string | null;
};

export interface Mailer {
  /**
   * `em`: the caller's unit of work, when the message belongs to a larger change: the message is
   * written with the caller's next flush, in its transaction (the caller flushes).
   */
  send(message: MailMessage, em?: EntityManager): Promise<void>;
  close?(): Promise<void>;
}
