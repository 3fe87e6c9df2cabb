/** Outgoing mail, as the domain needs it. Adapters: SMTP (nodemailer) or a local outbox folder. */
export type MailMessage = {
  to: string;
  subject: string;
  text: string;
  html?: string;
};

export interface Mailer {
  send(message: MailMessage): Promise<void>;
  close?(): Promise<void>;
}
